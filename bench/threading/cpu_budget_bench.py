"""The process-wide CPU budget under many application threads (issue 19).

Each cell runs in a fresh process (the budget is frozen when the runtime
starts): APP_THREADS application threads call `run` for SECONDS on one shared
session or on one session each, at intra 2 / inter 1, and the cell reports
throughput (runs/s) and CPU use (process CPU time / wall time, in cores).
Budgets: "none" (LOOM_CPU_BUDGET unset: no bound, the default), "usable"
(LOOM_CPU_BUDGET=0: the usable CPUs) and 1. With --pipeline a loom.data pipeline (a map of ~1 ms of NumPy
work per element, parallelism AUTOTUNE) feeds the inputs.

usage: python3 bench/threading/cpu_budget_bench.py [MODEL.onnx] [--seconds S]
       [--threads N] [--rounds R] [--pipeline]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, os, resource, sys, threading, time
import numpy as np, loom
model, sessions, n_threads, seconds, pipeline = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"
make = lambda: loom.InferenceSession(model, intra_op_num_threads=2, inter_op_num_threads=1)
shared = make() if sessions == "one" else None
per_thread = [shared or make() for _ in range(n_threads)]
inp = per_thread[0].get_inputs()[0]
shape = [d if isinstance(d, int) else 1 for d in inp.shape]
x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
if pipeline:
    def prep(e):
        a = np.asarray(e, dtype=np.float32)
        for _ in range(20):
            a = np.tanh(a)
        return a
    ds = loom.data.Dataset.from_tensor_slices(np.repeat(x, 64, axis=0)).repeat().map(prep, num_parallel_calls=loom.data.AUTOTUNE).prefetch(4)
    it = iter(ds)
    lock = threading.Lock()
    def feed():
        with lock:
            return next(it).reshape(shape)
else:
    feed = lambda: x
for s in per_thread[:1] if shared else per_thread:
    s.run(None, {inp.name: x})
done = [0] * n_threads
stop = time.perf_counter() + seconds
def work(i):
    s = per_thread[i]
    while time.perf_counter() < stop:
        s.run(None, {inp.name: feed()})
        done[i] += 1
t0 = time.perf_counter(); c0 = time.process_time()
threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
[t.start() for t in threads]; [t.join() for t in threads]
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
d = loom.config.threading.describe()
print(json.dumps({"runs_per_s": sum(done) / wall, "cores": cpu / wall, "min_thread_runs": min(done),
                  "budget": d["cpu_budget"]["value"], "source": d["cpu_budget"]["source"]}))
"""


def cell(model, sessions, budget, threads, seconds, pipeline):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOM_", "OMP_", "TF_"))}
    if budget == "usable":
        env["LOOM_CPU_BUDGET"] = "0"
    elif budget != "none":
        env["LOOM_CPU_BUDGET"] = str(budget)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, model, sessions, str(threads), str(seconds), "1" if pipeline else "0"],
        env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_model = os.path.join(here, "..", "..", "..", "shared", "models", "mobilenet_v2.onnx")
    ap = argparse.ArgumentParser()
    ap.add_argument("model", nargs="?", default=default_model)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pipeline", action="store_true")
    a = ap.parse_args()
    cells = [(s, b) for s in ("one", "each") for b in ("none", "usable", 1)]
    results = {c: [] for c in cells}
    for _ in range(a.rounds):  # interleaved rounds
        for s, b in cells:
            results[(s, b)].append(cell(a.model, s, b, a.threads, a.seconds, a.pipeline))
    print(f"model {os.path.basename(a.model)}, {a.threads} application threads, intra 2, inter 1, "
          f"{a.seconds:.0f} s a cell, median of {a.rounds} interleaved rounds"
          + (", inputs from a loom.data pipeline" if a.pipeline else ""))
    print("| sessions | budget | runs/s | cores used (CPU time / wall) | fewest runs by one thread |")
    print("|---|---|---|---|---|")
    for s, b in cells:
        r = results[(s, b)]
        med = lambda k: statistics.median(x[k] for x in r)
        label = {"none": "none (unset)", "usable": f"0 = usable CPUs ({r[0]['budget']})", 1: "1"}[b]
        print(f"| {'one shared' if s == 'one' else 'one per thread'} | {label} | {med('runs_per_s'):.1f} | "
              f"{med('cores'):.2f} | {min(x['min_thread_runs'] for x in r)} |")


if __name__ == "__main__":
    main()
