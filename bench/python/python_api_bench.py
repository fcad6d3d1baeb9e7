#!/usr/bin/env python3
"""What the Python layer costs, measured side by side with onnxruntime.

Three sections, each printing medians over --reps rounds (configurations
interleaved inside a round, so drift on a shared machine hits all of them):

  overhead  µs per InferenceSession.run on a one-node model (Relu on
            [1, 16]), Loom vs onnxruntime, both with one intra and one
            inter thread: the binding's fixed cost per call.
  copies    µs per run of a one-Relu model on a 1x3x224x224
            input given C-contiguous (read in place) vs as a strided view
            (copied first): what zero-copy saves.
  threads   runs/s of the MLP (shared model, batch 1, intra 1, inter 1) from
            1 vs 2 Python threads on one session, and process CPU use: does
            run() release the GIL?

Usage: python3 bench/python/python_api_bench.py [--reps 7] [--models ../shared/models]
       [--json FILE]
"""

import argparse
import json
import os
import statistics
import threading
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

import loom

try:
    import onnxruntime as ort
except ImportError:  # the overhead section needs it; the others do not
    ort = None


def relu_model(shape):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def time_calls(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6  # µs per call


def overhead(reps):
    model = relu_model([1, 16])
    x = np.ones((1, 16), np.float32)
    sessions = {"loom": loom.InferenceSession(model, intra_op_num_threads=1, inter_op_num_threads=1)}
    if ort is not None:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sessions["onnxruntime"] = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    samples = {name: [] for name in sessions}
    for _ in range(reps):
        for name, sess in sessions.items():
            samples[name].append(time_calls(lambda: sess.run(None, {"x": x}), 5000))
    return {name: statistics.median(v) for name, v in samples.items()}


def copies(reps):
    sess = loom.InferenceSession(relu_model([1, 3, 224, 224]), intra_op_num_threads=1,
                                 inter_op_num_threads=1)
    contiguous = np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)
    strided = np.random.default_rng(0).standard_normal((1, 3, 224, 448), dtype=np.float32)[..., ::2]
    samples = {"contiguous (in place)": [], "strided view (copied)": []}
    for _ in range(reps):
        samples["contiguous (in place)"].append(time_calls(lambda: sess.run(None, {"x": contiguous}), 300))
        samples["strided view (copied)"].append(time_calls(lambda: sess.run(None, {"x": strided}), 300))
    return {name: statistics.median(v) for name, v in samples.items()}


def threads(reps, models):
    path = os.path.join(models, "mlp.onnx")
    if not os.path.exists(path):
        return {"skipped": f"{path} not found"}
    sess = loom.InferenceSession(path, intra_op_num_threads=1, inter_op_num_threads=1)
    name = sess.get_inputs()[0].name
    x = np.load(os.path.join(models, "mlp.input.npy"))
    runs_per_thread = 2000

    def phase(n_threads):
        workers = [threading.Thread(target=lambda: [sess.run(None, {name: x}) for _ in range(runs_per_thread)])
                   for _ in range(n_threads)]
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        return n_threads * runs_per_thread / wall, cpu / wall

    samples = {1: [], 2: []}
    for _ in range(reps):
        for n in (1, 2):
            samples[n].append(phase(n))
    result = {}
    for n, values in samples.items():
        result[f"{n} python threads"] = {
            "runs_per_s": statistics.median(v[0] for v in values),
            "cpu_cores": statistics.median(v[1] for v in values),
        }
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--models", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "models"))
    parser.add_argument("--json")
    args = parser.parse_args()
    results = {
        "versions": {"loom": loom.__version__, "onnxruntime": ort.__version__ if ort else None,
                     "numpy": np.__version__, "onnx": onnx.__version__},
        "overhead_us_per_run": overhead(args.reps),
        "copies_us_per_run": copies(args.reps),
        "threads": threads(args.reps, args.models),
    }
    print(json.dumps(results, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
