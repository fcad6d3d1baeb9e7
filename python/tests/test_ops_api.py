"""How loom.ops meets NumPy: arguments read, never written; results are new
arrays; anything np.asarray takes is accepted; unsupported dtypes and bad
shapes raise ValueError naming the op and the argument; the generic run()."""

import numpy as np
import pytest

import loom
from conftest import assert_close


def test_inputs_are_not_modified_and_results_are_fresh(rng):
    a = rng.standard_normal((8, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)
    a_before, b_before = a.copy(), b.copy()
    results = [
        loom.ops.relu(a),
        loom.ops.add(a, b),
        loom.ops.matmul(a, b),
        loom.ops.reshape(a, [64]),
        loom.ops.flatten(a, 1),
        loom.ops.transpose(a, [0, 1]),
        loom.ops.concat([a], 0),
        loom.ops.cast(a, np.float32),
        loom.ops.run("Identity", [a])[0],
    ]
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_array_equal(b, b_before)
    for result in results:
        assert not np.shares_memory(result, a) and not np.shares_memory(result, b)
        assert result.flags.writeable


def test_result_of_a_read_only_input_is_writeable(rng):
    x = rng.standard_normal((4, 4)).astype(np.float32)
    x.setflags(write=False)
    first = x[0, 0]
    out = loom.ops.reshape(x, [16])
    out[0] = 42.0
    assert x[0, 0] == first
    np.testing.assert_array_equal(out[1:], x.reshape(16)[1:])


def test_result_owns_its_memory_after_input_is_gone(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    expected = np.maximum(x, 0)
    out = loom.ops.relu(x)
    del x
    np.testing.assert_array_equal(out, expected)


def test_non_contiguous_arguments_give_the_contiguous_result(rng):
    a = rng.standard_normal((6, 10)).astype(np.float32)
    b = rng.standard_normal((5, 6)).astype(np.float32)
    strided = a[:, ::2]
    fortran_b = np.asfortranarray(b)
    expected = (b.astype(np.float64) @ strided.astype(np.float64)).astype(np.float32)
    assert_close(loom.ops.matmul(fortran_b, strided), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(loom.ops.relu(strided), np.maximum(strided, 0))


def test_lists_and_scalars_are_converted_like_np_asarray():
    out = loom.ops.matmul([[1.0, 2.0]], [[3.0], [4.0]])
    assert out.dtype == np.float64  # what np.asarray makes of Python floats
    np.testing.assert_array_equal(out, [[11.0]])
    ints = loom.ops.add([1, 2, 3], [10, 20, 30])
    assert ints.dtype == np.asarray([1]).dtype
    np.testing.assert_array_equal(ints, [11, 22, 33])
    np.testing.assert_array_equal(loom.ops.mul(np.arange(3.0), 2.0), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(loom.ops.relu(np.float32(-3.0)), np.float32(0.0))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128,
                                   np.float128 if hasattr(np, "float128") else np.longdouble],
                         ids=lambda d: np.dtype(d).name)
def test_unsupported_numpy_dtype_raises_value_error_naming_it(dtype):
    with pytest.raises(loom.errors.InvalidArgumentError) as info:
        loom.ops.relu(np.ones(3, dtype))
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert np.dtype(dtype).name in message
    assert "relu" in message and "'x'" in message


def test_unsupported_dtype_in_second_argument_names_it():
    with pytest.raises(ValueError, match=r"add: argument 'b': NumPy dtype complex64"):
        loom.ops.add(np.ones(3, np.float32), np.ones(3, np.complex64))


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_op_without_a_kernel_for_a_dtype_names_it(dtype):
    # Relu has no unsigned kernel (ONNX's Relu takes signed types only).
    with pytest.raises(loom.errors.InvalidArgumentError, match=np.dtype(dtype).name):
        loom.ops.relu(np.ones(3, dtype))


@pytest.mark.parametrize("value", [np.array(["a", "b"]), np.array([object(), None]),
                                   [[1, 2], [3]]], ids=["strings", "objects", "ragged"])
def test_non_numeric_input_raises_value_error(value):
    with pytest.raises(ValueError):
        loom.ops.relu(value)


@pytest.mark.parametrize(
    "call, op, argument",
    [
        (lambda: loom.ops.matmul(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32)),
         "MatMul", "K = 4"),
        (lambda: loom.ops.add(np.zeros((2, 3), np.float32), np.zeros((4,), np.float32)),
         "Add", "'B'"),
        (lambda: loom.ops.conv2d(np.zeros((1, 3, 5, 5), np.float32),
                                 np.zeros((2, 4, 3, 3), np.float32)), "Conv", "'X'"),
        (lambda: loom.ops.layer_norm(np.zeros((2, 3), np.float32), np.ones(4, np.float32)),
         "LayerNormalization", "'Scale'"),
        (lambda: loom.ops.concat([np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32)],
                                 0), "Concat", "'inputs[1]'"),
        (lambda: loom.ops.reshape(np.zeros((2, 3), np.float32), [7]), "Reshape", "'shape'"),
    ],
    ids=["matmul", "add", "conv2d", "layer_norm", "concat", "reshape"],
)
def test_shape_errors_name_the_op_and_the_input(call, op, argument):
    with pytest.raises(loom.errors.InvalidArgumentError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{op}: "), message
    assert argument in message


def test_generic_run_matches_the_named_op(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4,)).astype(np.float32)
    (out,) = loom.ops.run("Add", [a, b])
    np.testing.assert_array_equal(out, a + b)


