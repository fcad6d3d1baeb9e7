"""The 16-bit, unsigned wide and bfloat16 element types through
InferenceSession.run and loom.ops: small one-node models made with
onnx.helper, each compared with ONNX Runtime where ORT has a kernel for the
op and type, and always with NumPy (ORT's CPU provider lacks many integer
kernels, e.g. Add on uint16). bfloat16 has no NumPy dtype: it runs inside a
model between Casts, and is refused at the NumPy boundary with a clear
error."""

import numpy as np
import pytest

import loom

onnx = pytest.importorskip("onnx")
helper = onnx.helper
TensorProto = onnx.TensorProto

try:
    import onnxruntime as ort
except ImportError:  # the NumPy comparison still runs
    ort = None

# NumPy dtype -> ONNX element type.
NEW_INTEGERS = {
    np.uint16: TensorProto.UINT16,
    np.uint32: TensorProto.UINT32,
    np.uint64: TensorProto.UINT64,
    np.int16: TensorProto.INT16,
}
UNSIGNED = (np.uint16, np.uint32, np.uint64)


def make_model(nodes, inputs, outputs, initializers=(), name="dtypes"):
    """An ONNX model from helper parts, opset 17, IR version 8 (conftest's
    make_model, without its onnx.checker pass: Loom runs the checker itself)."""
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def elem_type(array):
    return helper.np_dtype_to_tensor_dtype(np.asarray(array).dtype)


def single_op_model(op, feeds, expected, attrs=None):
    """A model of one node: inputs in0, in1, ... typed and shaped as `feeds`,
    outputs out0, ... typed and shaped as `expected` (NumPy arrays)."""
    inputs = [helper.make_tensor_value_info(f"in{i}", elem_type(x), np.shape(x))
              for i, x in enumerate(feeds)]
    outputs = [helper.make_tensor_value_info(f"out{i}", elem_type(e), np.shape(e))
               for i, e in enumerate(expected)]
    node = helper.make_node(op, [v.name for v in inputs], [v.name for v in outputs],
                            **(attrs or {}))
    return make_model([node], inputs, outputs, name=op.lower())


def run_loom(model, feeds):
    session = loom.InferenceSession(model.SerializeToString())
    return session.run(None, {f"in{i}": x for i, x in enumerate(feeds)})


def run_ort(model, feeds):
    """ORT's outputs, or None when ORT has no kernel for this op and type."""
    if ort is None:
        return None
    try:
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
    except Exception as error:  # NOT_IMPLEMENTED: no kernel for the type
        if "NOT_IMPLEMENTED" in str(error) or "Could not find an implementation" in str(error):
            return None
        raise
    return session.run(None, {f"in{i}": x for i, x in enumerate(feeds)})


