"""Model-local ONNX functions (onnx.helper.make_function) load in Loom, which
inlines them, and give ONNX Runtime's results (and those of the model
onnx.inliner inlines): a custom-domain layer norm called twice with its
epsilon given, defaulted and passed on through an attribute reference of
another function."""
import numpy as np
import pytest

import loom
from conftest import assert_close

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper  # noqa: E402
import onnx.inliner  # noqa: E402

FLOAT = onnx.TensorProto.FLOAT
DOMAIN = "custom.ops"
OPSET = 18


def layer_norm_like():
    """custom.ops::LayerNormLike(x, scale) => (y), over the last axis, with
    an `epsilon` attribute (default 1e-5) that a Constant takes by reference."""
    epsilon = helper.make_attribute_ref("value_float", FLOAT)
    epsilon.ref_attr_name = "epsilon"
    constant = helper.make_node("Constant", [], ["eps"])
    constant.attribute.append(epsilon)
    nodes = [
        helper.make_node("Constant", [], ["axes"],
                         value=numpy_helper.from_array(np.array([-1], np.int64))),
        helper.make_node("ReduceMean", ["x", "axes"], ["mean"]),
        helper.make_node("Sub", ["x", "mean"], ["d"]),
        helper.make_node("Mul", ["d", "d"], ["sq"]),
        helper.make_node("ReduceMean", ["sq", "axes"], ["var"]),
        constant,
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["d", "sd"], ["n"]),
        helper.make_node("Mul", ["n", "scale"], ["y"]),
    ]
    return helper.make_function(
        DOMAIN, "LayerNormLike", ["x", "scale"], ["y"], nodes,
        opset_imports=[helper.make_opsetid("", OPSET)],
        attribute_protos=[helper.make_attribute("epsilon", 1e-5)])


def residual():
    """custom.ops::Residual(x, scale) => (y): x + LayerNormLike(x, scale),
    its attribute `eps` passed on as LayerNormLike's `epsilon`."""
    call = helper.make_node("LayerNormLike", ["x", "scale"], ["ln"], domain=DOMAIN)
    eps = helper.make_attribute_ref("epsilon", FLOAT)
    eps.ref_attr_name = "eps"
    call.attribute.append(eps)
    nodes = [call, helper.make_node("Add", ["x", "ln"], ["y"])]
    return helper.make_function(
        DOMAIN, "Residual", ["x", "scale"], ["y"], nodes,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(DOMAIN, 1)],
        attributes=["eps"])


def function_model():
    rng = np.random.default_rng(11)
    nodes = [
        # Two calls, one giving epsilon, one taking the default: their
        # internal values (d, var, eps, ...) must not collide.
        helper.make_node("LayerNormLike", ["x", "scale"], ["a"], domain=DOMAIN, name="ln1",
                         epsilon=0.5),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("LayerNormLike", ["r", "scale"], ["b"], domain=DOMAIN),
        helper.make_node("Residual", ["b", "scale"], ["y"], domain=DOMAIN, name="res", eps=0.25),
    ]
    graph = helper.make_graph(
        nodes, "functions",
        [helper.make_tensor_value_info("x", FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("a", FLOAT, ["N", 8]),
         helper.make_tensor_value_info("y", FLOAT, ["N", 8])],
        initializer=[numpy_helper.from_array(
            rng.uniform(0.5, 1.5, 8).astype(np.float32), "scale")])
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(DOMAIN, 1)],
        functions=[layer_norm_like(), residual()])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model


def run_loom(model, feeds):
    return loom.InferenceSession(model.SerializeToString()).run(None, feeds)


def run_ort(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def test_functions_called_twice_match_onnxruntime():
    model = function_model()
    x = np.random.default_rng(12).standard_normal((3, 8)).astype(np.float32)
    got = run_loom(model, {"x": x})
    expected = run_ort(model, {"x": x})
    assert len(got) == 2
    for a, b in zip(got, expected):
        assert_close(a, b)


def test_same_outputs_as_the_model_onnx_inlines_itself():
    # onnx.inliner is an independent implementation of the same rewrite. It
    # (onnx 1.19) drops a reference the call does not set instead of taking
    # the function's attribute_proto default, so here every call sets it.
    model = function_model()
    model.graph.node[2].attribute.append(helper.make_attribute("epsilon", 1e-5))
    inlined = onnx.inliner.inline_local_functions(model)
    assert not inlined.functions
    x = np.random.default_rng(13).standard_normal((2, 8)).astype(np.float32)
    for a, b in zip(run_loom(model, {"x": x}), run_loom(inlined, {"x": x})):
        np.testing.assert_array_equal(a, b)


def test_epsilon_reference_reaches_the_body():
    # With epsilon 0.5 on a row of variance 1, the normalized row is
    # d / sqrt(1.5): worked out here, not by either runtime.
    model = function_model()
    x = np.array([[1, -1, 1, -1, 1, -1, 1, -1]], np.float32)  # mean 0, variance 1
    scale = numpy_helper.to_array(model.graph.initializer[0])
    a = run_loom(model, {"x": x})[0]
    assert_close(a, x / np.sqrt(np.float32(1.5)) * scale)


def test_function_with_an_unknown_op_names_it():
    model = function_model()
    model.functions[0].node[1].op_type = "NoSuchReduce"
    with pytest.raises(loom.errors.InvalidArgumentError, match="NoSuchReduce"):
        loom.InferenceSession(model.SerializeToString())
