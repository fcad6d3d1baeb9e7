"""Input pipelines with tf.data's names, on Loom's governed "loom-data-*" pool.

    ds = (loom.data.Dataset.from_tensor_slices({"image": images, "label": labels})
          .map(decode, num_parallel_calls=loom.data.AUTOTUNE)
          .batch(32)
          .prefetch(loom.data.AUTOTUNE))
    for batch in ds:                      # {"image": array, "label": array}
        ...

Elements have tf.data's structure: an array, or tuples (namedtuples) and
dicts of them nested to any depth. Numbers are NumPy arrays (0-d for
scalars); strings are NumPy 'S' arrays (0-d for one string; tf.data's
tf.string). A map function receives a tuple's items as separate arguments
and anything else as one, as in tf.data.

Everything that touches elements runs in C++ on the data pool (see
docs/data.md): this module keeps each dataset's structure beside the flat
C++ pipeline (loom/_data_structure.py) and applies it where Python sees an
element. reduce() runs on the calling thread, like iterating.

tf.data names and what they are here:
  sources         range, from_tensor_slices, from_tensors, from_generator,
                  zip (static), TextLineDataset; read_files, read_lines,
                  list_files (Loom's)
  transformations map, filter, batch, padded_batch, unbatch, shuffle,
                  prefetch, take, skip, repeat, cache (in memory), interleave,
                  flat_map, window (a structure of datasets per window),
                  concatenate, enumerate, apply, with_options
  description     cardinality(), len(), element_spec, options()
  other           reduce, as_numpy_iterator, INFINITE_CARDINALITY,
                  UNKNOWN_CARDINALITY, AUTOTUNE, Options (deterministic,
                  autotune.enabled, autotune.cpu_budget,
                  threading.max_intra_op_parallelism), TensorSpec
"""

from loom import _data_structure as _st
from loom._data_options import AutotuneOptions, Options, ThreadingOptions, _apply_options
from loom._data_structure import DatasetSpec, TensorSpec, np
from loom._loom.data import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from loom._loom.data import _Dataset
from loom._loom.data import list_files as _list_files
from loom.errors import InvalidArgumentError

# ---- functions over elements ----


def _call(fn, value):
    # tf.data unpacks a tuple (not a namedtuple or dict) into arguments.
    return fn(*value) if type(value) is tuple else fn(value)


def _flat_map_fn(fn, in_structure, out, what):
    """fn over structured values as a function over flat components (what
    the C++ map calls), recording the result's structure in `out`."""

    resolved = []  # the input structure, once known

    def flat(*components):
        if not resolved:
            resolved.append(_st.resolve(in_structure))
        if resolved[0] is _st.TENSOR:  # the common case, without the general walk
            result = fn(components[0])
        else:
            result = _call(fn, _st.pack(resolved[0], components, _window_dataset))
        if isinstance(result, list):
            result = tuple(result)  # tf.data's rule for a function's result
        if isinstance(result, np.ndarray) and result.dtype.kind not in "SUO":
            out.set(_st.TENSOR)
            return result
        structure, flat_result = _st.flatten(result, f"{what} function's result")
        out.set(structure)
        return tuple(flat_result)

    return flat


def _require_callable(fn, what):
    # Loom's ValueError (tf.data raises TypeError when it traces the function).
    if not callable(fn):
        raise InvalidArgumentError(f"{what}: not callable")


def _window_dataset(component, leaf):
    inner = _st.STRING if leaf.string else _st.TENSOR
    return Dataset._wrap(_Dataset.from_tensor_slices(component), inner, Options())


# ---- the dataset ----


