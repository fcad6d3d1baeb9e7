"""Times one ONNX Runtime configuration in its own process and prints JSON.

Called by run_vs_onnxruntime.py; mirrors what `loom run --json` reports:
median latency over the timed iterations, CPU cores used (process CPU time /
wall time) and the OS threads of the process.
"""
import argparse
import json
import os
import resource
import time

import numpy as np
import onnxruntime as ort


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--input", required=True, help=".npy with batch 1")
    parser.add_argument("--intra", type=int, required=True)
    parser.add_argument("--inter", type=int, required=True)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--save-output", help="write the first output here (.npy)")
    args = parser.parse_args()

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.intra
    options.inter_op_num_threads = args.inter
    # ORT only uses its inter-op pool in parallel mode; inter 1 = sequential.
    options.execution_mode = (ort.ExecutionMode.ORT_PARALLEL if args.inter > 1
                              else ort.ExecutionMode.ORT_SEQUENTIAL)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    x = np.load(args.input)
    x = np.concatenate([x] * args.batch, axis=0) if args.batch > 1 else x

    for _ in range(args.warmup):
        session.run(None, {name: x})
    latencies = []
    cpu_start = time.process_time()
    wall_start = time.perf_counter()
    for _ in range(args.iterations):
        start = time.perf_counter()
        out = session.run(None, {name: x})
        latencies.append((time.perf_counter() - start) * 1e3)
    wall = time.perf_counter() - wall_start
    cpu = time.process_time() - cpu_start
    threads = len(os.listdir("/proc/self/task"))
    if args.save_output:
        np.save(args.save_output, out[0])
    print(json.dumps({
        "runtime": "onnxruntime " + ort.__version__,
        "latency_ms": {"p50": float(np.median(latencies)), "mean": float(np.mean(latencies))},
        "cpu_cores_used": cpu / wall,
        "threads_total": threads,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "output_checksum": float(np.sum(out[0], dtype=np.float64)),
    }))


if __name__ == "__main__":
    main()
