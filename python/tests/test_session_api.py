"""InferenceSession's calling conventions, which are ONNX Runtime's: which
outputs run() returns, what a model may be given as, SessionOptions and
providers. The last test is the promise in the README: code written for
onnxruntime runs on Loom with only the import changed."""

import pathlib
import warnings

import numpy as np
import pytest

import loom
from conftest import assert_close
import onnx_models


def expit(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.fixture(scope="module")
def multi_output_session():
    return loom.InferenceSession(onnx_models.multi_output().SerializeToString())


@pytest.fixture
def x(rng):
    return rng.standard_normal((2, 5)).astype(np.float32)


def test_run_none_and_empty_list_return_every_output_in_graph_order(multi_output_session, x):
    expected = [np.maximum(x, 0), x.sum(axis=1), expit(x)]
    for output_names in (None, []):
        outputs = multi_output_session.run(output_names, {"x": x})
        assert len(outputs) == 3
        for out, reference in zip(outputs, expected):
            assert_close(out, reference.astype(np.float32), rtol=1e-5, atol=1e-6)


def test_run_returns_the_requested_outputs_in_the_requested_order(multi_output_session, x):
    sigmoid, relu = multi_output_session.run(["sigmoid", "relu"], {"x": x})
    assert_close(sigmoid, expit(x).astype(np.float32), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(relu, np.maximum(x, 0))
    (rowsum,) = multi_output_session.run(["rowsum"], {"x": x})
    assert rowsum.shape == (2,)
    first, second = multi_output_session.run(["rowsum", "rowsum"], {"x": x})
    np.testing.assert_array_equal(first, second)


def test_output_names_may_be_a_tuple(multi_output_session, x):
    (relu,) = multi_output_session.run(("relu",), {"x": x})
    np.testing.assert_array_equal(relu, np.maximum(x, 0))


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "two_branch.onnx"
    path.write_bytes(onnx_models.two_branch().SerializeToString())
    return path


@pytest.mark.parametrize(
    "as_model",
    [
        pytest.param(lambda path: str(path), id="str"),
        pytest.param(lambda path: pathlib.Path(path), id="pathlib"),
        pytest.param(lambda path: path.read_bytes(), id="bytes"),
        pytest.param(lambda path: bytearray(path.read_bytes()), id="bytearray"),
    ],
)
def test_model_from_path_pathlike_or_bytes_gives_the_same_result(model_file, as_model, rng):
    x = rng.standard_normal((3, 32)).astype(np.float32)
    (expected,) = loom.InferenceSession(str(model_file)).run(None, {"x": x})
    (out,) = loom.InferenceSession(as_model(model_file)).run(None, {"x": x})
    np.testing.assert_array_equal(out, expected)


def test_model_path_of_wrong_type_raises_type_error():
    with pytest.raises(TypeError):
        loom.InferenceSession(42)


def test_session_options_defaults_match_onnxruntime():
    so = loom.SessionOptions()
    assert so.intra_op_num_threads == 0
    assert so.inter_op_num_threads == 0
    assert so.graph_optimization_level == loom.GraphOptimizationLevel.ORT_ENABLE_ALL


@pytest.mark.parametrize("intra, inter", [(1, 1), (2, 1), (1, 2)])
def test_session_options_thread_counts_reach_the_session(model_file, intra, inter):
    so = loom.SessionOptions()
    so.intra_op_num_threads = intra
    so.inter_op_num_threads = inter
    session = loom.InferenceSession(str(model_file), so)
    assert (session.intra_op_num_threads, session.inter_op_num_threads) == (intra, inter)


def test_keyword_thread_counts_outrank_session_options(model_file):
    so = loom.SessionOptions()
    so.intra_op_num_threads = 2
    session = loom.InferenceSession(str(model_file), so, intra_op_num_threads=1,
                                    inter_op_num_threads=1)
    assert (session.intra_op_num_threads, session.inter_op_num_threads) == (1, 1)


def test_negative_session_thread_count_raises_value_error(model_file):
    with pytest.raises(ValueError, match="intra_op_num_threads"):
        loom.InferenceSession(str(model_file), intra_op_num_threads=-1)


@pytest.mark.parametrize("model_name", ["cnn", "two_branch", "int64_chain"])
@pytest.mark.parametrize(
    "level",
    [
        loom.GraphOptimizationLevel.ORT_DISABLE_ALL,
        loom.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        loom.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    ],
)
def test_every_optimization_level_gives_the_same_results(model_name, level, rng):
    build, feed = onnx_models.BUILT[model_name]
    model_bytes = build().SerializeToString()
    inputs = feed(rng, 2)
    expected = loom.InferenceSession(model_bytes).run(None, inputs)  # ORT_ENABLE_ALL
    so = loom.SessionOptions()
    so.graph_optimization_level = level
    so.intra_op_num_threads = 1
    outputs = loom.InferenceSession(model_bytes, so).run(None, inputs)
    for out, reference in zip(outputs, expected):
        # Fusion may reorder float operations; nothing more.
        assert_close(out, reference, rtol=1e-5, atol=1e-6)


def test_cpu_provider_is_accepted_silently(model_file):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        session = loom.InferenceSession(str(model_file), providers=["CPUExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]


def test_missing_provider_warns_and_runs_on_cpu(model_file, rng):
    x = rng.standard_normal((1, 32)).astype(np.float32)
    (expected,) = loom.InferenceSession(str(model_file)).run(None, {"x": x})
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        session = loom.InferenceSession(
            str(model_file), providers=["CUDAExecutionProvider", "CPUExecutionProvider"]
        )
    assert session.get_providers() == ["CPUExecutionProvider"]
    (out,) = session.run(None, {"x": x})
    np.testing.assert_array_equal(out, expected)


def test_provider_with_options_tuple_is_accepted(model_file):
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        loom.InferenceSession(
            str(model_file), providers=[("CUDAExecutionProvider", {"device_id": 0}),
                                        "CPUExecutionProvider"])


def test_cpu_provider_options_warn_that_loom_does_not_apply_them(model_file):
    # Positional like onnxruntime: path, sess_options, providers, provider_options.
    with pytest.warns(UserWarning, match="does not apply CPUExecutionProvider options.*arena"):
        loom.InferenceSession(str(model_file), None, ["CPUExecutionProvider"],
                              [{"arena_extend_strategy": "kSameAsRequested"}])
    with pytest.warns(UserWarning, match="does not apply CPUExecutionProvider options"):
        loom.InferenceSession(str(model_file),
                              providers=[("CPUExecutionProvider", {"use_arena": "0"})])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # empty options are no options
        loom.InferenceSession(str(model_file), providers=["CPUExecutionProvider"],
                              provider_options=[{}])


def test_module_level_provider_queries_match_onnxruntime_on_a_cpu_machine():
    assert loom.get_available_providers() == ["CPUExecutionProvider"]
    assert loom.get_device() == "CPU"
    ort = pytest.importorskip("onnxruntime")
    assert ort.get_device() == loom.get_device()
    assert "CPUExecutionProvider" in ort.get_available_providers()


def test_run_options_other_than_loom_run_options_are_refused(model_file, rng):
    session = loom.InferenceSession(str(model_file))
    with pytest.raises(TypeError, match="run_options"):
        session.run(None, {"x": np.zeros((1, 32), np.float32)}, object())


def typical_onnxruntime_usage(rt, path, x):
    """What onnxruntime code commonly looks like; `rt` is the module."""
    so = rt.SessionOptions()
    so.intra_op_num_threads = 1
    sess = rt.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    first = sess.get_inputs()[0]
    outputs = sess.run(None, {first.name: x}, rt.RunOptions())
    return {
        "input": (first.name, first.shape, first.type),
        "outputs": [(o.name, o.shape, o.type) for o in sess.get_outputs()],
        "providers": sess.get_providers(),
        "result": outputs,
    }


def test_only_the_import_changes(model_file, rng):
    ort = pytest.importorskip("onnxruntime")
    x = rng.standard_normal((4, 32)).astype(np.float32)
    with_ort = typical_onnxruntime_usage(ort, str(model_file), x)
    with_loom = typical_onnxruntime_usage(loom, str(model_file), x)
    assert with_loom["input"] == with_ort["input"] == ("x", ["N", 32], "tensor(float)")
    assert with_loom["outputs"] == with_ort["outputs"]
    assert with_loom["providers"] == with_ort["providers"]
    assert len(with_loom["result"]) == len(with_ort["result"]) == 1
    assert type(with_loom["result"]) is type(with_ort["result"]) is list
    assert_close(with_loom["result"][0], with_ort["result"][0])
