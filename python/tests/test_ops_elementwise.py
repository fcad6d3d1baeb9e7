"""Elementwise loom.ops against NumPy: activations and math functions, and the
binary ops with NumPy broadcasting, in every dtype the op has a kernel for."""

import math

import numpy as np
import pytest

import loom
from conftest import assert_close

FLOATS = [np.float32, np.float64]
NUMERIC = [np.float32, np.float64, np.int32, np.int64]

_erf = np.vectorize(math.erf)


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# name: (reference on float64, input domain)
UNARY_FLOAT = {
    "sigmoid": (_sigmoid, (-12.0, 12.0)),
    "tanh": (np.tanh, (-6.0, 6.0)),
    "exp": (np.exp, (-20.0, 20.0)),
    "log": (np.log, (1e-3, 1e3)),
    "sqrt": (np.sqrt, (0.0, 100.0)),
    "gelu": (_gelu, (-6.0, 6.0)),
    "silu": (lambda x: x * _sigmoid(x), (-12.0, 12.0)),
}


def float_input(rng, low, high, dtype, size=1001):
    # An odd size leaves a tail that vector loops handle separately.
    return rng.uniform(low, high, size=size).astype(dtype)


@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_float_op_matches_numpy(name, dtype, rng):
    reference, (low, high) = UNARY_FLOAT[name]
    x = float_input(rng, low, high, dtype)
    expected = reference(x.astype(np.float64)).astype(dtype)
    # Kernels use polynomial approximations: a few float32 ulps, and tails
    # (gelu(-6) = -6e-9) may flush to zero.
    np.testing.assert_allclose(getattr(loom.ops, name)(x), expected, rtol=2e-6, atol=1e-6)
    assert getattr(loom.ops, name)(x).dtype == dtype


def test_log_and_sqrt_outside_their_domain_follow_ieee():
    out = loom.ops.log(np.array([0.0, -1.0, np.inf], np.float32))
    assert out[0] == -np.inf and np.isnan(out[1]) and out[2] == np.inf
    assert np.isnan(loom.ops.sqrt(np.array([-1.0], np.float32))[0])


def test_exp_saturates_like_numpy():
    x = np.array([-200.0, 200.0], np.float32)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(loom.ops.exp(x), np.exp(x))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_relu(dtype, rng):
    x = (rng.standard_normal(257) * 10).astype(dtype)
    np.testing.assert_array_equal(loom.ops.relu(x), np.maximum(x, 0).astype(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("alpha", [0.01, 0.2])
def test_leaky_relu(dtype, alpha, rng):
    x = rng.standard_normal(257).astype(dtype)
    expected = np.where(x >= 0, x, (alpha * x.astype(np.float64)).astype(dtype))
    assert_close(loom.ops.leaky_relu(x, alpha), expected, rtol=1e-6, atol=1e-7)


def test_leaky_relu_default_alpha_is_onnx_0_01():
    np.testing.assert_allclose(loom.ops.leaky_relu(np.array([-2.0, 3.0], np.float32)),
                               [-0.02, 3.0], rtol=1e-6)


def test_clip_float32(rng):
    x = rng.standard_normal(257).astype(np.float32) * 3
    np.testing.assert_array_equal(loom.ops.clip(x, -1.0, 0.5), np.clip(x, -1.0, 0.5))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64])
def test_clip_other_dtypes(dtype, rng):
    # The bounds are converted to x's dtype (ONNX Clip wants them equal).
    x = (rng.standard_normal(33) * 3).astype(dtype)
    out = loom.ops.clip(x, -1, 1)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.clip(x, -1, 1).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64])
def test_clip_kernel_supports_other_dtypes_through_run(dtype, rng):
    x = (rng.standard_normal(33) * 3).astype(dtype)
    lo, hi = np.array(-1, dtype), np.array(1, dtype)
    (out,) = loom.ops.run("Clip", [x, lo, hi])
    np.testing.assert_array_equal(out, np.clip(x, -1, 1).astype(dtype))


def trunc_div(a, b):
    """ONNX Div on integers rounds toward zero, like C; NumPy's // floors."""
    return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(a.dtype)


BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
}

