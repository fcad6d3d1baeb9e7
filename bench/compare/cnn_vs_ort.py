"""Loom's blocked layout vs Loom's NCHW path vs ONNX Runtime, in one process.

For every model in the given folders (NAME.onnx beside NAME.input.npy, the
layout of ../shared/models) and every intra-op thread count (inter-op 1),
three sessions run the same input interleaved: Loom at ORT_ENABLE_ALL (the
NCHWc layout), Loom at ORT_ENABLE_EXTENDED (the same graph kept NCHW: the
engine before the blocked layout) and ONNX Runtime at its default
(ORT_ENABLE_ALL, which includes its own NCHWc transformer). Each round times
--reps runs of each after two warm-ups; a cell's number is the minimum over
--rounds of the per-round medians (the least disturbed round on a shared
machine). Prints a Markdown table and writes --json.

    python3 bench/compare/cnn_vs_ort.py ../shared/models /path/to/more \\
        --threads 1,2 --batch 1 --json bench/results/nchwc-b1.json
"""
import argparse
import glob
import json
import math
import os
import platform
import time

import numpy as np
import onnxruntime as ort

import loom


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times))


def loom_session(path, threads, level):
    so = loom.SessionOptions()
    so.graph_optimization_level = level
    return loom.InferenceSession(path, so, intra_op_num_threads=threads, inter_op_num_threads=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()

    cells = []
    print(f"CPU: {cpu_model()}; batch {a.batch}; inter-op 1; min over {a.rounds} rounds of "
          f"medians of {a.reps}")
    print("| model | intra | Loom NCHWc ms | Loom NCHW ms | ORT ms | NCHWc/ORT | NCHW/ORT |"
          " NCHWc speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    for d in a.dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.onnx"))):
            name = os.path.basename(path)[:-5]
            x = np.load(os.path.join(d, name + ".input.npy"))
            x = np.concatenate([x] * a.batch)
            for threads in map(int, a.threads.split(",")):
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                o = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
                try:
                    blocked = loom_session(path, threads, loom.GraphOptimizationLevel.ORT_ENABLE_ALL)
                    plain = loom_session(path, threads,
                                         loom.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)
                except Exception as e:  # a model Loom cannot load is reported, not hidden
                    print(f"| {name} | {threads} | cannot load: {str(e)[:80]} | | | | | |",
                          flush=True)
                    cells.append({"model": name, "intra": threads, "error": str(e)})
                    continue
                feeds = {
                    "blocked": (blocked, {blocked.get_inputs()[0].name: x}),
                    "plain": (plain, {plain.get_inputs()[0].name: x}),
                    "ort": (o, {o.get_inputs()[0].name: x}),
                }
                best = {k: math.inf for k in feeds}
                for _ in range(a.rounds):
                    for key, (session, feed) in feeds.items():
                        run = lambda: session.run(None, feed)
                        run()
                        run()
                        best[key] = min(best[key], median_ms(run, a.reps))
                cell = {"model": name, "intra": threads, "batch": a.batch,
                        "loom_nchwc_ms": best["blocked"], "loom_nchw_ms": best["plain"],
                        "ort_ms": best["ort"]}
                cells.append(cell)
                print(f"| {name} | {threads} | {best['blocked']:.2f} | {best['plain']:.2f} | "
                      f"{best['ort']:.2f} | {best['blocked'] / best['ort']:.2f} | "
                      f"{best['plain'] / best['ort']:.2f} | "
                      f"{best['plain'] / best['blocked']:.2f} |", flush=True)
    ok = [c for c in cells if "error" not in c]
    if ok:
        def geo(key):
            return math.exp(sum(math.log(c[key] / c["ort_ms"]) for c in ok) / len(ok))
        print(f"\ngeometric mean Loom/ORT: NCHWc {geo('loom_nchwc_ms'):.2f}, "
              f"NCHW {geo('loom_nchw_ms'):.2f}; worst NCHWc "
              f"{max(c['loom_nchwc_ms'] / c['ort_ms'] for c in ok):.2f} over {len(ok)} cells")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_model(), "batch": a.batch, "reps": a.reps, "rounds": a.rounds,
                       "cells": cells}, f, indent=1)


if __name__ == "__main__":
    main()