def check(op, feeds, expected, attrs=None):
    """Runs `op` on `feeds` in a one-node model: Loom's outputs equal
    `expected` (NumPy) exactly, in dtype and values, and equal ORT's where
    ORT has the kernel. Returns whether ORT ran."""
    expected = [np.asarray(e) for e in expected]
    model = single_op_model(op, feeds, expected, attrs)
    got = run_loom(model, feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        np.testing.assert_array_equal(g, e)
    reference = run_ort(model, feeds)
    if reference is not None:
        for g, r in zip(got, reference):
            assert g.dtype == r.dtype
            np.testing.assert_array_equal(g, r)
    return reference is not None


def values(dtype, rng, shape=(3, 7), nonzero=False):
    """Random values over the type's whole range, with its edges mixed in."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    flat = x.reshape(-1)
    flat[:3] = [info.min, info.max, 0][: flat.size]
    if nonzero:
        flat[flat == 0] = 1
    return x


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# op -> NumPy reference on arrays of one integer dtype (wrapping like C).
BINARY = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Max": np.maximum,
    "Min": np.minimum,
}
COMPARE = {
    "Equal": np.equal,
    "Less": np.less,
    "Greater": np.greater,
    "LessOrEqual": np.less_equal,
    "GreaterOrEqual": np.greater_equal,
}


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_arithmetic(op, dtype, rng):
    a, b = values(dtype, rng), values(dtype, rng, shape=(7,))
    with np.errstate(over="ignore"):
        expected = BINARY[op](a, b).astype(dtype)  # wraps modulo 2^bits
    check(op, [a, b], [expected])


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
def test_div_and_mod(dtype, rng):
    a, b = values(dtype, rng), values(dtype, rng, nonzero=True)
    if dtype is np.int16:
        b[b == -1] = 3  # NumPy's int16 min // -1 overflows; Loom wraps (checked in C++)
        # ONNX Div truncates toward zero (C); NumPy's // floors.
        expected_div = np.trunc(a.astype(np.float64) / b).astype(dtype)
    else:
        expected_div = a // b
    check("Div", [a, b], [expected_div])
    # Mod with fmod=0 takes the sign of the divisor, as NumPy's %.
    check("Mod", [a, b], [np.mod(a, b)])


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
@pytest.mark.parametrize("op", list(COMPARE))
def test_comparisons(op, dtype, rng):
    a = values(dtype, rng)
    b = a.copy()
    b[1::2] = values(dtype, rng)[1::2]  # equal and unequal pairs
    check(op, [a, b], [COMPARE[op](a, b)])


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
def test_unary_where_clip(dtype, rng):
    x = values(dtype, rng)
    check("Abs", [x], [np.abs(x)])  # int16 min stays int16 min, as in NumPy
    check("Sign", [x], [np.sign(x)])
    if dtype is np.int16:
        check("Neg", [x], [np.negative(x)])
        check("Relu", [x], [np.maximum(x, 0).astype(dtype)])
    cond = rng.integers(0, 2, size=x.shape).astype(bool)
    y = values(dtype, rng)
    check("Where", [cond, x, y], [np.where(cond, x, y)])
    lo, hi = np.sort(values(dtype, rng, shape=(5,))[3:])
    check("Clip", [x, np.array(lo, dtype), np.array(hi, dtype)], [np.clip(x, lo, hi)])


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
def test_data_movement(dtype, rng):
    x = values(dtype, rng, shape=(2, 3, 4))
    check("Transpose", [x], [np.transpose(x, (2, 0, 1))], {"perm": [2, 0, 1]})
    check("Identity", [x], [x])
    check("Concat", [x, x], [np.concatenate([x, x], 1)], {"axis": 1})
    check("Flatten", [x], [x.reshape(6, 4)], {"axis": 2})
    indices = np.array([2, 0, 2], np.int64)
    check("Gather", [x, indices], [np.take(x, indices, axis=2)], {"axis": 2})
    pads = np.array([0, 1, 0, 0, 0, 2], np.int64)
    check("Pad", [x, pads], [np.pad(x, [(0, 0), (1, 0), (0, 2)])])
    starts, ends = np.array([1], np.int64), np.array([3], np.int64)
    check("Slice", [x, starts, ends, np.array([2], np.int64)], [x[:, :, 1:3]])


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_reductions(dtype, rng):
    x = values(dtype, rng, shape=(4, 5))
    check("ReduceMax", [x], [np.max(x, axis=1)], {"axes": [1], "keepdims": 0})
    check("ReduceMin", [x], [np.min(x, axis=0, keepdims=True)], {"axes": [0]})
    # Small values, so that NumPy's sums do not wrap either.
    small = (x % 1000).astype(dtype)
    check("ReduceSum", [small], [np.sum(small, keepdims=True).astype(dtype)])


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
def test_argmax_argmin(dtype, rng):
    x = values(dtype, rng, shape=(4, 9))
    check("ArgMax", [x], [np.argmax(x, axis=1).reshape(4, 1)], {"axis": 1})
    check("ArgMin", [x], [np.argmin(x, axis=0)], {"axis": 0, "keepdims": 0})


@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
def test_cast_to_and_from_float_and_int64(dtype, rng):
    x = values(dtype, rng)
    check("Cast", [x], [x.astype(np.float64)], {"to": TensorProto.DOUBLE})
    # uint64 past int64's max wraps, as NumPy's astype does.
    check("Cast", [x], [x.astype(np.int64)], {"to": TensorProto.INT64})
    f = rng.uniform(0, 30000, size=(3, 7)).astype(np.float32)  # in range of every type
    check("Cast", [f], [np.trunc(f).astype(dtype)], {"to": NEW_INTEGERS[dtype]})


def test_initializers_of_each_type_from_typed_fields_and_raw_data():
    """Constant inputs written both ways by onnx.helper, added to zeros."""
    for dtype, t in NEW_INTEGERS.items():
        info = np.iinfo(dtype)
        data = np.array([info.min, info.max, 7], dtype=dtype)
        for raw in (False, True):
            init = helper.make_tensor("w", t, [3], data.tobytes() if raw else data.tolist(),
                                      raw=raw)
            x = helper.make_tensor_value_info("in0", t, [3])
            y = helper.make_tensor_value_info("out0", t, [3])
            model = make_model([helper.make_node("Add", ["in0", "w"], ["out0"])], [x], [y],
                               [init])
            (out,) = run_loom(model, [np.zeros(3, dtype)])
            assert out.dtype == dtype
            np.testing.assert_array_equal(out, data)


def test_metadata_names_the_new_types():
    x = np.zeros(2, np.uint64)
    model = single_op_model("Identity", [x], [x])
    session = loom.InferenceSession(model.SerializeToString())
    assert session.get_inputs()[0].type == "tensor(uint64)"
    if ort is not None:
        reference = ort.InferenceSession(model.SerializeToString(),
                                         providers=["CPUExecutionProvider"])
        assert session.get_inputs()[0].type == reference.get_inputs()[0].type


# ---- bfloat16 ----

def bfloat16_round(x):
    """float32 -> the nearest bfloat16 (ties to even), returned as float32:
    written on the bits, independent of Loom."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


def bf16_model(nodes, shapes, out_shape, out_type=TensorProto.FLOAT):
    """Inputs in0.. (float32, `shapes`) cast to bfloat16 as a0..; `nodes`
    compute `r` (bfloat16), cast back to float32 as out0 (or, for another
    out_type, `nodes` write out0 themselves)."""
    inputs = [helper.make_tensor_value_info(f"in{i}", TensorProto.FLOAT, shape)
              for i, shape in enumerate(shapes)]
    casts = [helper.make_node("Cast", [f"in{i}"], [f"a{i}"], to=TensorProto.BFLOAT16)
             for i in range(len(shapes))]
    back = [helper.make_node("Cast", ["r"], ["out0"], to=TensorProto.FLOAT)]
    if out_type != TensorProto.FLOAT:
        back = []
    out = helper.make_tensor_value_info("out0", out_type, out_shape)
    return make_model(casts + nodes + back, inputs, [out], name="bf16")


def test_bfloat16_arithmetic_inside_a_model(rng):
    a = rng.uniform(-100, 100, size=(5, 8)).astype(np.float32)
    b = rng.uniform(-100, 100, size=(8,)).astype(np.float32)
    a[0, :3] = [256.0, 1.0, 3.0e38]  # a tie, an exact value, an overflow below
    b[:3] = [1.0, 1.0, 3.0e38]
    ab, bb = bfloat16_round(a), bfloat16_round(b)
    for op, fn in [("Add", np.add), ("Mul", np.multiply), ("Sub", np.subtract),
                   ("Max", np.maximum)]:
        model = bf16_model([helper.make_node(op, ["a0", "a1"], ["r"])], [a.shape, b.shape],
                           a.shape)
        (out,) = run_loom(model, [a, b])
        with np.errstate(over="ignore"):
            expected = bfloat16_round(fn(ab, bb))  # exact in float32, then one rounding
        np.testing.assert_array_equal(out, expected)
        reference = run_ort(model, [a, b])
        if reference is not None:
            np.testing.assert_array_equal(out, reference[0])
    # 256 + 1 = 257 ties to 256; 3e38 + 3e38 overflows to inf.
    assert out.dtype == np.float32


def test_bfloat16_cast_matches_ort(rng):
    x = np.concatenate([rng.uniform(-1e4, 1e4, 200), rng.standard_normal(200),
                        [0.1, 1.00390625, 1.01171875, np.inf, -np.inf, np.nan, 3.4e38,
                         1e-40]]).astype(np.float32)
    model = bf16_model([helper.make_node("Identity", ["a0"], ["r"])], [x.shape], x.shape)
    (out,) = run_loom(model, [x])
    np.testing.assert_array_equal(out, bfloat16_round(x))
    reference = run_ort(model, [x])
    if reference is not None:
        np.testing.assert_array_equal(out, reference[0])


def test_bfloat16_reduce_and_argmax(rng):
    x = rng.uniform(-10, 10, size=(4, 6)).astype(np.float32)
    xb = bfloat16_round(x)
    model = bf16_model([helper.make_node("ReduceMax", ["a0"], ["r"], keepdims=0)], [x.shape], [])
    (out,) = run_loom(model, [x])
    np.testing.assert_array_equal(out, np.max(xb))
    # ArgMax of bfloat16 values: an int64 output.
    model = bf16_model([helper.make_node("ArgMax", ["a0"], ["out0"], axis=1, keepdims=0)],
                       [x.shape], [4], TensorProto.INT64)
    (idx,) = run_loom(model, [x])
    np.testing.assert_array_equal(idx, np.argmax(xb, axis=1))


def test_bfloat16_output_is_refused_naming_the_output_and_dtype():
    inputs = [helper.make_tensor_value_info("in0", TensorProto.FLOAT, [3])]
    nodes = [helper.make_node("Cast", ["in0"], ["y"], to=TensorProto.BFLOAT16)]
    outputs = [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [3])]
    session = loom.InferenceSession(make_model(nodes, inputs, outputs).SerializeToString())
    with pytest.raises(loom.errors.InvalidArgumentError, match=r"output 'y' has dtype bfloat16"):
        session.run(None, {"in0": np.ones(3, np.float32)})


