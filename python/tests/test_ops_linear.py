"""loom.ops.matmul and gemm against NumPy (float64 references for floats,
exact integer products for ints)."""

import numpy as np
import pytest

import loom
from conftest import assert_close

MATMUL_SHAPES = {
    "2d": ((7, 13), (13, 5)),
    "large": ((96, 130), (130, 70)),
    "vector_matrix": ((13,), (13, 5)),
    "matrix_vector": ((7, 13), (13,)),
    "vector_vector": ((13,), (13,)),
    "batched": ((4, 7, 13), (4, 13, 5)),
    "broadcast_b": ((4, 7, 13), (13, 5)),
    "broadcast_a": ((7, 13), (3, 13, 5)),
    "broadcast_both": ((2, 1, 7, 13), (3, 13, 5)),
    "empty_k": ((3, 0), (0, 4)),
}


def random(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("case", sorted(MATMUL_SHAPES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_float_matches_numpy(case, dtype, rng):
    a_shape, b_shape = MATMUL_SHAPES[case]
    a, b = random(rng, a_shape, dtype), random(rng, b_shape, dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    out = loom.ops.matmul(a, b)
    assert_close(out, expected, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("case", ["2d", "batched", "broadcast_both", "matrix_vector"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_matmul_int_is_exact(case, dtype, rng):
    a_shape, b_shape = MATMUL_SHAPES[case]
    a, b = random(rng, a_shape, dtype), random(rng, b_shape, dtype)
    out = loom.ops.matmul(a, b)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.matmul(a, b))


def test_matmul_inner_dimension_mismatch_names_op_and_shapes():
    with pytest.raises(loom.errors.InvalidArgumentError,
                       match=r"MatMul: .*\[2, 3\].*K = 3.*\[4, 5\].*K = 4"):
        loom.ops.matmul(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))


def test_matmul_batch_mismatch_is_refused():
    with pytest.raises(ValueError, match="MatMul: batch dimensions"):
        loom.ops.matmul(np.zeros((2, 3, 4), np.float32), np.zeros((3, 4, 5), np.float32))


def test_matmul_mixed_dtypes_name_the_input():
    with pytest.raises(ValueError, match="MatMul: input 'B' must have dtype float32"):
        loom.ops.matmul(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.int32))


def gemm_reference(a, b, c, trans_a, trans_b, alpha, beta):
    a64 = a.astype(np.float64).T if trans_a else a.astype(np.float64)
    b64 = b.astype(np.float64).T if trans_b else b.astype(np.float64)
    out = alpha * (a64 @ b64)
    if c is not None:
        out = out + beta * c.astype(np.float64)
    return out.astype(np.float32)


@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
@pytest.mark.parametrize("c_shape", [None, (5,), (1, 5), (6, 1), (6, 5), ()],
                         ids=["no_c", "row", "row_2d", "column", "full", "scalar"])
def test_gemm_matches_numpy(trans_a, trans_b, c_shape, rng):
    m, k, n = 6, 9, 5
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float32)
    c = None if c_shape is None else rng.standard_normal(c_shape).astype(np.float32)
    out = loom.ops.gemm(a, b, c, trans_a=trans_a, trans_b=trans_b, alpha=0.75, beta=-1.5)
    assert_close(out, gemm_reference(a, b, c, trans_a, trans_b, 0.75, -1.5), rtol=1e-4,
                 atol=1e-5)


def test_gemm_defaults_are_alpha_1_beta_1(rng):
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((3, 2)).astype(np.float32)
    c = rng.standard_normal((2,)).astype(np.float32)
    assert_close(loom.ops.gemm(a, b, c), gemm_reference(a, b, c, False, False, 1.0, 1.0),
                 rtol=1e-5, atol=1e-6)


def test_gemm_mismatch_names_op_and_shapes():
    with pytest.raises(ValueError, match=r"Gemm: .*\[2, 3\].*\[4, 3\]"):
        loom.ops.gemm(np.zeros((2, 3), np.float32), np.zeros((4, 3), np.float32))
