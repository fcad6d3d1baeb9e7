"""Models of every opset from 7 to the newest load: the same model at opset
13 and converted by onnx.version_converter to 18, 21 and 24 gives identical
outputs in Loom, and matches ONNX Runtime; a model made with
onnx.helper.make_model's defaults (today's opset and IR version) loads; the
importer's op-version table matches the pinned onnx package."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import loom
from conftest import REPO_ROOT, assert_close, shared_model

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper, version_converter  # noqa: E402

FLOAT = onnx.TensorProto.FLOAT
TARGETS = (18, 21, 24)


def run_loom(model, feeds):
    session = loom.InferenceSession(model.SerializeToString())
    return session.run(None, feeds)


def run_ort(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def opset_of(model):
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def converted(model, target):
    out = version_converter.convert_version(model, target)
    assert opset_of(out) == target
    return out


def opset13_model():
    """Ops whose form changed between 13 and 24: ReduceMean/ReduceMax axes
    (input at 18), Split (num_outputs at 18), Pad (axes at 18), Squeeze,
    Unsqueeze, Softmax, Clip, Reshape, plus Conv/Gemm-free arithmetic."""
    rng = np.random.default_rng(3)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[2], keepdims=1),
        helper.make_node("Sub", ["x", "m"], ["d"]),
        helper.make_node("ReduceMax", ["d"], ["mx"], axes=[1, 2], keepdims=0),
        helper.make_node("Split", ["d", "sizes"], ["s0", "s1"], axis=2),
        helper.make_node("Pad", ["s0", "pads", "zero"], ["p"], mode="constant"),
        helper.make_node("Softmax", ["p"], ["sm"], axis=-1),
        helper.make_node("Unsqueeze", ["mx", "ax0"], ["u"]),
        helper.make_node("Squeeze", ["u", "ax0"], ["sq"]),
        helper.make_node("Clip", ["s1", "lo", "hi"], ["c"]),
        helper.make_node("Reshape", ["c", "shape"], ["r"]),
        helper.make_node("Mul", ["r", "w"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.array([3, 5], np.int64), "sizes"),
        numpy_helper.from_array(np.array([0, 0, 1, 0, 0, 2], np.int64), "pads"),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "ax0"),
        numpy_helper.from_array(np.array(-0.5, np.float32), "lo"),
        numpy_helper.from_array(np.array(0.5, np.float32), "hi"),
        numpy_helper.from_array(np.array([2, -1], np.int64), "shape"),
        numpy_helper.from_array(rng.standard_normal((1, 10)).astype(np.float32), "w"),
    ]
    graph = helper.make_graph(
        nodes, "opsets",
        [helper.make_tensor_value_info("x", FLOAT, [2, 2, 8])],
        [helper.make_tensor_value_info("sm", FLOAT, [2, 2, 6]),
         helper.make_tensor_value_info("sq", FLOAT, [2]),
         helper.make_tensor_value_info("y", FLOAT, [2, 10])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


@pytest.mark.parametrize("target", TARGETS)
def test_model_converted_to_newer_opsets_gives_identical_outputs(target):
    model = opset13_model()
    x = np.random.default_rng(5).standard_normal((2, 2, 8)).astype(np.float32)
    base = run_loom(model, {"x": x})
    newer = converted(model, target)
    got = run_loom(newer, {"x": x})
    for a, b in zip(base, got):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(got, run_ort(newer, {"x": x})):
        assert_close(a, b)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "mlp"])
def test_shared_models_converted_to_newer_opsets_give_identical_outputs(name):
    path, x, expected, input_name = shared_model(name)
    model = onnx.load(str(path))
    assert opset_of(model) == 13
    base = run_loom(model, {input_name: x})[0]
    assert_close(base, expected)
    for target in TARGETS:
        got = run_loom(converted(model, target), {input_name: x})[0]
        np.testing.assert_array_equal(got, base, err_msg=f"opset {target}")


def test_model_with_make_model_defaults_loads():
    # Today's default opset (24) and IR version, as a new user writes it.
    graph = helper.make_graph(
        [helper.make_node("Gelu", ["x"], ["g"]), helper.make_node("ReduceSum", ["g", "ax"], ["y"], keepdims=0)],
        "defaults",
        [helper.make_tensor_value_info("x", FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array([1], np.int64), "ax")])
    model = helper.make_model(graph)
    assert opset_of(model) == onnx.defs.onnx_opset_version()
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    assert_close(run_loom(model, {"x": x})[0], run_ort(model, {"x": x})[0])


def test_op_version_table_matches_the_pinned_onnx():
    script = pathlib.Path(REPO_ROOT) / "scripts" / "gen_onnx_op_versions.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