def test_bfloat16_input_arrays_are_refused_clearly():
    ml_dtypes = pytest.importorskip("ml_dtypes")  # only to make such an array
    x = np.ones(3, dtype=ml_dtypes.bfloat16)
    inputs = [helper.make_tensor_value_info("in0", TensorProto.BFLOAT16, [3])]
    outputs = [helper.make_tensor_value_info("out0", TensorProto.BFLOAT16, [3])]
    model = make_model([helper.make_node("Identity", ["in0"], ["out0"])], inputs, outputs)
    session = loom.InferenceSession(model.SerializeToString())
    with pytest.raises(loom.errors.InvalidArgumentError, match="bfloat16"):
        session.run(None, {"in0": x})
    with pytest.raises(loom.errors.InvalidArgumentError, match="bfloat16"):
        loom.ops.add(x, x)


def test_eager_cast_to_bfloat16_is_refused():
    with pytest.raises(loom.errors.InvalidArgumentError, match="bfloat16"):
        loom.ops.run("Cast", [np.ones(2, np.float32)], {"to": TensorProto.BFLOAT16})


# ---- eager ops ----

@pytest.mark.parametrize("dtype", list(NEW_INTEGERS))
def test_eager_ops_take_and_return_the_new_dtypes(dtype, rng):
    a, b = values(dtype, rng), values(dtype, rng, shape=(7,))
    with np.errstate(over="ignore"):
        out = loom.ops.add(a, b)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, (a + b).astype(dtype))
        np.testing.assert_array_equal(loom.ops.mul(a, b), (a * b).astype(dtype))
    np.testing.assert_array_equal(loom.ops.cast(a, np.float64), a.astype(np.float64))
    small = np.array([1, 2, 3], np.int64)
    converted = loom.ops.cast(small, dtype)
    assert converted.dtype == dtype
    np.testing.assert_array_equal(converted, small.astype(dtype))
    (t,) = loom.ops.run("Transpose", [a])
    np.testing.assert_array_equal(t, a.T)
