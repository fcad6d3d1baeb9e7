#!/usr/bin/env python3
"""A/B of two `loom` binaries (before / after a change) on the shared models.

Each configuration runs REPS times per binary in separate processes, the two
binaries alternating (which goes first flips every rep), and prints a
Markdown row with the median p50 latency of each and their ratio.

Usage: ab_binaries.py OLD_LOOM NEW_LOOM [--reps 6] [--models ../shared/models]
       [--only MODEL:BATCH:INTRA:SPIN ...]
Configurations: inter 1; intra 1 and 2; LOOM_SPIN_WAIT_US 50 (the default)
and 0 (block at once); batch 1 and 8 (the batch-1 input tiled).
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

import numpy as np

CONFIGS = [("resnet18", 1, 1, 50), ("resnet18", 1, 2, 50), ("resnet18", 1, 2, 0),
           ("resnet18", 1, 1, 0), ("resnet18", 8, 2, 50), ("resnet18", 8, 2, 0),
           ("mobilenet_v2", 1, 1, 50), ("mobilenet_v2", 1, 2, 50), ("mobilenet_v2", 1, 2, 0),
           ("mobilenet_v2", 8, 2, 50)]


def run(binary, models, model, batch, intra, spin, inputs):
    cmd = [binary, "run", os.path.join(models, model + ".onnx"), "--intra", str(intra), "--inter", "1",
           "--batch", str(batch), "--warmup", "2", "--iterations", "6" if batch > 1 else "20", "--json"]
    if batch > 1:
        cmd += ["--input", f"{inputs[model][0]}={inputs[model][1][batch]}"]
    env = dict(os.environ, LOOM_SPIN_WAIT_US=str(spin))
    report = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    return report["latency_ms"]["p50"], report["cpu_cores_used"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--models", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "models"))
    parser.add_argument("--only", nargs="*", help="MODEL:BATCH:INTRA:SPIN")
    args = parser.parse_args()
    configs = CONFIGS if not args.only else [
        (m, int(b), int(i), int(s)) for m, b, i, s in (o.split(":") for o in args.only)]
    tmp = tempfile.mkdtemp()
    inputs = {}
    for model in {c[0] for c in configs}:
        name = open(os.path.join(args.models, model + ".input_name")).read().strip()
        x = np.load(os.path.join(args.models, model + ".input.npy"))
        files = {}
        for batch in {c[1] for c in configs if c[0] == model}:
            files[batch] = os.path.join(tmp, f"{model}_b{batch}.npy")
            np.save(files[batch], np.concatenate([x] * batch))
        inputs[model] = (name, files)
    print("| model | batch | intra | spin µs | before ms | after ms | after/before | CPU before / after |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for config in configs:
        results = {"old": [], "new": []}
        for rep in range(args.reps):
            for which in (("old", "new") if rep % 2 == 0 else ("new", "old")):
                binary = args.old if which == "old" else args.new
                results[which].append(run(binary, args.models, *config, inputs))
        old = statistics.median(p for p, _ in results["old"])
        new = statistics.median(p for p, _ in results["new"])
        old_cpu = statistics.median(c for _, c in results["old"])
        new_cpu = statistics.median(c for _, c in results["new"])
        model, batch, intra, spin = config
        print(f"| {model} | {batch} | {intra} | {spin} | {old:.2f} | {new:.2f} | {new / old:.3f} | "
              f"{old_cpu:.2f} / {new_cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
