"""Bad feeds, fetches and model files: each raises
loom.errors.InvalidArgumentError (a ValueError) whose message names what was
wrong, and the process carries on."""

import numpy as np
import pytest

import loom
import onnx_models


@pytest.fixture(scope="module")
def cnn_session():
    return loom.InferenceSession(onnx_models.cnn().SerializeToString())


@pytest.fixture
def x():
    return np.zeros((1, 3, 16, 16), np.float32)


def raises_invalid_argument(call, *fragments):
    """Calls `call`, expects InvalidArgumentError, checks the message holds
    every fragment; returns the message."""
    with pytest.raises(loom.errors.InvalidArgumentError) as info:
        call()
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def test_wrong_dtype_names_input_and_both_dtypes(cnn_session, x):
    raises_invalid_argument(lambda: cnn_session.run(None, {"x": x.astype(np.float64)}),
                            "'x'", "float32", "float64")


def test_wrong_rank_names_input_and_both_shapes(cnn_session, x):
    raises_invalid_argument(lambda: cnn_session.run(None, {"x": x[0]}),
                            "'x'", "[N, 3, 16, 16]", "[3, 16, 16]", "rank")


@pytest.mark.parametrize("shape, axis, got, expected",
                         [((1, 4, 16, 16), 1, 4, 3), ((1, 3, 16, 17), 3, 17, 16)])
def test_wrong_fixed_dim_names_the_dimension(cnn_session, shape, axis, got, expected):
    raises_invalid_argument(lambda: cnn_session.run(None, {"x": np.zeros(shape, np.float32)}),
                            "'x'", f"dimension {axis} is {got}, expected {expected}")


def test_unknown_input_name_is_named_with_the_real_inputs(cnn_session, x):
    raises_invalid_argument(lambda: cnn_session.run(None, {"x": x, "extra": x}),
                            "'extra'", "'x'")


def test_missing_input_is_named(cnn_session):
    raises_invalid_argument(lambda: cnn_session.run(None, {}), "'x'", "not fed")


def test_one_of_two_inputs_missing_is_named():
    session = loom.InferenceSession(onnx_models.int64_chain().SerializeToString())
    raises_invalid_argument(
        lambda: session.run(None, {"x": np.zeros((2, 4, 6), np.float32)}), "'rows'", "not fed")


def test_unknown_output_name_is_named_with_the_real_outputs(cnn_session, x):
    raises_invalid_argument(lambda: cnn_session.run(["nope"], {"x": x}), "'nope'", "'probs'")


def test_unsupported_numpy_dtype_in_feed_is_named(cnn_session, x):
    raises_invalid_argument(lambda: cnn_session.run(None, {"x": x.astype(np.int16)}),
                            "'x'", "int16")


def test_feed_that_is_not_numeric_is_refused(cnn_session):
    raises_invalid_argument(lambda: cnn_session.run(None, {"x": "hello"}), "'x'")


def test_feed_that_is_not_a_dict_raises_type_error(cnn_session, x):
    with pytest.raises(TypeError, match="dict"):
        cnn_session.run(None, [x])


def test_failing_node_is_named():
    session = loom.InferenceSession(onnx_models.int64_chain().SerializeToString())
    raises_invalid_argument(
        lambda: session.run(None, {"x": np.zeros((2, 4, 6), np.float32),
                                   "rows": np.array([5], np.int64)}),
        "Gather", "5")


@pytest.mark.parametrize("data", [b"garbage bytes \x00\x01\x02", b"\x08" * 64],
                         ids=["garbage", "repeated_tag"])
def test_garbage_bytes_are_refused(data):
    raises_invalid_argument(lambda: loom.InferenceSession(data), "not a valid ONNX model")


def test_empty_bytes_are_refused():
    raises_invalid_argument(lambda: loom.InferenceSession(b""), "empty")


def test_missing_file_is_named(tmp_path):
    # Python's FileNotFoundError, as open() raises (test_session_ort_habits.py).
    path = tmp_path / "missing.onnx"
    with pytest.raises(FileNotFoundError, match="no model file") as raised:
        loom.InferenceSession(str(path))
    assert str(path) in str(raised.value)


def test_directory_is_refused(tmp_path):
    raises_invalid_argument(lambda: loom.InferenceSession(str(tmp_path)), str(tmp_path))


@pytest.mark.parametrize("fraction", [0.5, 0.9])
def test_truncated_model_file_is_refused(tmp_path, fraction):
    data = onnx_models.cnn().SerializeToString()
    path = tmp_path / "truncated.onnx"
    path.write_bytes(data[: int(len(data) * fraction)])
    raises_invalid_argument(lambda: loom.InferenceSession(path), str(path))


def test_unsupported_operator_is_named():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    # ImageDecoder (opset 20) is the one ai.onnx operator Loom does not run.
    graph = helper.make_graph(
        [helper.make_node("ImageDecoder", ["x"], ["y"])], "decoder",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [16])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [4, 4, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    raises_invalid_argument(lambda: loom.InferenceSession(model.SerializeToString()),
                            "ImageDecoder")


def test_session_still_works_after_errors(cnn_session, x):
    for bad in ({}, {"x": x[0]}, {"x": x.astype(np.float64)}):
        with pytest.raises(ValueError):
            cnn_session.run(None, bad)
    (probs,) = cnn_session.run(None, {"x": x})
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-5)
