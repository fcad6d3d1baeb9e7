"""Reductions, argmax, softmax / log_softmax and layer_norm against NumPy."""

import numpy as np
import pytest

import loom
from conftest import assert_close

NUMERIC = [np.float32, np.float64, np.int32, np.int64]

AXES = [None, [0], [1], [-1], [0, 2], [-1, 0], [0, 1, 2]]


def int_mean(x, axis, keepdims):
    """ONNX ReduceMean on integers divides in integers, truncating toward zero."""
    total = np.sum(x, axis=axis, keepdims=keepdims)
    count = x.size // total.size if total.size else 1
    return (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)


REDUCERS = {
    "reduce_sum": np.sum,
    "reduce_mean": np.mean,
    "reduce_max": np.max,
    "reduce_min": np.min,
}


def sample(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("name", sorted(REDUCERS))
@pytest.mark.parametrize("axes", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_reduce_matches_numpy(name, axes, keepdims, dtype, rng):
    x = sample(rng, (3, 5, 7), dtype)
    axis = None if axes is None else tuple(axes)
    out = getattr(loom.ops, name)(x, axes, keepdims)
    if name == "reduce_mean" and np.issubdtype(dtype, np.integer):
        expected = int_mean(x, axis, keepdims)
    elif name in ("reduce_max", "reduce_min"):
        expected = REDUCERS[name](x, axis=axis, keepdims=keepdims)
    else:
        expected = REDUCERS[name](x.astype(np.float64), axis=axis, keepdims=keepdims)
    expected = np.asarray(expected).astype(dtype)
    assert out.shape == expected.shape
    assert out.dtype == dtype
    if np.issubdtype(dtype, np.integer) or name in ("reduce_max", "reduce_min"):
        np.testing.assert_array_equal(out, expected)
    else:
        assert_close(out, expected, rtol=1e-5, atol=1e-6)


def test_reduce_default_is_all_axes_keepdims():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = loom.ops.reduce_sum(x)
    assert out.shape == (1, 1, 1)
    assert out.item() == 276.0


def test_reduce_sum_of_many_floats_is_accurate(rng):
    # 1e6 values: naive float32 accumulation drifts by ~1e-4 relative.
    x = rng.uniform(0.0, 1.0, size=1_000_000).astype(np.float32)
    out = loom.ops.reduce_sum(x, [0], False)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(), rtol=1e-5)


def test_reduce_axis_out_of_range_is_refused():
    with pytest.raises(ValueError, match="ReduceSum"):
        loom.ops.reduce_sum(np.zeros((2, 3), np.float32), [2])


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_argmax_matches_numpy(axis, keepdims, dtype, rng):
    # Few distinct values so ties occur: ONNX and NumPy both take the first.
    x = rng.integers(0, 4, size=(3, 5, 7)).astype(dtype)
    out = loom.ops.argmax(x, axis, keepdims)
    assert out.dtype == np.int64
    expected = np.argmax(x, axis=axis)
    if keepdims:
        expected = np.expand_dims(expected, axis)
    np.testing.assert_array_equal(out, expected)


def softmax_reference(x, axis):
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_matches_numpy(axis, dtype, rng):
    x = (rng.standard_normal((4, 9, 33)) * 5).astype(dtype)
    assert_close(loom.ops.softmax(x, axis), softmax_reference(x, axis).astype(dtype),
                 rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_softmax_matches_numpy(axis, dtype, rng):
    x = (rng.standard_normal((4, 9, 33)) * 5).astype(dtype)
    expected = np.log(softmax_reference(x, axis)).astype(dtype)
    np.testing.assert_allclose(loom.ops.log_softmax(x, axis), expected, rtol=1e-5, atol=1e-5)


def test_softmax_is_stable_for_large_inputs():
    x = np.array([[1000.0, 1000.0, 0.0]], np.float32)
    np.testing.assert_allclose(loom.ops.softmax(x), [[0.5, 0.5, 0.0]], atol=1e-7)
    out = loom.ops.log_softmax(x)
    assert np.isfinite(out[0, :2]).all()
    np.testing.assert_allclose(out[0, :2], [-np.log(2.0)] * 2, rtol=1e-6)


def test_softmax_on_ints_is_refused():
    with pytest.raises(ValueError, match="Softmax: no kernel for dtype int32"):
        loom.ops.softmax(np.ones(3, np.int32))


def layer_norm_reference(x, scale, bias, axis, epsilon):
    x64 = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    out = (x64 - mean) / np.sqrt(var + epsilon) * scale.astype(np.float64)
    if bias is not None:
        out = out + bias.astype(np.float64)
    return out.astype(x.dtype)


@pytest.mark.parametrize("axis", [-1, 1, -2])
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_matches_numpy(axis, with_bias, dtype, rng):
    x = (rng.standard_normal((2, 6, 10)) * 3 + 1).astype(dtype)
    norm_shape = x.shape[axis % x.ndim:]
    scale = rng.standard_normal(norm_shape).astype(dtype)
    bias = rng.standard_normal(norm_shape).astype(dtype) if with_bias else None
    out = loom.ops.layer_norm(x, scale, bias, axis=axis, epsilon=1e-3)
    assert_close(out, layer_norm_reference(x, scale, bias, axis, 1e-3), rtol=1e-4, atol=1e-5)


def test_layer_norm_scale_shape_mismatch_names_op_and_input():
    expected = r"LayerNormalization: input 'Scale' must have shape \[3\]"
    with pytest.raises(ValueError, match=expected):
        loom.ops.layer_norm(np.zeros((2, 3), np.float32), np.ones(4, np.float32))
