"""Element structure for loom.data: tf.data's nesting over flat C++ elements.

The C++ pipeline moves flat lists of tensors. An element's structure (tuples,
namedtuples, dicts, nested to any depth; strings; window's nested datasets)
lives here, beside the dataset, and is applied when Python sees an element:

- flatten(value) -> (structure, leaves): tf.data's rules. Tuples (and
  namedtuples) and dicts are structure; a dict flattens in sorted key order
  (so dicts with the same keys in another order line up) and packs back in
  its own key order. Everything else is one component: a list is a tensor,
  as in tf.data.
- Strings (str, bytes, NumPy 'S'/'U' arrays, object arrays of str/bytes) are
  carried as uint8 tensors with one extra, last axis holding the bytes of
  each string, NUL-padded to the longest; they come back as NumPy 'S' arrays
  (0-d for one string), so trailing NUL bytes are dropped as NumPy's 'S'
  dtype drops them. str is encoded as UTF-8.
- A map function's output structure is known once it has run: the dataset
  holds a Pending cell that the first call fills (later calls must agree).

Nothing here runs pipeline work; it is called under the GIL by the thread
that converts an element (the consumer, or a data-pool thread running a
Python function).
"""


class _LazyNumpy:
    """numpy, imported at first use: `import loom` imports nothing that
    starts threads (NumPy's BLAS would, and name them after the importing
    thread)."""

    def __getattr__(self, name):
        import numpy

        return getattr(numpy, name)


np = _LazyNumpy()


class TensorSpec:
    """One component of element_spec: shape (a tuple, None for a dimension
    that differs between elements), dtype (a NumPy dtype; strings are
    np.dtype('S'), tf.string's place) and name (always None)."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and (self.shape, self.dtype, self.name) == (other.shape, other.dtype, other.name)
        )

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name!r})"


class DatasetSpec:
    """element_spec of a component that is itself a dataset (window's)."""

    __slots__ = ("element_spec",)

    def __init__(self, element_spec):
        self.element_spec = element_spec

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec

    def __hash__(self):
        return hash(("DatasetSpec", repr(self.element_spec)))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r})"


class Leaf:
    """One component: a tensor, a string tensor, or (windowed) a dataset of
    one of those, carried as the window's stacked tensor."""

    __slots__ = ("string", "windowed")

    def __init__(self, string=False, windowed=False):
        self.string = string
        self.windowed = windowed

    def __eq__(self, other):
        return isinstance(other, Leaf) and (self.string, self.windowed) == (
            other.string,
            other.windowed,
        )

    def __hash__(self):
        return hash((self.string, self.windowed))

    def __repr__(self):
        return "Leaf(string)" if self.string else "Leaf()"


TENSOR = Leaf()
STRING = Leaf(string=True)


class Pending:
    """The structure of a function's results, filled by its first call.

    A function may return values whose own structure is still pending (an
    interleave function's datasets built on a map that has not run): such
    structures are kept as candidates until one of them is known."""

    __slots__ = ("_known", "_candidates", "what")

    # Candidates kept while none is known (inner datasets that never ran).
    _MAX_CANDIDATES = 64

    def __init__(self, what):
        self._known = None
        self._candidates = []
        self.what = what

    @property
    def structure(self):
        if self._known is None:
            for candidate in self._candidates:
                if is_known(candidate):
                    self._known = resolve(candidate)
                    self._candidates = []
                    break
        return self._known

    def set(self, structure):
        if structure is self._known:
            return  # every call after the first, in the common case
        current = self.structure
        if current is None:
            if is_known(structure):
                self._known = resolve(structure)
                self._candidates = []
            elif len(self._candidates) < self._MAX_CANDIDATES:
                self._candidates.append(structure)
            return
        if is_known(structure) and not same(current, resolve(structure)):
            raise ValueError(
                f"{self.what} returned {describe(structure)}, but its first call returned "
                f"{describe(current)}; every call must return the same structure"
            )


def resolve(structure, what="the dataset"):
    """The structure with every Pending cell replaced by what it holds."""
    if isinstance(structure, Pending):
        if structure.structure is None:
            raise ValueError(
                f"{what}: the structure of {structure.what}'s results is not known before it "
                "has run once"
            )
        return resolve(structure.structure, what)
    if isinstance(structure, dict):
        return {k: resolve(v, what) for k, v in structure.items()}
    if isinstance(structure, tuple):
        return _like(structure, [resolve(v, what) for v in structure])
    return structure


def is_known(structure):
    if isinstance(structure, Pending):
        return structure.structure is not None and is_known(structure.structure)
    if isinstance(structure, dict):
        return all(is_known(v) for v in structure.values())
    if isinstance(structure, tuple):
        return all(is_known(v) for v in structure)
    return True


