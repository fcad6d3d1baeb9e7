"""Fuzz target: the Python feed conversion (NumPy arrays of any dtype,
stride, shape, byte order, alignment and subclass into Loom tensors).

Each input builds one array (fuzz bytes -> dtype, shape, the elements' bits,
then up to four view changes: transpose, reversed or stepped slices,
broadcasting (zero strides), unaligned and read-only buffers, Fortran order,
matrix and masked-array subclasses, Python lists and scalars) and feeds it
through every path that converts arrays: InferenceSession.run, OrtValue
round trips, an eager op and loom.data's from_tensor_slices. Each must
return exactly NumPy's own C-ordered copy of the array (bit for bit; the
eager op: NumPy's result) or raise a loom.errors.Error that names the
input; anything else (another exception, a wrong value, a crash found by
the sanitizers or Python's fault handler) is a failure.

Run under atheris (coverage-guided over Loom's Python package and this
driver; the extension itself is not instrumented):
    scripts/fuzz.sh python_feed SECONDS
The saved inputs (fuzz/corpus/python_feed/) are replayed by
python/tests/test_fuzz_replay.py in the normal test suite.
"""

import sys

import numpy as np

_MAX_ELEMENTS = 4096

# Dtypes Loom takes, then ones it must refuse clearly.
_DTYPES = [
    "float32", "float64", "float16", "int8", "uint8", "int16", "uint16",
    "int32", "uint32", "int64", "uint64", "bool",
    ">f4", ">f8", ">i4", ">u2", ">i8", "<f4",
    "complex64", "longdouble", "U3", "S2", "datetime64[s]", "timedelta64[ms]",
    "V4", [("a", "<f4"), ("b", "<i4")], "object",
]

_ONNX_TYPES = {  # numpy dtype name -> onnx.TensorProto element type
    "float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
    "int64": 7, "bool": 9, "float16": 10, "float64": 11, "uint32": 12,
    "uint64": 13,
}


class _Bytes:
    """Reads the fuzz input; past its end every read is zero."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def next(self):
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def take(self, count):
        out = self.data[self.pos:self.pos + count]
        self.pos += len(out)
        return out + bytes(count - len(out))


def make_array(b):
    """The array the input describes (anything np.asarray takes)."""
    dtype = np.dtype(_DTYPES[b.next() % len(_DTYPES)])
    shape = tuple(b.next() % 6 for _ in range(b.next() % 6))
    count = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "O":
        array = np.array([b.next() - 128 for _ in range(count)], dtype=object).reshape(shape)
    else:
        raw = b.take(count * dtype.itemsize)
        if b.next() % 4 == 0:  # an unaligned buffer
            buffer = bytearray(1) + bytearray(raw)
            array = np.frombuffer(buffer, dtype=dtype, count=count, offset=1).reshape(shape)
        else:
            array = np.frombuffer(bytearray(raw), dtype=dtype, count=count).reshape(shape)
        if dtype.kind == "b":
            array = array.view(np.uint8).__and__(1).astype(bool).reshape(shape)
        if dtype.kind == "U":  # code points NumPy can turn into str (tolist)
            codes = np.frombuffer(array.tobytes(), dtype=np.uint32) & 0x7F
            array = codes.view(dtype).reshape(shape)
    for _ in range(b.next() % 5):
        if type(array) is not np.ndarray:
            break  # lists, scalars, matrix and masked arrays: the last change
        array = _change_view(b, array)
    return array


def _change_view(b, array):
    kind = b.next() % 11
    ndim = array.ndim
    if kind == 0 and ndim > 1:
        return array.transpose(np.random.default_rng(b.next()).permutation(ndim))
    if kind == 1 and ndim > 0:
        axis = b.next() % ndim
        step = [-1, 2, -2, 3][b.next() % 4]
        index = [slice(None)] * ndim
        index[axis] = slice(None, None, step)
        return array[tuple(index)]
    if kind == 2:
        extra = b.next() % 4
        return np.broadcast_to(array, (extra,) + array.shape)
    if kind == 3:
        return np.asfortranarray(array)
    if kind == 4:
        array = np.array(array, copy=True)
        array.flags.writeable = False
        return array
    if kind == 5 and ndim == 2 and array.dtype.kind in "biuf":
        return np.asmatrix(array)
    if kind == 6 and array.dtype.kind in "biuf":
        mask = np.zeros(array.shape, dtype=bool)
        return np.ma.array(array, mask=mask)
    if kind == 7:
        return np.expand_dims(array, b.next() % (ndim + 1))
    if kind == 8 and array.size <= 16:
        return array.tolist()  # a (nested) Python list, or a scalar for 0-d
    if kind == 9 and ndim > 0 and array.shape[-1] > 0:
        width = 1 + b.next() % array.shape[-1]
        return np.lib.stride_tricks.sliding_window_view(array, width, axis=-1)
    if kind == 10 and ndim > 0:
        return array[..., b.next() % 2:]
    return array


_sessions = {}


def _session(loom, name):
    if name not in _sessions:
        from onnx import TensorProto, helper  # noqa: F401 (the pinned onnx package)

        elem = _ONNX_TYPES[name]
        x = helper.make_tensor_value_info("x", elem, None)
        y = helper.make_tensor_value_info("y", elem, None)
        graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        _sessions[name] = loom.InferenceSession(model.SerializeToString())
    return _sessions[name]


def _same(got, want):
    """Bit for bit: dtype, shape and bytes (an OrtValue may hand back the
    very array it wraps, in its own byte order)."""
    if isinstance(got, np.ndarray) and not got.dtype.isnative and got.dtype.kind in "biuf":
        got = got.astype(got.dtype.newbyteorder("="))
    return (
        isinstance(got, np.ndarray)
        and got.dtype == want.dtype
        and got.shape == want.shape
        and got.tobytes() == want.tobytes()
    )


def _expected(array):
    """NumPy's own C-ordered copy of the array, in native byte order."""
    want = np.array(np.asarray(array), order="C", copy=True)  # ascontiguousarray makes 0-d 1-d
    if want.dtype.kind in "biuf" and not want.dtype.isnative:
        want = want.astype(want.dtype.newbyteorder("="))
    return want


