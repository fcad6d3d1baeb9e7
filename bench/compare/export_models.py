"""Turns the shared ONNX models into a plain graph spec the other peers can build.

TensorFlow and PyTorch get no ONNX importer here (onnx-tf is dead, and the
Debian torch has no onnx package); instead each builds the same architecture
from the same weights out of what this script writes into --out, per model NAME:

  NAME.onnx          copy of the model (ONNX Runtime and Loom load it directly)
  NAME.input.npy     the batch-1 input (NCHW, or [1, F] for the MLP)
  NAME.spec.json     the graph: input name and shape, output name, and the
                     nodes in topological order, each {op, name, inputs,
                     outputs, attrs, output_shapes}; attrs are normalized
                     (defaults filled in, pads as [top, left, bottom, right],
                     Clip bounds as numbers), so a builder needs no ONNX rules
  NAME.weights.npz   every initializer and Constant value, keyed by its ONNX
                     name (the names node inputs use)

Only the subset the shared models use is accepted: Conv, Relu, Clip, MaxPool,
Add, GlobalAveragePool, Flatten, Gemm, Softmax, Constant, 2-D spatial, float32,
opset 13 or later. Anything else stops the export with an error that names the
node, so a builder never meets something it silently gets wrong.

    .venv-compare/bin/python bench/compare/export_models.py \
        --models /work/shared/models --out /tmp/compare-specs
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

MODELS = ["resnet18", "mobilenet_v2", "mlp"]
# Opset 13 moved Clip bounds to inputs and made Softmax act on one axis; later
# opsets up to 22 changed only the types these ops accept.
MIN_OPSET, MAX_OPSET = 13, 22


class UnsupportedModel(Exception):
    """The model uses an op or attribute outside the subset the builders know."""


def refuse(node, why):
    label = f"'{node.name}'" if node.name else f"writing '{node.output[0]}'" if node.output else "(unnamed)"
    raise UnsupportedModel(f"{node.op_type} node {label}: {why}")


def attributes(node, allowed):
    """The node's attributes as Python values; refuses any not in `allowed`."""
    values = {}
    for attribute in node.attribute:
        if attribute.name not in allowed:
            refuse(node, f"attribute '{attribute.name}' is not supported")
        values[attribute.name] = onnx.helper.get_attribute_value(attribute)
    return values


def spatial_2d(node, values, name, default):
    value = list(values.get(name, default))
    if len(value) != len(default):
        refuse(node, f"{name}={value}: only 2-D spatial ops are supported")
    return [int(v) for v in value]


def onnx_pads_to_tlbr(node, values):
    """ONNX 2-D pads are [top, left, bottom, right] already (all begins, then all ends)."""
    auto_pad = values.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad != "NOTSET":
        refuse(node, f"auto_pad={auto_pad}: only explicit pads are supported")
    return spatial_2d(node, values, "pads", [0, 0, 0, 0])


def normalize_conv(node, values, weights):
    if len(node.input) not in (2, 3) or node.input[1] not in weights:
        refuse(node, "the weight must be an initializer")
    if len(node.input) == 3 and node.input[2] and node.input[2] not in weights:
        refuse(node, "the bias must be an initializer")
    w = weights[node.input[1]]
    if w.ndim != 4:
        refuse(node, f"weight of rank {w.ndim}: only 2-D convolution is supported")
    kernel = spatial_2d(node, values, "kernel_shape", list(w.shape[2:]))
    if kernel != list(w.shape[2:]):
        refuse(node, f"kernel_shape {kernel} disagrees with the weight {list(w.shape)}")
    group = int(values.get("group", 1))
    return {"out_channels": int(w.shape[0]), "in_channels": int(w.shape[1]) * group,
            "kernel_shape": kernel, "strides": spatial_2d(node, values, "strides", [1, 1]),
            "dilations": spatial_2d(node, values, "dilations", [1, 1]),
            "pads": onnx_pads_to_tlbr(node, values), "group": group,
            "has_bias": len(node.input) == 3 and bool(node.input[2])}


def normalize_maxpool(node, values, weights):
    if len(node.output) != 1:
        refuse(node, "the Indices output is not supported")
    if values.get("ceil_mode", 0) != 0:
        refuse(node, "ceil_mode=1 is not supported")
    if values.get("storage_order", 0) != 0:
        refuse(node, "storage_order=1 is not supported")
    kernel = spatial_2d(node, values, "kernel_shape", [0, 0])
    if spatial_2d(node, values, "dilations", [1, 1]) != [1, 1]:
        refuse(node, "dilated max pooling is not supported")
    return {"kernel_shape": kernel, "strides": spatial_2d(node, values, "strides", [1, 1]),
            "pads": onnx_pads_to_tlbr(node, values)}


def normalize_clip(node, values, weights):
    """Resolves the min/max inputs (Constant or initializer scalars) to numbers; None = unbounded."""
    bounds = {}
    for index, key in ((1, "min"), (2, "max")):
        if len(node.input) > index and node.input[index]:
            source = node.input[index]
            if source not in weights or weights[source].size != 1:
                refuse(node, f"{key} must be a constant scalar, '{source}' is not")
            bounds[key] = float(weights[source].reshape(()))
        else:
            bounds[key] = None
    return bounds


