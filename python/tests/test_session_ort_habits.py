"""Habits of ONNX Runtime users that must work the same way in Loom: lists
and scalars as feeds, output_names given as a bare string, a missing model
file, get_session_options(), readable reprs."""

import numpy as np
import pytest

import loom
from conftest import make_model

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def add_model(dtype=TensorProto.FLOAT):
    return make_model(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        [
            helper.make_tensor_value_info("x", dtype, [2]),
            helper.make_tensor_value_info("y", dtype, []),
        ],
        [helper.make_tensor_value_info("z", dtype, [2])],
    ).SerializeToString()


def test_lists_and_scalars_become_the_declared_input_type():
    session = loom.InferenceSession(add_model())
    (z,) = session.run(None, {"x": [1.0, 2.5], "y": 3})
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z, np.array([4.0, 5.5], np.float32))
    ints = loom.InferenceSession(add_model(TensorProto.INT64))
    (z,) = ints.run(["z"], {"x": (1, 2), "y": np.int64(10)})
    assert z.dtype == np.int64
    np.testing.assert_array_equal(z, [11, 12])
    # An array keeps its dtype, and a wrong one is still named, not cast.
    with pytest.raises(loom.errors.InvalidArgumentError, match="float64"):
        session.run(None, {"x": np.array([1.0, 2.0]), "y": np.float32(1)})


def test_output_names_as_a_bare_string_is_a_type_error():
    session = loom.InferenceSession(add_model())
    feed = {"x": np.ones(2, np.float32), "y": np.float32(1)}
    with pytest.raises(TypeError, match=r"\['z'\]"):
        session.run("z", feed)
    with pytest.raises(TypeError, match="output_names must hold str"):
        session.run([0], feed)
    with pytest.raises(TypeError, match="input names"):
        session.run(None, {0: np.ones(2, np.float32)})


def test_a_missing_model_file_is_file_not_found(tmp_path):
    path = tmp_path / "missing.onnx"
    with pytest.raises(FileNotFoundError) as raised:
        loom.InferenceSession(str(path))
    assert raised.value.filename == str(path)
    assert raised.value.errno == 2


def test_get_session_options_returns_what_the_session_uses():
    so = loom.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = loom.GraphOptimizationLevel.ORT_ENABLE_BASIC
    session = loom.InferenceSession(add_model(), so)
    got = session.get_session_options()
    assert got.intra_op_num_threads == 1
    # The count not given is the one in force (the global setting).
    assert got.inter_op_num_threads == session.inter_op_num_threads >= 1
    assert got.graph_optimization_level == loom.GraphOptimizationLevel.ORT_ENABLE_BASIC
    got.intra_op_num_threads = 5  # a copy: the session is unchanged
    assert session.get_session_options().intra_op_num_threads == 1


def test_reprs_say_what_the_object_is():
    session = loom.InferenceSession(add_model())
    text = repr(session)
    assert text.startswith("<loom.InferenceSession inputs=['x', 'y'] outputs=['z']"), text
    assert "intra_op_num_threads=" in text
    so = loom.SessionOptions()
    so.intra_op_num_threads = 2
    assert repr(so) == (
        "SessionOptions(intra_op_num_threads=2, inter_op_num_threads=0, "
        "graph_optimization_level=ORT_ENABLE_ALL, enable_profiling=False, "
        "profile_file_prefix='loom_profile')"
    )
    ro = loom.RunOptions()
    ro.timeout_seconds = 1.5
    assert repr(ro) == "RunOptions(terminate=False, timeout_seconds=1.5)"


def test_unknown_fetch_names_the_python_setting_that_keeps_intermediates():
    session = loom.InferenceSession(add_model())
    with pytest.raises(ValueError, match="no value named 'nope'") as error:
        session.run(["nope"], {"x": [1.0, 2.0], "y": 1.0})
    assert "GraphOptimizationLevel.ORT_DISABLE_ALL" in str(error.value)