def _refused(loom, error, what):
    """A refusal must be a loom error that names what was fed."""
    if not isinstance(error, loom.errors.Error):
        raise AssertionError(f"{what}: {type(error).__name__} instead of a loom error: {error}")
    if "'x'" not in str(error) and what == "run":
        raise AssertionError(f"{what}: the error does not name the input: {error}")


def check(loom, array, choice):
    want = _expected(array)
    supported = want.dtype.name in _ONNX_TYPES and want.dtype.kind in "biuf"
    # A session of the array's own dtype, or (one time in four) float32's.
    name = want.dtype.name if supported and choice % 4 else "float32"
    if isinstance(array, np.ndarray):
        want_run = want if name == want.dtype.name else None  # None: must be refused
    else:
        # Lists and scalars become the input's dtype, as ONNX Runtime converts them.
        try:
            with np.errstate(all="ignore"):
                want_run = np.array(np.asarray(array, dtype=name), order="C")
        except (ValueError, TypeError, OverflowError):
            want_run = None
    try:
        with np.errstate(all="ignore"):
            got = _session(loom, name).run(None, {"x": array})[0]
    except Exception as error:  # noqa: BLE001 (the oracle sorts them)
        _refused(loom, error, "run")
        if want_run is not None:
            raise AssertionError(f"run refused {array!r} for a {name} input: {error}") from error
    else:
        if want_run is None:
            raise AssertionError(f"run took {want.dtype} for a {name} input")
        if not _same(got, want_run):
            raise AssertionError(f"run returned {got!r} for {want_run!r}")

    if not isinstance(array, np.ndarray):
        return
    try:
        value = loom.OrtValue.ortvalue_from_numpy(array)
    except Exception as error:  # noqa: BLE001
        _refused(loom, error, "OrtValue")
        if supported:
            raise AssertionError(f"OrtValue refused a {want.dtype} array: {error}") from error
    else:
        if not _same(value.numpy(), want):
            raise AssertionError(f"OrtValue returned {value.numpy()!r} for {want!r}")

    if want.dtype == np.float32:
        got = loom.ops.relu(array)
        reference = np.maximum(want, np.float32(0))
        if not (got.shape == want.shape and np.array_equal(got, reference, equal_nan=True)):
            raise AssertionError(f"ops.relu returned {got!r} for {want!r}")

    if supported and want.ndim > 0 and choice % 8 == 1:
        rows = list(loom.data.Dataset.from_tensor_slices(array).as_numpy_iterator())
        if len(rows) != want.shape[0] or not all(_same(r, w) for r, w in zip(rows, want)):
            raise AssertionError(f"from_tensor_slices gave {rows!r} for {want!r}")


def test_one_input(data):
    import loom

    b = _Bytes(data)
    choice = b.next()
    array = make_array(b)
    if np.asarray(array).size > _MAX_ELEMENTS:
        return
    check(loom, array, choice)


def main():
    import atheris

    with atheris.instrument_imports():
        import loom  # noqa: F401 (instrumented: Loom's Python package)
    atheris.instrument_func(make_array)
    atheris.instrument_func(_change_view)
    atheris.instrument_func(check)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