def test_generic_run_takes_attributes(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    (leaky,) = loom.ops.run("LeakyRelu", [x], {"alpha": 0.5})
    np.testing.assert_allclose(leaky, np.where(x >= 0, x, 0.5 * x), rtol=1e-6)
    (transposed,) = loom.ops.run("Transpose", [x], {"perm": [1, 0]})
    np.testing.assert_array_equal(transposed, x.T)
    (value,) = loom.ops.run("Constant", [], {"value": np.arange(3, dtype=np.int64)})
    np.testing.assert_array_equal(value, [0, 1, 2])


def test_generic_run_none_marks_an_absent_optional_input():
    x = np.ones((1, 1, 3, 3), np.float32)
    w = np.ones((1, 1, 3, 3), np.float32)
    (out,) = loom.ops.run("Conv", [x, w, None], {"pads": [1, 1, 1, 1]})
    np.testing.assert_array_equal(out[0, 0], [[4, 6, 4], [6, 9, 6], [4, 6, 4]])


def test_generic_run_returns_every_output():
    parts = loom.ops.run("Split", [np.arange(6, dtype=np.float32), np.array([2, 4])], {"axis": 0})
    assert [p.tolist() for p in parts] == [[0.0, 1.0], [2.0, 3.0, 4.0, 5.0]]


def test_generic_run_errors():
    with pytest.raises(ValueError, match="no operator 'Foo'"):
        loom.ops.run("Foo", [np.ones(2, np.float32)])
    with pytest.raises(ValueError, match="Add: expected 2 inputs, got 1"):
        loom.ops.run("Add", [np.ones(2, np.float32)])
    with pytest.raises(ValueError, match="attribute 'alpha'"):
        loom.ops.run("LeakyRelu", [np.ones(2, np.float32)], {"alpha": [1, "a"]})


def test_generic_run_refuses_an_attribute_the_op_does_not_have():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"Softmax: unknown attribute 'axsi' \(its attributes: axis\)"):
        loom.ops.run("Softmax", [a], {"axsi": 0})
    with pytest.raises(TypeError, match="attribute names"):
        loom.ops.run("Softmax", [a], {0: 1})
    with pytest.raises(ValueError, match="attribute 'axis': 100000000000000000000 does not fit"):
        loom.ops.run("Softmax", [a], {"axis": 10**20})
    np.testing.assert_allclose(loom.ops.run("Softmax", [a], {"axis": 0})[0], np.full((2, 3), 0.5))


def test_supported_ops_is_sorted_and_has_the_common_ops():
    ops = loom.ops.supported_ops()
    assert ops == sorted(ops)
    for op in ("Conv", "MatMul", "Gemm", "Relu", "Softmax", "Reshape", "Gather", "Shape"):
        assert op in ops
    assert "Foo" not in ops