def normalize_gemm(node, values, weights):
    if values.get("transA", 0) != 0:
        refuse(node, "transA=1 is not supported")
    if node.input[1] not in weights:
        refuse(node, "B must be an initializer")
    b = weights[node.input[1]]
    trans_b = int(values.get("transB", 0))
    units = b.shape[0] if trans_b else b.shape[1]
    has_c = len(node.input) == 3 and bool(node.input[2])
    if has_c:
        if node.input[2] not in weights:
            refuse(node, "C must be an initializer")
        if weights[node.input[2]].size != units:
            # A C of shape [M, N] would tie the model to one batch size.
            refuse(node, f"C of shape {list(weights[node.input[2]].shape)}: only a per-unit bias is supported")
    return {"alpha": float(values.get("alpha", 1.0)), "beta": float(values.get("beta", 1.0)),
            "transB": trans_b, "in_features": int(b.shape[1] if trans_b else b.shape[0]),
            "out_features": int(units), "has_c": has_c}


def normalize_flatten(node, values, weights):
    if int(values.get("axis", 1)) != 1:
        refuse(node, f"axis={values['axis']}: only axis 1 (keep the batch) is supported")
    return {"axis": 1}


def normalize_softmax(node, values, weights):
    return {"axis": int(values.get("axis", -1))}


def no_attributes(node, values, weights):
    return {}


def normalize_add(node, values, weights):
    if any(name in weights for name in node.input):
        refuse(node, "adding a constant is not supported, only two activations")
    return {}


# op type -> (allowed ONNX attributes, normalizer)
OPS = {
    "Conv": ({"kernel_shape", "strides", "dilations", "pads", "group", "auto_pad"}, normalize_conv),
    "MaxPool": ({"kernel_shape", "strides", "dilations", "pads", "ceil_mode", "storage_order", "auto_pad"},
                normalize_maxpool),
    "Relu": (set(), no_attributes),
    "Clip": (set(), normalize_clip),
    "Add": (set(), normalize_add),
    "GlobalAveragePool": (set(), no_attributes),
    "Flatten": ({"axis"}, normalize_flatten),
    "Gemm": ({"alpha", "beta", "transA", "transB"}, normalize_gemm),
    "Softmax": ({"axis"}, normalize_softmax),
}


def constant_value(node):
    values = attributes(node, {"value"})
    if "value" not in values:
        refuse(node, "only the 'value' form of Constant is supported")
    return numpy_helper.to_array(values["value"])


def float32_only(name, array):
    if array.dtype != np.float32:
        raise UnsupportedModel(f"'{name}' is {array.dtype}: only float32 tensors are supported")
    return array


def shape_of(value_info):
    dims = value_info.type.tensor_type.shape.dim
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in dims]


def build_spec(model):
    """Returns (spec dict, weights dict) for an ONNX ModelProto."""
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    if opset is None or not MIN_OPSET <= opset <= MAX_OPSET:
        raise UnsupportedModel(f"opset {opset}: only opsets {MIN_OPSET}..{MAX_OPSET} are supported")
    inferred = onnx.shape_inference.infer_shapes(model)
    graph = inferred.graph
    shapes = {vi.name: shape_of(vi) for vi in list(graph.value_info) + list(graph.output)}

    weights = {t.name: float32_only(t.name, numpy_helper.to_array(t)) for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in weights]
    if len(inputs) != 1 or len(graph.output) != 1:
        raise UnsupportedModel("only one graph input and one graph output are supported")
    if inputs[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        raise UnsupportedModel("only a float32 graph input is supported")

    nodes = []
    for index, node in enumerate(graph.node):
        if node.domain not in ("", "ai.onnx"):
            refuse(node, f"domain '{node.domain}' is not supported")
        if node.op_type == "Constant":
            weights[node.output[0]] = float32_only(node.output[0], constant_value(node))
            continue
        if node.op_type not in OPS:
            refuse(node, "op type not supported")
        allowed, normalize = OPS[node.op_type]
        attrs = normalize(node, attributes(node, allowed), weights)
        # Clip's bounds are numbers in attrs now; its only tensor input is the data.
        node_inputs = list(node.input[:1]) if node.op_type == "Clip" else [n for n in node.input if n]
        nodes.append({"op": node.op_type, "name": node.name or f"{node.op_type}_{index}",
                      "inputs": node_inputs, "outputs": list(node.output), "attrs": attrs,
                      "output_shapes": [shapes.get(o) for o in node.output]})

    # ONNX requires topological order; check it rather than trust it.
    known = {inputs[0].name} | set(weights)
    for node in nodes:
        missing = [n for n in node["inputs"] if n not in known]
        if missing:
            raise UnsupportedModel(f"node '{node['name']}' reads {missing} before they are produced")
        known.update(node["outputs"])

    spec = {"opset": opset, "layout": "NCHW",
            "input": {"name": inputs[0].name, "shape": shape_of(inputs[0])},
            "output": {"name": graph.output[0].name, "shape": shape_of(graph.output[0])},
            "nodes": nodes}
    return spec, weights


def export(models_dir, out_dir, name):
    model = onnx.load(os.path.join(models_dir, name + ".onnx"))
    spec, weights = build_spec(model)
    spec["model"] = name
    os.makedirs(out_dir, exist_ok=True)
    for suffix in (".onnx", ".input.npy"):
        shutil.copyfile(os.path.join(models_dir, name + suffix), os.path.join(out_dir, name + suffix))
    with open(os.path.join(out_dir, name + ".spec.json"), "w") as f:
        json.dump(spec, f, indent=1)
    np.savez(os.path.join(out_dir, name + ".weights.npz"), **weights)
    return spec


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True, help="folder with NAME.onnx and NAME.input.npy")
    parser.add_argument("--out", required=True)
    parser.add_argument("--names", default=",".join(MODELS))
    args = parser.parse_args()
    for name in args.names.split(","):
        try:
            spec = export(args.models, args.out, name)
        except UnsupportedModel as error:
            sys.exit(f"export_models: {name}: {error}")
        print(f"{name}: {len(spec['nodes'])} nodes -> {args.out}")


if __name__ == "__main__":
    main()