class Dataset:
    """An immutable input pipeline with tf.data's names; iterate it with
    `for x in ds`. Each transformation returns a new Dataset."""

    __slots__ = ("_loom_flat", "_structure", "_options", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("loom.data.Dataset is made by its sources (range, from_tensor_slices, ...)")

    @classmethod
    def _wrap(cls, flat, structure, options):
        ds = object.__new__(cls)
        ds._loom_flat = flat
        ds._structure = structure
        ds._options = options
        return ds

    def _derive(self, flat, structure=None):
        return Dataset._wrap(
            flat, self._structure if structure is None else structure, self._options
        )

    # ---- sources ----

    @staticmethod
    def range(*args, output_type="int64", name=None):
        """int64 scalars, like Python's range(): (stop), (start, stop[, step])."""
        ds = Dataset._wrap(_Dataset.range(*args), _st.TENSOR, Options())
        if np.dtype(output_type) != np.int64:
            dtype = np.dtype(output_type)
            ds = ds.map(lambda x: x.astype(dtype))
        return ds

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """Slices each component of `tensors` (any structure) along its first
        axis; all must agree on it."""
        structure, components = _st.flatten(tensors, "from_tensor_slices: tensors")
        flat = _Dataset.from_tensor_slices(
            components[0] if len(components) == 1 else tuple(components)
        )
        return Dataset._wrap(flat, structure, Options())

    @staticmethod
    def from_tensors(tensors, name=None):
        """One element: `tensors` (any structure)."""
        structure, components = _st.flatten(tensors, "from_tensors: tensors")
        flat = _Dataset.from_tensors(components[0] if len(components) == 1 else tuple(components))
        return Dataset._wrap(flat, structure, Options())

    @staticmethod
    def from_generator(
        generator, output_types=None, output_shapes=None, args=None, output_signature=None,
        name=None,
    ):
        """generator(*args) is called once per iteration and returns an
        iterable of elements (any structure). With output_signature (a
        structure of TensorSpec), each element must have that structure and
        is converted to its dtypes; without it, the first element sets the
        structure. It runs under the GIL."""
        if output_types is not None or output_shapes is not None:
            raise NotImplementedError(
                "from_generator: output_types/output_shapes (deprecated in tf.data) are not "
                "supported; pass output_signature, a structure of loom.data.TensorSpec"
            )
        if not callable(generator):
            raise InvalidArgumentError(
                "from_generator: generator must be a callable returning an iterable (e.g. a "
                "generator function), not an iterator"
            )
        out = _st.Pending("from_generator's generator")
        convert = None
        if output_signature is not None:
            out.set(_signature_structure(output_signature))
            convert = _signature_converter(output_signature)

        def flat_generator(*call_args):
            for value in generator(*call_args):
                if convert is not None:
                    value = convert(value)
                structure, components = _st.flatten(value, "from_generator: a yielded value")
                out.set(structure)
                yield tuple(components)

        flat = _Dataset.from_generator(flat_generator, args=args)
        return Dataset._wrap(flat, out, Options())

    @staticmethod
    def read_files(paths):
        """One element per file (a path list or a glob pattern): its bytes as
        a uint8 array."""
        return Dataset._wrap(_Dataset.read_files(paths), _st.TENSOR, Options())

    @staticmethod
    def read_lines(paths):
        """One element per line (bytes without the line ending, as a uint8
        array), like tf.data.TextLineDataset."""
        return Dataset._wrap(_Dataset.read_lines(paths), _st.TENSOR, Options())

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements of several datasets side by side, in their structure:
        Dataset.zip(a, b) or Dataset.zip((a, b)) yields (x, y); a dict of
        datasets yields dicts. Ends with the shortest. As in tf.data it is a
        static method: ds.zip(other) zips `other` alone."""
        if not args and datasets is None:
            raise TypeError("zip: must pass at least one dataset")
        if args and datasets is not None:
            raise TypeError("zip: both *args and datasets cannot be set")
        if datasets is None:
            datasets = args[0] if len(args) == 1 else args
        inputs = []

        def walk(v):
            if isinstance(v, dict):
                if not v:
                    raise ValueError("zip: an empty dict of datasets")
                parts = {k: walk(v[k]) for k in _st._sorted_keys(v)}
                return {k: parts[k] for k in v}
            if isinstance(v, tuple):
                if not v:
                    raise ValueError("zip: an empty tuple of datasets")
                return _st._like(v, [walk(item) for item in v])
            if isinstance(v, list):
                raise TypeError(
                    "zip: datasets must be a (nested) tuple or dict of datasets; tf.data does "
                    "not accept a list either (use a tuple)"
                )
            if not isinstance(v, Dataset):
                raise TypeError(
                    f"zip: expected a loom.data.Dataset, got {type(v).__name__} ({v!r:.60})"
                )
            inputs.append(v)
            return v._structure

        structure = walk(datasets)
        flat = _Dataset.zip([ds._loom_flat for ds in inputs])
        return Dataset._wrap(flat, structure, inputs[0]._options)

    # ---- transformations ----

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """num_parallel_calls: None = on the consuming thread; N = up to N
        elements at once on the loom-data pool; AUTOTUNE = climb from 1 while
        throughput improves. deterministic None = Options.deterministic.
        Python functions hold the GIL: only the parts that release it
        (NumPy, loom.ops) run in parallel."""
        _require_callable(map_func, "map")
        out = _st.Pending("the map function")
        fn = _flat_map_fn(map_func, self._structure, out, "map")
        return self._derive(
            self._loom_flat.map(fn, num_parallel_calls, deterministic), structure=out
        )

    def filter(self, predicate, name=None):
        _require_callable(predicate, "filter")
        structure = self._structure

        def flat(*components):
            value = _st.pack(_st.resolve(structure), components, _window_dataset)
            return _call(predicate, value)

        return self._derive(self._loom_flat.filter(flat))

    def batch(
        self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
        name=None,
    ):
        """Stacks batch_size consecutive elements (the last batch may be
        smaller unless drop_remainder). num_parallel_calls and deterministic
        are accepted for tf.data's signature; batching is a copy and runs on
        the pulling thread."""
        structure = self._structure
        if _st.is_known(structure) and not any(
            leaf.string for leaf in _st.leaves(_st.resolve(structure))
        ):
            return self._derive(self._loom_flat.batch(batch_size, drop_remainder))

        # Strings of different lengths batch as in tf.data: pad their bytes
        # axis only (decoding drops the padding); everything else must match.
        def padding(first):
            kinds = _st.leaves(_st.resolve(structure, "batch"))
            return [
                ([*c.shape[:-1], -1] if leaf.string else None, None)
                for leaf, c in zip(kinds, first)
            ]

        return self._derive(self._loom_flat.batch(batch_size, drop_remainder, padding))

    def padded_batch(
        self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None
    ):
        """batch, padding each component to padded_shapes (a structure like
        the element's; a shape's None or -1 = the longest in the batch;
        None = every dimension to the longest) with padding_values (a
        structure like the element's of scalars, or one scalar for all;
        None = 0, and b'' for strings)."""
        structure = self._structure

        def padding(first):
            resolved = _st.resolve(structure, "padded_batch")
            kinds = _st.leaves(resolved)
            shapes = _flat_like(resolved, padded_shapes, "padded_shapes", len(kinds))
            values = _flat_like(resolved, padding_values, "padding_values", len(kinds))
            out = []
            for i, (leaf, component) in enumerate(zip(kinds, first)):
                rank = component.ndim - (1 if leaf.string else 0)
                shape = shapes[i]
                if shape is None:
                    dims = [-1] * rank
                else:
                    dims = [-1 if d is None else int(d) for d in _shape_list(shape)]
                    if len(dims) != rank:
                        raise ValueError(
                            f"padded_batch: padded shape {tuple(shape)} for component {i} has "
                            f"{len(dims)} dimensions, the component has {rank}"
                        )
                value = values[i]
                if leaf.string:
                    if value is not None and _st._string_array(value) is not None:
                        if _st._string_array(value).item() != b"":
                            raise NotImplementedError(
                                "padded_batch: strings pad with b'' only; a non-empty string "
                                "padding value is not supported"
                            )
                    out.append((dims + [-1], None))
                    continue
                if value is not None:
                    value = np.asarray(value, dtype=component.dtype)
                    if value.ndim != 0:
                        raise ValueError(
                            f"padded_batch: padding value for component {i} must be a scalar, "
                            f"got shape {value.shape}"
                        )
                out.append((dims, value))
            return out

        return self._derive(self._loom_flat.padded_batch(batch_size, padding, drop_remainder))

    def unbatch(self, name=None):
        """Splits each element along its first axis (every component must
        have one, of the same length)."""
        return self._derive(self._loom_flat.unbatch())

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        return self._derive(
            self._loom_flat.shuffle(
                buffer_size, seed, reshuffle_each_iteration is not False
            )
        )

    def prefetch(self, buffer_size, name=None):
        return self._derive(self._loom_flat.prefetch(buffer_size))

    def take(self, count, name=None):
        return self._derive(self._loom_flat.take(count))

    def skip(self, count, name=None):
        return self._derive(self._loom_flat.skip(count))

    def repeat(self, count=None, name=None):
        return self._derive(self._loom_flat.repeat(count))

    def cache(self, filename="", name=None):
        """Keeps the first complete pass's elements in memory; later passes
        (and every dataset built on this one) read them. A pass stopped early
        caches nothing."""
        if filename:
            raise NotImplementedError(
                f"cache: a file cache (filename={filename!r}) is not supported; "
                "cache() keeps elements in memory"
            )
        return self._derive(self._loom_flat.cache())

    def interleave(
        self, map_func, cycle_length=1, block_length=1, num_parallel_calls=None,
        deterministic=None, name=None,
    ):
        """Maps each element to a dataset and takes block_length elements
        from each of cycle_length of them in turn, on the pulling thread
        (num_parallel_calls is refused)."""
        return self._interleave(map_func, cycle_length, block_length, num_parallel_calls,
                                "interleave")

    def flat_map(self, map_func, name=None):
        """Maps each element to a dataset and yields their elements in turn."""
        return self._interleave(map_func, 1, 1, None, "flat_map")

    def _interleave(self, map_func, cycle_length, block_length, num_parallel_calls, what):
        _require_callable(map_func, what)
        structure = self._structure
        out = _st.Pending(f"the {what} function's datasets")

        def flat(*components):
            result = _call(map_func, _st.pack(_st.resolve(structure), components,
                                              _window_dataset))
            if not isinstance(result, Dataset):
                return result  # the binding refuses it, naming the stage and element
            out.set(result._structure)
            return result._loom_flat

        flat_ds = self._loom_flat.interleave(
            flat, cycle_length=cycle_length, block_length=block_length,
            num_parallel_calls=num_parallel_calls,
        )
        return self._derive(flat_ds, structure=out)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of `size` elements starting every `shift` (default size),
        taking every `stride`-th. As in tf.data each window is the element's
        structure with a Dataset in place of each component, e.g.
        ds.window(3).flat_map(lambda w: w.batch(3)). A window's elements are
        gathered (stacked) before it is yielded, so they must share a shape."""
        return self._derive(
            self._loom_flat.window(size, size if shift is None else shift, stride,
                                   drop_remainder),
            structure=_windowed(self._structure),
        )

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then `dataset`'s (same structure and
        dtypes; TypeError otherwise)."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate: expected a loom.data.Dataset, got {type(dataset)}")
        a, b = self._structure, dataset._structure
        if _st.is_known(a) and _st.is_known(b) and not _st.same(_st.resolve(a), _st.resolve(b)):
            raise TypeError(
                f"concatenate: incompatible dataset elements: {_st.describe(a)} and "
                f"{_st.describe(b)}"
            )
        return self._derive(self._loom_flat.concatenate(dataset._loom_flat))

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 from `start` (as in
        tf.data: zip with range(start, int64 max))."""
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def apply(self, transformation_func):
        """transformation_func(self), which must return a Dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("apply: the function must return a loom.data.Dataset")
        return result

    def with_options(self, options, name=None):
        """These options, merged over the dataset's (fields set in `options`
        win): cpu_budget, max_intra_op_parallelism, deterministic,
        autotune.enabled (see Options)."""
        if not isinstance(options, Options):
            raise TypeError(f"with_options: expected a loom.data.Options, got {type(options)}")
        merged = self._options.merge(options)
        return Dataset._wrap(_apply_options(self._loom_flat, merged), self._structure, merged)

    def options(self):
        """The options in effect (a copy)."""
        return Options().merge(self._options)

    # ---- consuming ----

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds every element into a state: state = reduce_func(state,
        element), on the calling thread (the pipeline runs as when
        iterating). The result has initial_state's structure, as arrays;
        reduce_func must keep it and its dtypes (TypeError otherwise)."""
        state_structure, state = _st.flatten(initial_state, "reduce: initial_state")
        state = [np.asarray(s) for s in state]
        dtypes = [s.dtype for s in state]
        value = _st.pack(state_structure, state)
        for element in self:
            value = reduce_func(value, element)
            if isinstance(value, list):
                value = tuple(value)
            structure, flat = _st.flatten(value, "reduce: reduce_func's result")
            if not _st.same(structure, state_structure):
                raise TypeError(
                    f"reduce: reduce_func returned {_st.describe(structure)}, but the state is "
                    f"{_st.describe(state_structure)}"
                )
            flat = [np.asarray(f) for f in flat]
            for i, (f, dtype) in enumerate(zip(flat, dtypes)):
                if f.dtype != dtype:
                    raise TypeError(
                        f"reduce: component {i} of reduce_func's result is {f.dtype}, the "
                        f"state's is {dtype}; the state must keep its dtypes"
                    )
            value = _st.pack(state_structure, flat)
        return value

    def cardinality(self):
        """Elements a full pass yields, worked out without running (tf.data's
        rules): an int, or INFINITE_CARDINALITY (-1) / UNKNOWN_CARDINALITY
        (-2)."""
        return int(self._loom_flat.cardinality())

    def __len__(self):
        n = self.cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # as tf.data: not len(ds), which may be unknown

    @property
    def element_spec(self):
        """The element's structure with a TensorSpec(shape, dtype) per
        component (None for a dimension that varies). Known without running
        except after a Python function (map, flat_map, interleave, a
        generator without output_signature): that stage's first element is
        computed once and its shapes reported (tf.data traces the function
        instead, so it may report None where Loom reports the first
        element's size). None when that stage yields nothing."""
        flat_spec = self._loom_flat.element_spec()
        if flat_spec is None:
            return None
        return _st.spec_of(_st.resolve(self._structure, "element_spec"), flat_spec)

    def __iter__(self):
        return Iterator(iter(self._loom_flat), self._structure)

    def as_numpy_iterator(self):
        """The same as iter(ds): elements are NumPy arrays."""
        return iter(self)

    def __repr__(self):
        if _st.is_known(self._structure):
            return f"<loom.data.Dataset element={_st.describe(self._structure)}>"
        return "<loom.data.Dataset>"


class Iterator:
    """One pass over a Dataset: the C++ iterator's flat elements in the
    dataset's structure. Dropping it (or close()) stops its workers."""

    __slots__ = ("_it", "_structure", "_resolved", "__weakref__")

    def __init__(self, it, structure):
        self._it = it
        self._structure = structure
        self._resolved = None

    def __iter__(self):
        return self

    def __next__(self):
        flat = next(self._it)
        if self._resolved is None:
            self._resolved = _st.resolve(self._structure)
        if self._resolved is _st.TENSOR:
            return flat
        components = flat if type(flat) is tuple else (flat,)
        return _st.pack(self._resolved, components, _window_dataset)

    def next(self):
        return self.__next__()

    def close(self):
        """Stops the workers and frees the buffers now; the iterator then ends
        (next() raises StopIteration), also for a thread waiting in next()."""
        self._it.close()

    def stats(self):
        """The asynchronous stages and what they chose: parallelism,
        buffer_size, produced, and right now buffered (finished elements
        held) and in_progress (elements being computed)."""
        return self._it.stats()


# ---- helpers ----


def _windowed(structure):
    if isinstance(structure, _st.Pending):
        if structure.structure is None:
            return _LazyWindowed(structure)
        return _windowed(structure.structure)
    if isinstance(structure, dict):
        return {k: _windowed(v) for k, v in structure.items()}
    if isinstance(structure, tuple):
        return _st._like(structure, [_windowed(v) for v in structure])
    if structure.windowed:
        raise TypeError("window: the elements are already windows (datasets of datasets)")
    return _st.Leaf(string=structure.string, windowed=True)


class _LazyWindowed(_st.Pending):
    """window() of a structure known only once a function has run."""

    __slots__ = ("source",)

    def __init__(self, source):
        super().__init__(source.what)
        self.source = source

    @property
    def structure(self):
        inner = self.source.structure
        return None if inner is None else _windowed(inner)


def _shape_list(shape):
    if isinstance(shape, TensorSpec):
        shape = shape.shape
    if isinstance(shape, (int, np.integer)):
        return [shape]
    return list(shape)


def _flat_like(structure, value, what, count):
    """value laid out like structure, flat; None or a single value for a
    structure of several applies to all (tf.data does the same for None)."""
    if value is None:
        return [None] * count
    if isinstance(structure, (dict, tuple)):
        if not isinstance(value, (dict, tuple)):
            if what == "padding_values":
                return [value] * count
            raise ValueError(f"padded_batch: {what} must have the element's structure")
        out = []

        def walk(s, v, where):
            if isinstance(s, dict):
                if not isinstance(v, dict) or set(v) != set(s):
                    raise ValueError(
                        f"padded_batch: {what}{where} must be a dict with keys {sorted(s)}"
                    )
                for k in _st._sorted_keys(s):
                    walk(s[k], v[k], f"{where}[{k!r}]")
            elif isinstance(s, tuple):
                if not isinstance(v, tuple) or len(v) != len(s):
                    raise ValueError(
                        f"padded_batch: {what}{where} must be a tuple of {len(s)} items"
                    )
                for i, (si, vi) in enumerate(zip(s, v)):
                    walk(si, vi, f"{where}[{i}]")
            else:
                out.append(v)

        walk(structure, value, "")
        return out
    return [value]


def _signature_structure(signature):
    def walk(s):
        if isinstance(s, dict):
            return {k: walk(v) for k, v in s.items()}
        if isinstance(s, tuple):
            return _st._like(s, [walk(v) for v in s])
        if not isinstance(s, TensorSpec):
            raise TypeError(
                f"from_generator: output_signature must be a structure of TensorSpec, got {s!r}"
            )
        return _st.STRING if s.dtype.kind in "SUO" else _st.TENSOR

    return walk(signature)


def _signature_converter(signature):
    def convert(value, s=signature, where="a yielded value"):
        if isinstance(s, dict):
            if not isinstance(value, dict) or set(value) != set(s):
                raise TypeError(
                    f"from_generator: {where} does not match output_signature "
                    f"(expected a dict with keys {sorted(s)})"
                )
            return {k: convert(value[k], s[k], f"{where}[{k!r}]") for k in s}
        if isinstance(s, tuple):
            if not isinstance(value, (tuple, list)) or len(value) != len(s):
                raise TypeError(
                    f"from_generator: {where} does not match output_signature "
                    f"(expected {len(s)} items)"
                )
            return _st._like(s, [convert(v, si, f"{where}[{i}]") for i, (v, si) in
                                 enumerate(zip(value, s))])
        if s.dtype.kind in "SUO":
            return value
        try:
            array = np.asarray(value, dtype=s.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"from_generator: {where} cannot be converted to {s.dtype}: {e}"
            ) from None
        if s.shape is not None and (
            len(s.shape) != array.ndim
            or any(d is not None and d != a for d, a in zip(s.shape, array.shape))
        ):
            raise TypeError(
                f"from_generator: {where} has shape {array.shape}, output_signature says "
                f"{s.shape}"
            )
        return array

    return convert


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The files matching a glob pattern, sorted, as a list of str (Loom's
    difference: tf.data returns a dataset of strings; shuffle is refused)."""
    if shuffle:
        raise NotImplementedError("list_files: shuffle=True is not supported; files are sorted")
    return _list_files(file_pattern)


def TextLineDataset(filenames):  # noqa: N802 (tf.data's name)
    """One element per line of the files, as uint8 arrays (Dataset.read_lines)."""
    return Dataset.read_lines(filenames)


__all__ = [
    "AUTOTUNE",
    "AutotuneOptions",
    "Dataset",
    "DatasetSpec",
    "INFINITE_CARDINALITY",
    "Iterator",
    "Options",
    "TensorSpec",
    "TextLineDataset",
    "ThreadingOptions",
    "UNKNOWN_CARDINALITY",
    "list_files",
]