BROADCAST_SHAPES = {
    "same": ((4, 5), (4, 5)),
    "row": ((4, 5), (5,)),
    "column": ((4, 1), (1, 5)),
    "scalar": ((3, 4, 5), ()),
    "scalar_first": ((), (3, 4, 5)),
    "middle": ((2, 1, 5), (2, 3, 1)),
    "rank_3_vs_1": ((2, 3, 7), (7,)),
    "long": ((1031,), (1031,)),
}


def operands(rng, shapes, dtype, nonzero_b=False):
    a_shape, b_shape = shapes
    if np.issubdtype(dtype, np.integer):
        a = rng.integers(-50, 50, size=a_shape).astype(dtype)
        b = rng.integers(-50, 50, size=b_shape).astype(dtype)
    else:
        a = rng.standard_normal(a_shape).astype(dtype)
        b = rng.standard_normal(b_shape).astype(dtype)
    if nonzero_b:
        b = np.where(b == 0, dtype(7), b).astype(dtype)
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", sorted(BROADCAST_SHAPES))
@pytest.mark.parametrize("dtype", NUMERIC)
def test_binary_op_broadcasts_like_numpy(name, shapes, dtype, rng):
    a, b = operands(rng, BROADCAST_SHAPES[shapes], dtype)
    out = getattr(loom.ops, name)(a, b)
    # add/sub/mul/max/min of two floats are exact in IEEE arithmetic.
    np.testing.assert_array_equal(out, BINARY[name](a, b).astype(dtype))
    assert out.dtype == dtype


@pytest.mark.parametrize("shapes", sorted(BROADCAST_SHAPES))
@pytest.mark.parametrize("dtype", NUMERIC)
def test_div(shapes, dtype, rng):
    a, b = operands(rng, BROADCAST_SHAPES[shapes], dtype, nonzero_b=True)
    out = loom.ops.div(a, b)
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(out, trunc_div(*np.broadcast_arrays(a, b)))
    else:
        assert_close(out, (a / b).astype(dtype), rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_pow_float(dtype, rng):
    a = rng.uniform(0.1, 4.0, size=(3, 17)).astype(dtype)
    b = rng.uniform(-3.0, 3.0, size=(17,)).astype(dtype)
    expected = np.power(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(loom.ops.pow(a, b), expected, rtol=2e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_pow_int(dtype, rng):
    a = rng.integers(-6, 7, size=(4, 5)).astype(dtype)
    b = rng.integers(0, 6, size=(5,)).astype(dtype)
    np.testing.assert_array_equal(loom.ops.pow(a, b), np.power(a, b))


def test_binary_shapes_that_do_not_broadcast_name_op_and_shapes():
    with pytest.raises(ValueError, match=r"Add: inputs 'A' \[2, 3\] and 'B' \[4, 5\]"):
        loom.ops.add(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))


def test_binary_mixed_dtypes_are_refused_naming_both():
    with pytest.raises(ValueError, match=r"Mul: .*float32.*float64"):
        loom.ops.mul(np.zeros(3, np.float32), np.zeros(3, np.float64))


@pytest.mark.parametrize("name", ["exp", "sigmoid", "gelu"])
def test_float_only_op_on_ints_names_supported_dtypes(name):
    with pytest.raises(ValueError, match="no kernel for dtype int32.*float32"):
        getattr(loom.ops, name)(np.ones(3, np.int32))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_python_scalars_take_the_arrays_dtype_like_numpy(dtype):
    # NEP 50: a Python int/float next to an array does not widen it.
    x = np.arange(-3, 4).astype(dtype)
    for op, reference in [("add", np.add), ("mul", np.multiply), ("maximum", np.maximum)]:
        for a, b in [(x, 2), (2, x)]:
            out = getattr(loom.ops, op)(a, b)
            assert out.dtype == dtype, (op, a, b)
            np.testing.assert_array_equal(out, reference(a, b))
    if np.issubdtype(dtype, np.floating):
        np.testing.assert_array_equal(loom.ops.sub(x, 0.5), x - dtype(0.5))


def test_a_float_scalar_does_not_truncate_into_an_int_array():
    # NumPy would promote; Loom has no mixed-dtype kernels, so it refuses
    # rather than computing x + 0 silently.
    with pytest.raises(ValueError, match="int32.*float64|float64.*int32"):
        loom.ops.add(np.ones(3, np.int32), 0.5)


def test_float16_round_trip(rng):
    x = rng.standard_normal(65).astype(np.float16)
    out = loom.ops.relu(x)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.maximum(x, 0))
