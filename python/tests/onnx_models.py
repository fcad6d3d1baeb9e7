"""Small ONNX models built with the onnx helper API, with random weights from
a fixed seed, for the session tests. Each builder returns a ModelProto."""

import numpy as np
import pytest

from conftest import make_model

onnx = pytest.importorskip("onnx")
helper = onnx.helper
numpy_helper = onnx.numpy_helper
FLOAT = onnx.TensorProto.FLOAT
INT64 = onnx.TensorProto.INT64


def _weight(rng, name, shape, scale=None):
    # He-like scale keeps activations O(1) through the layers, so relative
    # tolerances stay meaningful.
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    scale = scale if scale is not None else (2.0 / fan_in) ** 0.5
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def cnn(seed=1):
    """Conv + Relu + MaxPool + Flatten + Gemm + Softmax on x [N, 3, 16, 16]."""
    rng = np.random.default_rng(seed)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    weights = [
        _weight(rng, "w", (8, 3, 3, 3)),
        _weight(rng, "b", (8,), 0.1),
        _weight(rng, "fc_w", (10, 8 * 8 * 8)),
        _weight(rng, "fc_b", (10,), 0.1),
    ]
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("probs", FLOAT, ["N", 10])],
        weights,
        "cnn",
    )


def two_branch(seed=2):
    """Add of two MatMul chains over the same input x [N, 32]."""
    rng = np.random.default_rng(seed)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["a2"]),
        helper.make_node("MatMul", ["a2", "w2"], ["a3"]),
        helper.make_node("MatMul", ["x", "w3"], ["b1"]),
        helper.make_node("Tanh", ["b1"], ["b2"]),
        helper.make_node("MatMul", ["b2", "w4"], ["b3"]),
        helper.make_node("Add", ["a3", "b3"], ["y"]),
    ]
    weights = [
        _weight(rng, "w1", (32, 64)),
        _weight(rng, "w2", (64, 16)),
        _weight(rng, "w3", (32, 48)),
        _weight(rng, "w4", (48, 16)),
    ]
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", FLOAT, ["N", 32])],
        [helper.make_tensor_value_info("y", FLOAT, ["N", 16])],
        weights,
        "two_branch",
    )


def multi_output():
    """Three outputs of one input x [2, 5]: relu, sigmoid, row sums. Outputs are
    declared in the order relu, rowsum, sigmoid, so that order is the graph's and
    not alphabetical."""
    nodes = [
        helper.make_node("Relu", ["x"], ["relu"]),
        helper.make_node("Sigmoid", ["x"], ["sigmoid"]),
        helper.make_node("ReduceSum", ["x", "axes"], ["rowsum"], keepdims=0),
    ]
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", FLOAT, [2, 5])],
        [
            helper.make_tensor_value_info("relu", FLOAT, [2, 5]),
            helper.make_tensor_value_info("rowsum", FLOAT, [2]),
            helper.make_tensor_value_info("sigmoid", FLOAT, [2, 5]),
        ],
        [numpy_helper.from_array(np.array([1], np.int64), "axes")],
        "multi_output",
    )


def int64_chain():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: x [N, 4, 6] to [N, 24];
    also outputs the int64 shape, and gathers rows of x by an int64 input."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "zero_axes"], ["batch_1d"]),
        helper.make_node("Concat", ["batch_1d", "minus_one"], ["new_shape"], axis=0),
        helper.make_node("Reshape", ["x", "new_shape"], ["flat"]),
        helper.make_node("Gather", ["x", "rows"], ["picked"], axis=0),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "zero_axes"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
    ]
    return make_model(
        nodes,
        [
            helper.make_tensor_value_info("x", FLOAT, ["N", 4, 6]),
            helper.make_tensor_value_info("rows", INT64, ["R"]),
        ],
        [
            helper.make_tensor_value_info("flat", FLOAT, ["N", 24]),
            helper.make_tensor_value_info("shape", INT64, [3]),
            helper.make_tensor_value_info("picked", FLOAT, ["R", 4, 6]),
        ],
        initializers,
        "int64_chain",
    )


def unnamed_dims():
    """Inputs whose first dim has neither a size nor a name (ONNX Runtime shows
    None), also on the output."""
    nodes = [helper.make_node("Mul", ["x", "scale"], ["y"])]
    return make_model(
        nodes,
        [
            helper.make_tensor_value_info("x", FLOAT, [None, 5]),
            helper.make_tensor_value_info("scale", FLOAT, [5]),
        ],
        [helper.make_tensor_value_info("y", FLOAT, [None, 5])],
        (),
        "unnamed_dims",
    )


def identity():
    """The output is the input: a runtime could hand back the input's memory."""
    return make_model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", FLOAT, [3, 4])],
        (),
        "identity",
    )


def matmul_chain(size=256, layers=4, seed=3):
    """x [size, size] through `layers` MatMul + Relu: a few ms of single-thread
    work, for the concurrency tests."""
    rng = np.random.default_rng(seed)
    nodes, weights, current = [], [], "x"
    for i in range(layers):
        nodes.append(helper.make_node("MatMul", [current, f"w{i}"], [f"m{i}"]))
        out = "y" if i == layers - 1 else f"r{i}"
        nodes.append(helper.make_node("Relu", [f"m{i}"], [out]))
        weights.append(_weight(rng, f"w{i}", (size, size)))
        current = out
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", FLOAT, ["N", size])],
        [helper.make_tensor_value_info("y", FLOAT, ["N", size])],
        weights,
        "matmul_chain",
    )


# Name -> (builder, inputs for batch n as a function of (rng, n)).
def _cnn_feed(rng, n):
    return {"x": rng.standard_normal((n, 3, 16, 16)).astype(np.float32)}


def _two_branch_feed(rng, n):
    return {"x": rng.standard_normal((n, 32)).astype(np.float32)}


def _multi_output_feed(rng, n):
    return {"x": rng.standard_normal((2, 5)).astype(np.float32)}


def _int64_feed(rng, n):
    return {
        "x": rng.standard_normal((n, 4, 6)).astype(np.float32),
        "rows": rng.integers(0, n, size=4).astype(np.int64),
    }


def _unnamed_feed(rng, n):
    return {
        "x": rng.standard_normal((n, 5)).astype(np.float32),
        "scale": rng.standard_normal(5).astype(np.float32),
    }


def _identity_feed(rng, n):
    return {"x": rng.standard_normal((3, 4)).astype(np.float32)}


BUILT = {
    "cnn": (cnn, _cnn_feed),
    "two_branch": (two_branch, _two_branch_feed),
    "multi_output": (multi_output, _multi_output_feed),
    "int64_chain": (int64_chain, _int64_feed),
    "unnamed_dims": (unnamed_dims, _unnamed_feed),
    "identity": (identity, _identity_feed),
}
