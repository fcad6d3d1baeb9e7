"""Single-layer ONNX models for A/B runs of one kernel shape, Loom vs ONNX Runtime.

usage: python3 bench/compare/layer_models.py OUT_DIR

Writes, for each shape below, NAME.onnx with NAME.input.npy and
NAME.input_name beside it (the layout ../shared/tools/vs_onnxruntime.py and
bench/compare/ab_trace.py read):

  dw_C_H_K_S       four depthwise KxK convs (the first at stride S) + Relu on
                   C channels at H x H, "same" padding
  silu_C_H_K_S     three depthwise convs + SiLU (Sigmoid, Mul)
  pw_C_M_H         a 1x1 conv C -> M at H x H + Relu
  proj_C_M_H       a 1x1 stride-2 conv C -> M from H x H + Relu (the
                   downsampling shortcut of RegNet and ResNet blocks)
  gS_C_H_s2        a grouped 3x3/2 conv, C channels in S groups, + Relu
  gemm_cold        sixteen 1 x 1280 x 1280 Gemms: 105 MB of weights, more
                   than the last-level cache, so each is read from DRAM
  resize_up8       Relu, then a linear half_pixel Resize 28^2 -> 224^2 on 21
                   channels (LR-ASPP's last node)

Each chain feeds one layer's output to the next of the same shape, so the
per-node minima of a profile (bench/compare/ab_trace.py --per-node, or
ONNX Runtime's profiler) time the same layer several times.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(out_dir, name, nodes, inits, in_shape, out_shape, rng):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, out_shape)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    base = os.path.join(out_dir, name)
    onnx.save(model, base + ".onnx")
    np.save(base + ".input.npy", rng.standard_normal(in_shape, dtype=np.float32))
    with open(base + ".input_name", "w") as f:
        f.write("x")


def depthwise_chain(out_dir, rng, c, h, k, s, layers=4, silu=False):
    nodes, inits, x = [], [], "x"
    for i in range(layers):
        inits += [numpy_helper.from_array(rng.standard_normal((c, 1, k, k), dtype=np.float32) * 0.3, f"w{i}"),
                  numpy_helper.from_array(rng.standard_normal(c).astype(np.float32) * 0.1, f"b{i}")]
        stride = s if i == 0 else 1
        nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"], name=f"dw{i}", group=c,
                                      kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride, stride]))
        if silu:
            nodes.append(helper.make_node("Sigmoid", [f"c{i}"], [f"s{i}"], name=f"sig{i}"))
            nodes.append(helper.make_node("Mul", [f"c{i}", f"s{i}"], [f"r{i}"], name=f"mul{i}"))
        else:
            nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"))
        x = f"r{i}"
    out = (h + s - 1) // s
    name = f"{'silu' if silu else 'dw'}_{c}_{h}_{k}_{s}"
    save(out_dir, name, nodes, inits, [1, c, h, h], [1, c, out, out], rng)


def conv(out_dir, rng, name, c, m, h, k, s, groups):
    inits = [numpy_helper.from_array(rng.standard_normal((m, c // groups, k, k), dtype=np.float32) * 0.1, "w"),
             numpy_helper.from_array(np.zeros(m, np.float32), "b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", group=groups, kernel_shape=[k, k],
                              pads=[k // 2] * 4, strides=[s, s]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    out = (h + s - 1) // s
    save(out_dir, name, nodes, inits, [1, c, h, h], [1, m, out, out], rng)


def gemm_cold(out_dir, rng, n=1280, layers=16):
    nodes, inits, x = [], [], "x"
    for i in range(layers):
        inits += [numpy_helper.from_array(rng.standard_normal((n, n), dtype=np.float32) * 0.03, f"w{i}"),
                  numpy_helper.from_array(np.zeros(n, np.float32), f"b{i}")]
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [f"y{i}"], name=f"g{i}", transB=1))
        x = f"y{i}"
    save(out_dir, "gemm_cold", nodes, inits, [1, n], [1, n], rng)


def resize_up8(out_dir, rng):
    inits = [numpy_helper.from_array(np.array([1, 21, 224, 224], dtype=np.int64), "sizes")]
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Resize", ["r", "", "", "sizes"], ["y"], name="resize", mode="linear",
                              coordinate_transformation_mode="half_pixel")]
    save(out_dir, "resize_up8", nodes, inits, [1, 21, 28, 28], [1, 21, 224, 224], rng)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    for c, h, k, s in [(72, 56, 3, 1), (144, 56, 3, 1), (192, 28, 3, 1), (480, 14, 3, 1), (960, 7, 3, 1),
                       (72, 56, 5, 2), (480, 14, 5, 1)]:
        depthwise_chain(out_dir, rng, c, h, k, s)
    for c, h, k, s in [(96, 112, 3, 2), (240, 28, 5, 1)]:
        depthwise_chain(out_dir, rng, c, h, k, s, layers=3, silu=True)
    for c, m, h in [(16, 64, 112), (16, 64, 56), (32, 32, 112), (576, 96, 14)]:
        conv(out_dir, rng, f"pw_{c}_{m}_{h}", c, m, h, 1, 1, 1)
    for c, m, h in [(32, 32, 112), (32, 64, 56), (64, 160, 28), (160, 400, 14), (256, 512, 56), (512, 1024, 28)]:
        conv(out_dir, rng, f"proj_{c}_{m}_{h}", c, m, h, 1, 2, 1)
    conv(out_dir, rng, "g2_32_112_s2", 32, 32, 112, 3, 2, 2)
    conv(out_dir, rng, "g4_64_56_s2", 64, 64, 56, 3, 2, 4)
    gemm_cold(out_dir, rng)
    resize_up8(out_dir, rng)


if __name__ == "__main__":
    main()