def _like(instance, items):
    if hasattr(instance, "_fields"):  # namedtuple
        return type(instance)(*items)
    return tuple(items)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError as e:
        raise TypeError(
            f"loom.data: dict keys must be sortable (tf.data sorts them): {e}"
        ) from None


def leaves(structure):
    """The Leaf objects in flat order (structure must be resolved)."""
    if isinstance(structure, dict):
        return [leaf for k in _sorted_keys(structure) for leaf in leaves(structure[k])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in leaves(item)]
    return [structure]


def same(a, b):
    """Same nesting, keys and leaf kinds (dtypes are checked by C++)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and set(a) == set(b)
            and all(same(a[k], b[k]) for k in a)
        )
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b))
        )
    return a == b


def describe(structure):
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in structure.items()) + "}"
    if isinstance(structure, tuple):
        inner = ", ".join(describe(v) for v in structure)
        return f"({inner},)" if len(structure) == 1 else f"({inner})"
    if isinstance(structure, Pending):
        return describe(structure.structure) if structure.structure is not None else "(unknown)"
    return "a string" if structure.string else "a tensor"


# ---- values ----


def _string_array(value):
    """value as a NumPy 'S' array if it is string data, else None."""
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return np.array(value.encode("utf-8") if isinstance(value, str) else bytes(value))
    if isinstance(value, list):
        if not value:
            return None
        try:
            value = np.asarray(value)
        except (TypeError, ValueError):
            return None  # not an array at all: the C++ conversion says why
    if not isinstance(value, np.ndarray):
        return None
    if value.dtype.kind == "S":
        return value
    if value.dtype.kind == "U":
        return np.char.encode(value, "utf-8")
    if value.dtype.kind == "O" and value.size > 0:
        items = value.ravel().tolist()
        if all(isinstance(x, (str, bytes)) for x in items):
            encoded = [x.encode("utf-8") if isinstance(x, str) else x for x in items]
            return np.array(encoded, dtype=np.bytes_).reshape(value.shape)
    return None


def encode_strings(array):
    """An 'S' array as uint8 with its bytes along a new last axis."""
    width = max(array.dtype.itemsize, 1)
    shape = array.shape  # np.ascontiguousarray would make a 0-d array 1-d
    flat = np.ascontiguousarray(array.reshape(-1), dtype=f"S{width}")
    return flat.view(np.uint8).reshape(shape + (width,))


def decode_strings(array):
    """The inverse of encode_strings."""
    width = array.shape[-1]
    shape = array.shape[:-1]
    if width == 0:
        return np.zeros(shape, dtype="S1")
    flat = np.ascontiguousarray(array, dtype=np.uint8).reshape(-1, width)
    return flat.view(f"S{width}").reshape(shape)


def flatten(value, what):
    """(structure, components) of a Python value, tf.data's rules."""
    components = []

    def walk(v, where):
        if isinstance(v, dict):
            if not v:
                raise ValueError(f"{what}{where} is an empty dict")
            parts = {k: walk(v[k], f"{where}[{k!r}]") for k in _sorted_keys(v)}
            return {k: parts[k] for k in v}
        if isinstance(v, tuple):
            if not v:
                raise ValueError(f"{what}{where} is an empty tuple")
            return _like(v, [walk(item, f"{where}[{i}]") for i, item in enumerate(v)])
        if hasattr(v, "_loom_flat"):
            raise TypeError(
                f"{what}{where} is a loom.data.Dataset; elements are arrays (datasets of "
                "datasets come only from window())"
            )
        strings = _string_array(v)
        if strings is not None:
            components.append(encode_strings(strings))
            return STRING
        components.append(v)
        return TENSOR

    structure = walk(value, "")
    return structure, components


def _fill(structure, items, leaf_value):
    """structure (resolved) with each leaf replaced by leaf_value(leaf, item),
    items taken in flattening order (dict keys sorted)."""
    it = iter(items)

    def build(s):
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in _sorted_keys(s)}
            return {k: built[k] for k in s}
        if isinstance(s, tuple):
            return _like(s, [build(v) for v in s])
        return leaf_value(s, next(it))

    return build(structure)


def pack(structure, components, dataset_factory=None):
    """The Python value of an element: components laid out as structure
    (resolved). dataset_factory(component, leaf) makes window's datasets."""

    def leaf_value(s, component):
        if s.windowed:
            return dataset_factory(component, s)
        return decode_strings(component) if s.string else component

    return _fill(structure, components, leaf_value)


def spec_of(structure, flat_spec):
    """element_spec: structure with each leaf's TensorSpec (or DatasetSpec)."""

    def leaf_value(s, dtype_and_shape):
        dtype, shape = dtype_and_shape
        if s.string:
            dtype, shape = np.dtype("S"), shape[:-1]
        if s.windowed:
            return DatasetSpec(TensorSpec(shape[1:], dtype))
        return TensorSpec(shape, dtype)

    return _fill(structure, flat_spec, leaf_value)
