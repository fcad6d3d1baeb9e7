"""One QLinearConv per model at ResNet-18's layer shapes, Loom vs ONNX Runtime:
outputs compared (exact integers, so they should agree bit for bit where both
requantize alike) and latency side by side.

    python3 bench/compare/qlinear_conv_layers.py [--out DIR] [--reps 7] [--runs 50]

Models (written to --out, default /tmp/loom-qlinear-conv-layers): uint8 x
with zero point 3, int8 weights with per-channel scales and zero points 0,
an int32 bias, uint8 y; fixed seed. Each cell is the median over --reps
interleaved rounds of each runtime's median of --runs runs, at intra 1 and 2
(inter 1).
"""

import argparse
import os
import pathlib
import platform
import statistics

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import loom
from session_timing import median_run_seconds

#name, input channels, input size, output channels, kernel, stride, pad
SHAPES = [
    ("stem_7x7s2", 3, 224, 64, 7, 2, 3),
    ("l1_3x3", 64, 56, 64, 3, 1, 1),
    ("l2_3x3s2", 64, 56, 128, 3, 2, 1),
    ("l2_3x3", 128, 28, 128, 3, 1, 1),
    ("l2_1x1s2", 64, 56, 128, 1, 2, 0),
    ("l3_3x3", 256, 14, 256, 3, 1, 1),
    ("l4_3x3", 512, 7, 512, 3, 1, 1),
]


def export(out):
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, c, h, m, k, s, p in SHAPES:
        w = rng.integers(-127, 128, size=(m, c, k, k), dtype=np.int8)
        inits = [
            numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
            numpy_helper.from_array(np.array(3, np.uint8), "xzp"),
            numpy_helper.from_array(w, "w"),
            numpy_helper.from_array(rng.random(m).astype(np.float32) * 0.002 + 0.0005, "ws"),
            numpy_helper.from_array(np.zeros(m, np.int8), "wzp"),
            numpy_helper.from_array(np.array(0.03 * np.sqrt(c * k * k), np.float32), "ys"),
            numpy_helper.from_array(np.array(5, np.uint8), "yzp"),
            numpy_helper.from_array(rng.integers(-2000, 2000, size=m, dtype=np.int32), "b"),
        ]
        node = helper.make_node("QLinearConv", ["x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp", "b"],
                                ["y"], kernel_shape=[k, k], strides=[s, s], pads=[p] * 4)
        graph = helper.make_graph(
            [node], name, [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, c, h, h])],
            [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.save(model, str(out / f"{name}.onnx"))
        np.save(out / f"{name}.input.npy", rng.integers(0, 256, size=(1, c, h, h), dtype=np.uint8))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="/tmp/loom-qlinear-conv-layers")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--runs", type=int, default=50)
    args = p.parse_args()
    out = pathlib.Path(args.out)
    export(out)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    print(f"CPU: {cpu}, {os.cpu_count()} logical CPUs; onnxruntime {ort.__version__}; "
          f"median of {args.reps} interleaved rounds of {args.runs} runs\n")
    print("| layer | outputs differing from ORT | intra | Loom us | ORT us | Loom/ORT |")
    print("|---|---|---|---|---|---|")
    for name, *_ in SHAPES:
        model = out / f"{name}.onnx"
        x = np.load(out / f"{name}.input.npy")
        for intra in (1, 2):
            lo = loom.SessionOptions()
            lo.intra_op_num_threads, lo.inter_op_num_threads = intra, 1
            ls = loom.InferenceSession(str(model), lo)
            so = ort.SessionOptions()
            so.intra_op_num_threads, so.inter_op_num_threads = intra, 1
            os_ = ort.InferenceSession(str(model), so, providers=["CPUExecutionProvider"])
            feeds = {"x": x}
            a, b = ls.run(None, feeds)[0], os_.run(None, feeds)[0]
            differing = int(np.count_nonzero(a != b))
            lt, ot = [], []
            for _ in range(args.reps):
                lt.append(1e6 * median_run_seconds(ls, feeds, args.runs))
                ot.append(1e6 * median_run_seconds(os_, feeds, args.runs))
            lm, om = statistics.median(lt), statistics.median(ot)
            print(f"| {name} | {differing} of {a.size} | {intra} | {lm:.0f} | {om:.0f} | "
                  f"{lm / om:.2f} |", flush=True)


if __name__ == "__main__":
    main()
