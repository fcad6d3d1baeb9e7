"""Any memory layout NumPy hands over gives the result of a contiguous copy,
and run() returns fresh, writeable arrays that share nothing with the feeds,
even when the graph's output is its input."""

import numpy as np
import pytest

import loom
import onnx_models


def misaligned(values):
    """A copy of `values` whose data pointer is not a multiple of its item size."""
    values = np.ascontiguousarray(values)
    buffer = bytearray(values.nbytes + 1)
    out = np.frombuffer(buffer, dtype=values.dtype, count=values.size, offset=1)
    out = out.reshape(values.shape)
    out[...] = values
    assert out.ctypes.data % values.itemsize != 0
    return out


def wide_view(x):
    """A view of x with every other column: strided, not contiguous."""
    wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
    wide[..., ::2] = x
    view = wide[..., ::2]
    assert not view.flags.c_contiguous
    return view


def read_only(x):
    x = x.copy()
    x.setflags(write=False)
    return x


def fortran(x):
    out = np.asfortranarray(x)
    assert not out.flags.c_contiguous
    return out


def negative_strides(x):
    flipped = x[::-1].copy()[::-1]
    assert flipped.strides[0] < 0
    return flipped


def buffer_view(x):
    """A read-only view into a bytes object (what np.frombuffer gives)."""
    return np.frombuffer(x.tobytes(), dtype=x.dtype).reshape(x.shape)


def big_endian(x):
    """The same values stored big-endian (">f4", as read from some files)."""
    out = x.astype(x.dtype.newbyteorder(">"))
    assert not out.dtype.isnative
    return out


LAYOUTS = {
    "big_endian": big_endian,
    "strided": wide_view,
    "fortran": fortran,
    "read_only": read_only,
    "misaligned": misaligned,
    "negative_strides": negative_strides,
    "bytes_buffer": buffer_view,
}


@pytest.fixture(scope="module")
def two_branch_session():
    return loom.InferenceSession(onnx_models.two_branch().SerializeToString())


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layout_gives_the_result_of_a_contiguous_copy(two_branch_session, layout, rng):
    x = rng.standard_normal((4, 32)).astype(np.float32)
    (expected,) = two_branch_session.run(None, {"x": x.copy()})
    fed = LAYOUTS[layout](x)
    before = fed.copy()
    (out,) = two_branch_session.run(None, {"x": fed})
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(fed, before)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layout_of_an_int64_feed(layout, rng):
    session = loom.InferenceSession(onnx_models.int64_chain().SerializeToString())
    x = rng.standard_normal((3, 4, 6)).astype(np.float32)
    rows = np.array([2, 0, 1, 1], np.int64)
    # A 1-D array is C- and Fortran-contiguous at once: only x can be Fortran.
    fed_rows = rows if layout == "fortran" else LAYOUTS[layout](rows)
    _, _, picked = session.run(None, {"x": LAYOUTS[layout](x), "rows": fed_rows})
    np.testing.assert_array_equal(picked, x[rows])


def test_big_endian_feeds_to_ops_and_ort_values(rng):
    x = rng.standard_normal((3, 4)).astype(">f8")
    np.testing.assert_array_equal(loom.ops.sqrt(np.abs(x)), np.sqrt(np.abs(x)).astype(np.float64))
    value = loom.OrtValue.ortvalue_from_numpy(x)
    np.testing.assert_array_equal(value.numpy(), x)


def test_misaligned_float64_input():
    # Eight-byte elements four bytes off: the case that faults on strict
    # platforms and is slow on others.
    values = np.arange(12, dtype=np.float64).reshape(3, 4)
    buffer = bytearray(values.nbytes + 4)
    x = np.frombuffer(buffer, dtype=np.float64, offset=4).reshape(3, 4)
    x[...] = values
    assert x.ctypes.data % 8 == 4
    np.testing.assert_array_equal(loom.ops.sqrt(x), np.sqrt(values))


def test_zero_size_batch(two_branch_session):
    (out,) = two_branch_session.run(None, {"x": np.zeros((0, 32), np.float32)})
    assert out.shape == (0, 16)


@pytest.mark.parametrize("layout", ["contiguous", "read_only", "strided"])
def test_identity_output_is_a_fresh_writeable_array(layout, rng):
    session = loom.InferenceSession(onnx_models.identity().SerializeToString())
    x = rng.standard_normal((3, 4)).astype(np.float32)
    fed = x if layout == "contiguous" else LAYOUTS[layout](x)
    (y,) = session.run(None, {"x": fed})
    np.testing.assert_array_equal(y, x)
    assert not np.shares_memory(y, fed)
    assert y.flags.writeable and y.flags.c_contiguous
    y[0, 0] = 123.0  # must not write through to the feed
    assert fed[0, 0] == x[0, 0]


def test_outputs_are_fresh_writeable_arrays(two_branch_session, rng):
    x = rng.standard_normal((2, 32)).astype(np.float32)
    (first,) = two_branch_session.run(None, {"x": x})
    (second,) = two_branch_session.run(None, {"x": x})
    assert first.flags.writeable
    assert not np.shares_memory(first, x)
    # Buffers are reused inside a session, but not under an array the caller holds.
    assert not np.shares_memory(first, second)
    kept = first.copy()
    first += 1.0
    (third,) = two_branch_session.run(None, {"x": x})
    np.testing.assert_array_equal(third, kept)


def test_multiple_outputs_do_not_alias_each_other(rng):
    session = loom.InferenceSession(onnx_models.multi_output().SerializeToString())
    x = rng.standard_normal((2, 5)).astype(np.float32)
    relu, rowsum, sigmoid = session.run(None, {"x": x})
    assert not np.shares_memory(relu, sigmoid)
    assert not any(np.shares_memory(out, x) for out in (relu, rowsum, sigmoid))
