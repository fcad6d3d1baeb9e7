"""What every worker shares: the command line, the input, the timed loop, the report.

Each peer runs in its own process (one measurement per process, so no peer
inherits another's thread pools) and prints one JSON object on stdout:

  runtime           "<name> <version>"
  latency_ms        p50, p90, p99, mean over the timed iterations
  throughput_per_s  batch * 1000 / mean latency
  cpu_cores_used    process CPU time / wall time over the timed loop
  threads_total     entries in /proc/self/task after the timed loop
  threads           {thread name with digits stripped: count}
  threads_at_start  the same census when numpy was just imported, before the
                    framework: numpy's own OpenBLAS threads, also named after
                    the process ("python"), are in every worker's count
  settings          which calls set the thread counts (or that none did)
  setup_s           process start to model ready (imports, load, build)
  warmup_s          the warm-up runs (TF traces its function here)
  peak_rss_mb       the process's peak resident memory

Runs under both interpreters (the venv's numpy 2 and Debian's numpy 1.24), so
it needs only the standard library and numpy.
"""
import argparse
import json
import os
import re
import resource
import time

import numpy as np

# Taken at import, which every worker does first: setup_s then covers the
# framework imports too (Python's own start, ~20 ms, is left out).
PROCESS_START = time.perf_counter()


def parse_args(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--spec-dir", required=True, help="what export_models.py wrote")
    parser.add_argument("--model", required=True, help="NAME: reads NAME.* from --spec-dir")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--intra", type=int, help="intra-op threads; omitted: the runtime's default")
    parser.add_argument("--inter", type=int, help="inter-op threads; omitted: the runtime's default")
    parser.add_argument("--save-output", help="write the first output here (.npy, ONNX layout)")
    args = parser.parse_args()
    if args.batch < 1 or args.iterations < 1 or args.warmup < 0:
        parser.error("--batch and --iterations must be >= 1, --warmup >= 0")
    return args


def model_path(args, suffix):
    return os.path.join(args.spec_dir, args.model + suffix)


def load_spec(args):
    with open(model_path(args, ".spec.json")) as f:
        return json.load(f)


def load_weights(args):
    with np.load(model_path(args, ".weights.npz")) as archive:
        return {name: archive[name] for name in archive.files}


def batch_input(args):
    """The batch-1 input tiled --batch times along axis 0, float32, C-contiguous, in ONNX layout."""
    x = np.load(model_path(args, ".input.npy")).astype(np.float32)
    return np.ascontiguousarray(np.concatenate([x] * args.batch, axis=0))


def thread_census():
    """(total, {name without digits: count}) for this process's threads."""
    names = {}
    task_dir = "/proc/self/task"
    tasks = os.listdir(task_dir)
    for tid in tasks:
        try:
            with open(os.path.join(task_dir, tid, "comm")) as f:
                name = re.sub(r"\d+", "", f.read().strip()) or "?"
        except OSError:  # the thread ended between listdir and open
            continue
        names[name] = names.get(name, 0) + 1
    return len(tasks), dict(sorted(names.items()))


# numpy is imported, the framework not yet (workers import this module first).
THREADS_AT_START = thread_census()[1]


class Timer:
    """Runs warm-up then the timed loop; `run` must return only when the work is done."""

    def __init__(self, args):
        self.args = args
        self.ready = time.perf_counter()
        self.warmup_s = 0.0
        self.latencies_ms = []
        self.cpu_s = self.wall_s = 0.0
        self.last_output = None

    def measure(self, run):
        start = time.perf_counter()
        for _ in range(self.args.warmup):
            self.last_output = run()
        self.warmup_s = time.perf_counter() - start
        cpu_start = time.process_time()
        wall_start = time.perf_counter()
        for _ in range(self.args.iterations):
            begin = time.perf_counter()
            self.last_output = run()
            self.latencies_ms.append((time.perf_counter() - begin) * 1e3)
        self.wall_s = time.perf_counter() - wall_start
        self.cpu_s = time.process_time() - cpu_start
        return self.last_output


def report(args, timer, runtime, settings, first_output_in_onnx_layout):
    """Prints the JSON line; `first_output_in_onnx_layout` is called only for --save-output."""
    total, names = thread_census()
    latencies = np.array(timer.latencies_ms, dtype=np.float64)
    mean = float(latencies.mean())
    if args.save_output:
        np.save(args.save_output, np.asarray(first_output_in_onnx_layout(), dtype=np.float32))
    print(json.dumps({
        "runtime": runtime,
        "model": args.model,
        "batch": args.batch,
        "iterations": args.iterations,
        "latency_ms": {"p50": float(np.percentile(latencies, 50)),
                       "p90": float(np.percentile(latencies, 90)),
                       "p99": float(np.percentile(latencies, 99)), "mean": mean},
        "throughput_per_s": args.batch * 1000.0 / mean,
        "cpu_cores_used": timer.cpu_s / timer.wall_s if timer.wall_s > 0 else 0.0,
        "threads_total": total,
        "threads": names,
        "threads_at_start": THREADS_AT_START,
        "settings": settings,
        "setup_s": timer.ready - PROCESS_START,
        "warmup_s": timer.warmup_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }), flush=True)
