"""Data movement and conversion: reshape, transpose, concat, flatten, cast,
against NumPy (all exact)."""

import numpy as np
import pytest

import loom

ALL_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.float16, np.int8, np.uint8, np.bool_]


def sample(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize(
    "shape, target, numpy_target",
    [
        ((2, 3, 4), [6, 4], (6, 4)),
        ((2, 3, 4), [-1], (24,)),
        ((2, 3, 4), [0, -1], (2, 12)),  # 0 copies the input's dim (ONNX)
        ((2, 3, 4), [4, 0, 2], (4, 3, 2)),
        ((24,), [2, 3, 4], (2, 3, 4)),
    ],
)
def test_reshape(dtype, shape, target, numpy_target, rng):
    x = sample(rng, shape, dtype)
    out = loom.ops.reshape(x, target)
    np.testing.assert_array_equal(out, x.reshape(numpy_target))
    assert out.dtype == dtype


def test_reshape_element_count_mismatch_names_op_and_shapes():
    with pytest.raises(ValueError, match=r"Reshape: .*\[7\].*\[2, 3\]"):
        loom.ops.reshape(np.zeros((2, 3), np.float32), [7])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("perm", [None, [0, 1, 2], [2, 0, 1], [1, 0, 2], [0, 2, 1]], ids=str)
def test_transpose(dtype, perm, rng):
    x = sample(rng, (3, 4, 5), dtype)
    np.testing.assert_array_equal(loom.ops.transpose(x, perm), np.transpose(x, perm))


def test_transpose_large_2d(rng):
    # Big enough for a blocked or parallel transpose path.
    x = rng.standard_normal((513, 257)).astype(np.float32)
    np.testing.assert_array_equal(loom.ops.transpose(x), x.T)


def test_transpose_bad_perm_is_refused():
    with pytest.raises(ValueError, match="Transpose"):
        loom.ops.transpose(np.zeros((2, 3), np.float32), [0, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_concat(dtype, axis, rng):
    base = [2, 3, 4]
    parts = []
    for extent in (1, 2, 3):
        shape = list(base)
        shape[axis] = extent
        parts.append(sample(rng, shape, dtype))
    np.testing.assert_array_equal(loom.ops.concat(parts, axis), np.concatenate(parts, axis))


def test_concat_of_one_array_is_a_copy(rng):
    x = sample(rng, (2, 3), np.float32)
    out = loom.ops.concat([x], 0)
    np.testing.assert_array_equal(out, x)
    assert not np.shares_memory(out, x)


def test_concat_shape_mismatch_names_op_and_input():
    with pytest.raises(ValueError, match=r"Concat: input 'inputs\[1\]' has shape \[4, 5\]"):
        loom.ops.concat([np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32)], 0)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1])
def test_flatten(axis, rng):
    x = sample(rng, (2, 3, 4, 5), np.float32)
    split = axis if axis >= 0 else axis + x.ndim
    rows = int(np.prod(x.shape[:split]))
    np.testing.assert_array_equal(loom.ops.flatten(x, axis), x.reshape(rows, -1))


def test_flatten_default_axis_is_1(rng):
    x = sample(rng, (2, 3, 4), np.int64)
    np.testing.assert_array_equal(loom.ops.flatten(x), x.reshape(2, 12))


CASTS = [
    (np.float32, np.int32),
    (np.float32, np.int64),
    (np.float64, np.float32),
    (np.float32, np.float64),
    (np.int32, np.float32),
    (np.int64, np.float64),
    (np.int64, np.int32),
    (np.float32, np.float16),
    (np.int32, np.bool_),
    (np.bool_, np.float32),
    (np.uint8, np.int64),
]


@pytest.mark.parametrize("source, target", CASTS, ids=lambda d: np.dtype(d).name)
def test_cast(source, target, rng):
    if np.issubdtype(source, np.floating):
        # Fractions and negatives: float -> int truncates toward zero, as C and
        # NumPy do.
        x = (rng.standard_normal(257) * 50).astype(source)
    else:
        x = sample(rng, (257,), source)
    out = loom.ops.cast(x, target)
    assert out.dtype == target
    np.testing.assert_array_equal(out, x.astype(target))


@pytest.mark.parametrize("spelling", ["int64", np.int64, np.dtype("int64")], ids=str)
def test_cast_accepts_any_numpy_dtype_spelling(spelling):
    out = loom.ops.cast(np.array([1.5, -2.5], np.float32), spelling)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [1, -2])


@pytest.mark.parametrize("target", [np.complex64, "U3"], ids=str)
def test_cast_to_a_dtype_loom_lacks_names_it(target):
    with pytest.raises(ValueError, match=f"cast: dtype {np.dtype(target).name}"):
        loom.ops.cast(np.zeros(3, np.float32), target)
