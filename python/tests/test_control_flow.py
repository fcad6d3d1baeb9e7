"""ONNX control flow (If, Loop, Scan) gives ONNX Runtime's results. The
models are built with onnx.helper in the shape PyTorch's TorchScript
exporter gives a scripted RNN loop: a Loop whose trip count is an input,
its body an RNN cell (Gemm, Tanh) reading the weights from the outer graph,
and an If on the sign of the state's sum inside the body."""
import numpy as np
import pytest

import loom
from conftest import assert_close

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper  # noqa: E402

FLOAT = onnx.TensorProto.FLOAT
INT64 = onnx.TensorProto.INT64
BOOL = onnx.TensorProto.BOOL
HIDDEN, FEATURES, BATCH = 32, 16, 4


def scalar(name, value, dtype):
    return numpy_helper.from_array(np.array(value, dtype), name)


def rnn_loop_model(seed=0):
    """h_out = Loop(steps) { h = tanh(x Wx + bx + h Wh + bh);
    h = sum(h) > 0 ? h * 0.5 : h + 0.25 } — what
    torch.jit.script + torch.onnx.export(opset 13) write for that loop."""
    rng = np.random.default_rng(seed)
    weights = [
        numpy_helper.from_array(rng.standard_normal((HIDDEN, FEATURES)).astype(np.float32) * 0.2,
                                "Wx"),
        numpy_helper.from_array(rng.standard_normal(HIDDEN).astype(np.float32) * 0.1, "bx"),
        numpy_helper.from_array(rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32) * 0.2,
                                "Wh"),
        numpy_helper.from_array(rng.standard_normal(HIDDEN).astype(np.float32) * 0.1, "bh"),
    ]
    then_branch = helper.make_graph(
        [helper.make_node("Mul", ["h1", "half"], ["h_then"])], "then",
        [], [helper.make_tensor_value_info("h_then", FLOAT, None)],
        initializer=[scalar("half", 0.5, np.float32)])
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["h1", "quarter"], ["h_else"])], "else",
        [], [helper.make_tensor_value_info("h_else", FLOAT, None)],
        initializer=[scalar("quarter", 0.25, np.float32)])
    body = helper.make_graph(
        [
            helper.make_node("Gemm", ["x", "Wx", "bx"], ["gx"], transB=1),
            helper.make_node("Gemm", ["h", "Wh", "bh"], ["gh"], transB=1),
            helper.make_node("Add", ["gx", "gh"], ["pre"]),
            helper.make_node("Tanh", ["pre"], ["h1"]),
            helper.make_node("ReduceSum", ["h1"], ["total"], keepdims=0),
            helper.make_node("Greater", ["total", "zero"], ["positive"]),
            helper.make_node("If", ["positive"], ["h2"], then_branch=then_branch,
                             else_branch=else_branch),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", INT64, []),
         helper.make_tensor_value_info("cond", BOOL, []),
         helper.make_tensor_value_info("h", FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", BOOL, []),
         helper.make_tensor_value_info("h2", FLOAT, None)],
        initializer=[scalar("zero", 0.0, np.float32)])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["steps", "true", "h0"], ["h_out"], body=body)],
        "rnn_loop",
        [helper.make_tensor_value_info("x", FLOAT, [BATCH, FEATURES]),
         helper.make_tensor_value_info("h0", FLOAT, [BATCH, HIDDEN]),
         helper.make_tensor_value_info("steps", INT64, [])],
        [helper.make_tensor_value_info("h_out", FLOAT, [BATCH, HIDDEN])],
        initializer=weights + [scalar("true", True, np.bool_)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def cumulative_scan_model():
    """Scan over the rows of X (reversed) keeping a running sum, with the
    sums stacked along axis 1."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "row"], ["acc_next"]),
         helper.make_node("Identity", ["acc_next"], ["step"])],
        "body",
        [helper.make_tensor_value_info("acc", FLOAT, [3]),
         helper.make_tensor_value_info("row", FLOAT, [3])],
        [helper.make_tensor_value_info("acc_next", FLOAT, [3]),
         helper.make_tensor_value_info("step", FLOAT, [3])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["acc0", "X"], ["total", "steps"], body=body,
                          num_scan_inputs=1, scan_input_directions=[1], scan_output_axes=[1])],
        "scan",
        [helper.make_tensor_value_info("acc0", FLOAT, [3]),
         helper.make_tensor_value_info("X", FLOAT, ["T", 3])],
        [helper.make_tensor_value_info("total", FLOAT, [3]),
         helper.make_tensor_value_info("steps", FLOAT, [3, "T"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def run_ort(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("steps", [0, 1, 5])
def test_rnn_loop_matches_onnxruntime(threads, steps):
    model = rnn_loop_model()
    rng = np.random.default_rng(steps)
    feeds = {"x": rng.standard_normal((BATCH, FEATURES)).astype(np.float32),
             "h0": rng.standard_normal((BATCH, HIDDEN)).astype(np.float32),
             "steps": np.array(steps, np.int64)}
    session = loom.InferenceSession(model.SerializeToString(), intra_op_num_threads=threads,
                                    inter_op_num_threads=1)
    got = session.run(None, feeds)
    expected = run_ort(model, feeds)
    assert_close(got[0], expected[0])


def test_scan_matches_onnxruntime():
    model = cumulative_scan_model()
    feeds = {"acc0": np.array([1, 2, 3], np.float32),
             "X": np.arange(12, dtype=np.float32).reshape(4, 3)}
    got = loom.InferenceSession(model.SerializeToString()).run(None, feeds)
    expected = run_ort(model, feeds)
    for a, b in zip(got, expected):
        assert_close(a, b)


def test_loop_with_a_negative_trip_count_is_an_error():
    model = rnn_loop_model()
    session = loom.InferenceSession(model.SerializeToString())
    feeds = {"x": np.zeros((BATCH, FEATURES), np.float32),
             "h0": np.zeros((BATCH, HIDDEN), np.float32),
             "steps": np.array(-2, np.int64)}
    with pytest.raises(loom.errors.InvalidArgumentError, match="negative"):
        session.run(None, feeds)
