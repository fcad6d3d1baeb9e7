"""Checks the Keras and torch builders on the attributes the shared models do not exercise.

The shared models pad symmetrically and pool only after a ReLU, where zero
padding and -inf padding give the same max. This builds a small ONNX model
that would expose a builder getting those wrong, and runs it through the three
workers (ONNX Runtime as the reference, TensorFlow, PyTorch), at batch 1 and 3:

  - Conv with asymmetric pads, dilation 2; Conv with stride (2, 1) and a 3x2 kernel
  - MaxPool on all-negative-capable values with symmetric pads (must act as
    -inf padding) and with asymmetric pads [0, 1, 1, 0]
  - depthwise Conv with multiplier 2 and stride 2
  - Clip(-0.5, 0.25) and Clip(-0.3, none); Relu; Add
  - GlobalAveragePool, Flatten, Gemm with transB=0, alpha 0.5, beta 2, Softmax(axis=1)
  - export_models refusing what is outside the subset

    .venv-compare/bin/python bench/compare/builders_test.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_models  # noqa: E402

NAME = "edge_cases"


def edge_case_model(rng):
    def weight(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.5, name)

    def constant(name, value):
        return helper.make_node("Constant", [], [name], name=name,
                                value=numpy_helper.from_array(np.array(value, dtype=np.float32)))

    node = helper.make_node
    nodes = [
        # Branch 1: dilated conv, -inf-padded pool, depthwise, bounded clip, 1x1 conv, relu.
        node("Conv", ["x", "w1", "b1"], ["c1"], name="conv_dilated_asym", dilations=[2, 2], pads=[2, 1, 2, 3]),
        node("MaxPool", ["c1"], ["m1"], name="pool_sym", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("Conv", ["m1", "wd", "bd"], ["d1"], name="conv_depthwise", group=6, strides=[2, 2], pads=[1, 1, 1, 1]),
        constant("lo", -0.5), constant("hi", 0.25),
        node("Clip", ["d1", "lo", "hi"], ["k1"], name="clip_both"),
        node("Conv", ["k1", "wp"], ["p1"], name="conv_pointwise_nobias"),
        node("Relu", ["p1"], ["r1"], name="relu"),
        node("GlobalAveragePool", ["r1"], ["g1"], name="gap1"),
        # Branch 2: strided non-square conv, asymmetric pool, clip with only a lower bound.
        node("Conv", ["x", "w2", "b2"], ["c2"], name="conv_strided", strides=[2, 1], pads=[1, 0, 1, 1]),
        node("MaxPool", ["c2"], ["m2"], name="pool_asym", kernel_shape=[2, 2], pads=[0, 1, 1, 0]),
        constant("floor", -0.3),
        node("Clip", ["m2", "floor"], ["k2"], name="clip_min_only"),
        node("GlobalAveragePool", ["k2"], ["g2"], name="gap2"),
        node("Add", ["g1", "g2"], ["a"], name="add"),
        node("Flatten", ["a"], ["f"], name="flatten"),
        node("Gemm", ["f", "wg", "bg"], ["gm"], name="gemm", alpha=0.5, beta=2.0, transB=0),
        node("Softmax", ["gm"], ["y"], name="softmax", axis=1),
    ]
    initializers = [weight("w1", 6, 4, 3, 3), weight("b1", 6), weight("w2", 6, 4, 3, 2), weight("b2", 6),
                    weight("wd", 12, 1, 3, 3), weight("bd", 12), weight("wp", 6, 12, 1, 1),
                    weight("wg", 6, 5), weight("bg", 5)]
    graph = helper.make_graph(
        nodes, NAME, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


def run_worker(python, runtime, spec_dir, batch, out_file):
    command = [python, os.path.join(HERE, "workers", f"{runtime}_worker.py"), "--spec-dir", spec_dir,
               "--model", NAME, "--batch", str(batch), "--warmup", "0", "--iterations", "1",
               "--save-output", out_file]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{runtime} worker failed:\n{result.stderr[-3000:]}")
    return np.load(out_file)


def check_refusals():
    """Each case must raise UnsupportedModel, not export something a builder would get wrong."""
    def one_node_model(node, opset=13):
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    cases = {
        "unknown op": one_node_model(helper.make_node("Sigmoid", ["x"], ["y"])),
        "MaxPool ceil_mode": one_node_model(helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2],
                                                             ceil_mode=1)),
        "Flatten axis 2": one_node_model(helper.make_node("Flatten", ["x"], ["y"], axis=2)),
        "Clip bound not constant": one_node_model(helper.make_node("Clip", ["x", "x"], ["y"])),
        "opset 11": one_node_model(helper.make_node("Relu", ["x"], ["y"]), opset=11),
    }
    failures = 0
    for label, model in cases.items():
        try:
            export_models.build_spec(model)
            print(f"FAIL refusal: {label} was exported")
            failures += 1
        except export_models.UnsupportedModel as error:
            print(f"ok   refusal: {label}: {error}")
    return failures


def main():
    rng = np.random.default_rng(8)
    failures = check_refusals()
    with tempfile.TemporaryDirectory() as tmp:
        onnx.save(edge_case_model(rng), os.path.join(tmp, NAME + ".onnx"))
        np.save(os.path.join(tmp, NAME + ".input.npy"), rng.standard_normal((1, 4, 9, 9)).astype(np.float32))
        spec_dir = os.path.join(tmp, "specs")
        export_models.export(tmp, spec_dir, NAME)
        for batch in (1, 3):
            ort = run_worker(sys.executable, "ort", spec_dir, batch, os.path.join(tmp, "ort.npy"))
            for runtime, python in (("tf", sys.executable), ("torch", "/usr/bin/python3")):
                out = run_worker(python, runtime, spec_dir, batch, os.path.join(tmp, runtime + ".npy"))
                scale = float(np.max(np.abs(ort)))
                ok = out.shape == ort.shape and np.allclose(out, ort, rtol=1e-3, atol=1e-4 * scale)
                diff = float(np.max(np.abs(out - ort))) if out.shape == ort.shape else float("inf")
                print(f"{'ok  ' if ok else 'FAIL'} {runtime:5s} b{batch} vs onnxruntime: max|diff| {diff:.3g}")
                failures += not ok
    print("builders_test:", "passed" if not failures else f"{failures} FAILED")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
