"""loom.ops.conv2d, max_pool, average_pool and the global pools against NumPy
references written from the ONNX definitions (float64, sliding windows)."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import loom
from conftest import assert_close


def windows(x, kernel, strides, pads, dilations, pad_value):
    """[N, C, OH, OW, kH, kW] windows of NCHW `x` (ceil_mode off); pads are
    [top, left, bottom, right]."""
    top, left, bottom, right = pads
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)),
                    constant_values=pad_value)
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    view = sliding_window_view(padded, extent, axis=(2, 3))
    return view[:, :, :: strides[0], :: strides[1], :: dilations[0], :: dilations[1]]


def conv2d_reference(x, w, bias=None, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1),
                     group=1):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    m, c_per_group = w.shape[:2]
    m_per_group = m // group
    patches = windows(x64, w.shape[2:], strides, pads, dilations, 0.0)
    out = np.concatenate(
        [
            np.einsum(
                "ncijkl,mckl->nmij",
                patches[:, g * c_per_group : (g + 1) * c_per_group],
                w64[g * m_per_group : (g + 1) * m_per_group],
            )
            for g in range(group)
        ],
        axis=1,
    )
    if bias is not None:
        out += bias.astype(np.float64)[None, :, None, None]
    return out.astype(x.dtype)


def max_pool_reference(x, kernel, strides, pads):
    return windows(x, kernel, strides, pads, (1, 1), -np.inf).max(axis=(4, 5)).astype(x.dtype)


def average_pool_reference(x, kernel, strides, pads, count_include_pad):
    x64 = x.astype(np.float64)
    sums = windows(x64, kernel, strides, pads, (1, 1), 0.0).sum(axis=(4, 5))
    if count_include_pad:
        counts = float(np.prod(kernel))
    else:
        ones = np.ones((1, 1) + x.shape[2:])
        counts = windows(ones, kernel, strides, pads, (1, 1), 0.0).sum(axis=(4, 5))
    return (sums / counts).astype(x.dtype)


CONV_CASES = {
    # name: (x shape, w shape, options)
    "plain_3x3": ((2, 3, 9, 9), (4, 3, 3, 3), {}),
    "pads": ((1, 3, 8, 8), (5, 3, 3, 3), {"pads": [1, 1, 1, 1]}),
    "asymmetric_pads": ((1, 2, 7, 6), (3, 2, 3, 2), {"pads": [0, 1, 2, 1]}),
    "strides": ((1, 3, 11, 10), (4, 3, 3, 3), {"strides": [2, 3], "pads": [1, 1, 1, 1]}),
    "dilations": ((1, 2, 12, 12), (3, 2, 3, 3), {"dilations": [2, 3]}),
    "groups": ((2, 6, 8, 8), (4, 3, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
    "depthwise": ((1, 8, 10, 10), (8, 1, 3, 3), {"group": 8, "pads": [1, 1, 1, 1]}),
    "depthwise_multiplier": ((1, 4, 7, 7), (8, 1, 3, 3), {"group": 4, "strides": [2, 2]}),
    "pointwise": ((3, 16, 5, 5), (8, 16, 1, 1), {}),
    "large_kernel": ((1, 3, 20, 20), (6, 3, 7, 7), {"strides": [2, 2], "pads": [3, 3, 3, 3]}),
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
@pytest.mark.parametrize("with_bias", [False, True], ids=["no_bias", "bias"])
def test_conv2d_matches_reference(case, with_bias, rng):
    x_shape, w_shape, options = CONV_CASES[case]
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    bias = rng.standard_normal(w_shape[0]).astype(np.float32) if with_bias else None
    expected = conv2d_reference(
        x, w, bias,
        strides=options.get("strides", (1, 1)),
        pads=options.get("pads", (0, 0, 0, 0)),
        dilations=options.get("dilations", (1, 1)),
        group=options.get("group", 1),
    )
    out = loom.ops.conv2d(x, w, bias, **options)
    assert_close(out, expected)


def test_conv2d_same_upper_keeps_the_spatial_size(rng):
    x = rng.standard_normal((1, 2, 7, 7)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    out = loom.ops.conv2d(x, w, auto_pad="SAME_UPPER")
    assert_close(out, conv2d_reference(x, w, pads=(1, 1, 1, 1)))


def test_conv2d_channel_mismatch_names_op_and_inputs(rng):
    x = np.zeros((1, 3, 5, 5), np.float32)
    w = np.zeros((2, 4, 3, 3), np.float32)
    with pytest.raises(ValueError, match=r"Conv: input 'X' has 3 channels.*expects 4"):
        loom.ops.conv2d(x, w)


def test_conv2d_float64_is_refused_naming_the_supported_dtype():
    x = np.zeros((1, 1, 3, 3))
    with pytest.raises(ValueError, match="Conv.*float64.*float32"):
        loom.ops.conv2d(x, np.zeros((1, 1, 1, 1)))


POOL_CASES = {
    "2x2_stride_2": ([2, 2], [2, 2], [0, 0, 0, 0]),
    "3x3_stride_1": ([3, 3], [1, 1], [0, 0, 0, 0]),
    "3x3_stride_2_pad_1": ([3, 3], [2, 2], [1, 1, 1, 1]),
    "asymmetric": ([2, 3], [1, 2], [1, 0, 0, 2]),
}


@pytest.mark.parametrize("case", sorted(POOL_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_matches_reference(case, dtype, rng):
    kernel, strides, pads = POOL_CASES[case]
    x = rng.standard_normal((2, 3, 9, 8)).astype(dtype)
    out = loom.ops.max_pool(x, kernel, strides=strides, pads=pads)
    np.testing.assert_array_equal(out, max_pool_reference(x, kernel, strides, pads))
    assert out.dtype == dtype


def test_max_pool_int8(rng):
    x = rng.integers(-128, 128, size=(1, 2, 6, 6)).astype(np.int8)
    out = loom.ops.max_pool(x, [2, 2], strides=[2, 2])
    expected = x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("case", sorted(POOL_CASES))
@pytest.mark.parametrize("count_include_pad", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_average_pool_matches_reference(case, count_include_pad, dtype, rng):
    kernel, strides, pads = POOL_CASES[case]
    x = rng.standard_normal((2, 3, 9, 8)).astype(dtype)
    out = loom.ops.average_pool(x, kernel, strides=strides, pads=pads,
                                count_include_pad=count_include_pad)
    assert_close(out, average_pool_reference(x, kernel, strides, pads, count_include_pad),
                 rtol=1e-5, atol=1e-6)


def test_max_pool_ceil_mode_adds_the_partial_window():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = loom.ops.max_pool(x, [2, 2], strides=[3, 3], ceil_mode=True)
    # Windows start at rows/cols 0 and 3; the second one is cut off by the edge.
    np.testing.assert_array_equal(out, [[[[5, 7], [13, 15]]]])


def test_global_pools(rng):
    x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    assert_close(loom.ops.global_average_pool(x),
                 x.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32),
                 rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(loom.ops.global_max_pool(x), x.max(axis=(2, 3), keepdims=True))


def test_pool_kernel_rank_not_matching_the_input_is_refused():
    with pytest.raises(ValueError, match="MaxPool"):
        loom.ops.max_pool(np.zeros((1, 4, 4), np.float32), [2, 2])
