"""`loom run` side by side with ONNX Runtime on the shared models.

For every model x (intra, inter) x batch cell, runs `loom run --json` and an
ONNX Runtime worker (ort_worker.py), each in its own process, alternating
which goes first, --reps times; reports the median of the per-process median
latencies and the Loom/ORT ratio (< 1: Loom faster).

    bench/onnx/setup_venv.sh
    .venv/bin/python bench/onnx/run_vs_onnxruntime.py --loom build/release/bin/loom \
        --models ../shared/models --out bench/results/onnx-run-vs-ort-<date>
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = [(1, 1), (2, 1), (1, 2), (2, 2)]


def run_json(command):
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"command failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    return json.loads(result.stdout)


def loom_cell(loom, model, input_npy, input_name, intra, inter, batch, iterations):
    command = [loom, "run", model, "--intra", str(intra), "--inter", str(inter), "--batch", str(batch),
               "--warmup", "3", "--iterations", str(iterations), "--json"]
    if batch == 1:
        command += ["--input", f"{input_name}={input_npy}"]
    report = run_json(command)
    return {"p50": report["latency_ms"]["p50"], "cpu": report["cpu_cores_used"],
            "threads": report["threads"]["total"], "checksum": report["outputs"][0]["checksum"]}


def ort_cell(model, input_npy, intra, inter, batch, iterations):
    report = run_json([sys.executable, os.path.join(HERE, "ort_worker.py"), model, "--input", input_npy,
                       "--intra", str(intra), "--inter", str(inter), "--batch", str(batch),
                       "--warmup", "3", "--iterations", str(iterations)])
    return {"p50": report["latency_ms"]["p50"], "cpu": report["cpu_cores_used"],
            "threads": report["threads_total"], "version": report["runtime"],
            "checksum": report["output_checksum"]}


def compare_outputs(loom, model, input_npy, input_name):
    """Max |Loom - ORT| and whether allclose(rtol 1e-3, atol 1e-4) holds."""
    with tempfile.TemporaryDirectory() as tmp:
        report = run_json([loom, "run", model, "--input", f"{input_name}={input_npy}",
                           "--iterations", "1", "--warmup", "0", "--save-outputs", tmp, "--json"])
        loom_out = np.load(os.path.join(tmp, report["outputs"][0]["name"] + ".npy"))
        ort_file = os.path.join(tmp, "ort.npy")
        run_json([sys.executable, os.path.join(HERE, "ort_worker.py"), model, "--input", input_npy,
                  "--intra", "1", "--inter", "1", "--warmup", "0", "--iterations", "1",
                  "--save-output", ort_file])
        ort_out = np.load(ort_file)
    return {"max_abs_diff": float(np.max(np.abs(loom_out - ort_out))),
            "allclose": bool(np.allclose(loom_out, ort_out, rtol=1e-3, atol=1e-4))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loom", default="build/release/bin/loom")
    parser.add_argument("--models", default=os.path.join(HERE, "../../../shared/models"))
    parser.add_argument("--names", default="mlp,mobilenet_v2,resnet18")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--out", required=True, help="path prefix for .md and .json")
    args = parser.parse_args()

    rows = []
    agreements = {}
    for name in args.names.split(","):
        model = os.path.join(args.models, name + ".onnx")
        input_npy = os.path.join(args.models, name + ".input.npy")
        with open(os.path.join(args.models, name + ".input_name")) as f:
            input_name = f.read().strip()
        agreement = compare_outputs(args.loom, model, input_npy, input_name)
        agreements[name] = agreement
        print(f"{name}: Loom vs ORT max |diff| {agreement['max_abs_diff']:.3g}, "
              f"allclose(rtol 1e-3, atol 1e-4) {agreement['allclose']}", flush=True)
        for batch in [int(b) for b in args.batches.split(",")]:
            iterations = max(5, args.iterations // batch) if name != "mlp" else args.iterations * 5
            for intra, inter in SETTINGS:
                loom_samples, ort_samples = [], []
                for rep in range(args.reps):
                    order = [0, 1] if rep % 2 == 0 else [1, 0]
                    for which in order:
                        if which == 0:
                            loom_samples.append(loom_cell(args.loom, model, input_npy, input_name,
                                                          intra, inter, batch, iterations))
                        else:
                            ort_samples.append(ort_cell(model, input_npy, intra, inter, batch,
                                                        iterations))
                loom_p50 = statistics.median(s["p50"] for s in loom_samples)
                ort_p50 = statistics.median(s["p50"] for s in ort_samples)
                row = {"model": name, "batch": batch, "intra": intra, "inter": inter,
                       "loom_ms": loom_p50, "ort_ms": ort_p50, "ratio": loom_p50 / ort_p50,
                       "loom_cpu": statistics.median(s["cpu"] for s in loom_samples),
                       "ort_cpu": statistics.median(s["cpu"] for s in ort_samples),
                       "loom_threads": loom_samples[0]["threads"],
                       "ort_threads": ort_samples[0]["threads"],
                       "ort_version": ort_samples[0]["version"]}
                if batch == 1:
                    # Same input file for both: the outputs' sums must agree.
                    a, b = loom_samples[0]["checksum"], ort_samples[0]["checksum"]
                    row["checksums_agree"] = abs(a - b) <= 1e-3 * max(1.0, abs(b))
                    row["loom_checksum"], row["ort_checksum"] = a, b
                rows.append(row)
                print(f"{name:13s} b{batch} intra{intra} inter{inter}: loom {loom_p50:8.3f} ms  "
                      f"ort {ort_p50:8.3f} ms  ratio {row['ratio']:.2f}", flush=True)

    with open(args.out + ".json", "w") as f:
        json.dump({"cells": rows, "output_agreement": agreements}, f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write("| model | batch | intra | inter | Loom p50 ms | ORT p50 ms | Loom/ORT | "
                "Loom CPU cores | ORT CPU cores | Loom threads | ORT threads |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['model']} | {r['batch']} | {r['intra']} | {r['inter']} | {r['loom_ms']:.3f} | "
                    f"{r['ort_ms']:.3f} | {r['ratio']:.2f} | {r['loom_cpu']:.2f} | {r['ort_cpu']:.2f} | "
                    f"{r['loom_threads']} | {r['ort_threads']} |\n")
        f.write("\nOutputs on the same input (batch 1), element by element:\n\n")
        for name, a in agreements.items():
            f.write(f"- {name}: max |Loom - ORT| = {a['max_abs_diff']:.3g}; "
                    f"allclose(rtol 1e-3, atol 1e-4): {a['allclose']}\n")
        f.write("\nOutput checksums (sum of the first output, batch 1, same input file):\n\n")
        for r in rows:
            if "checksums_agree" in r and r["intra"] == 1 and r["inter"] == 1:
                verdict = "agree" if r["checksums_agree"] else "DIFFER"
                f.write(f"- {r['model']}: Loom {r['loom_checksum']:.6f}, "
                        f"ORT {r['ort_checksum']:.6f}: {verdict}\n")


if __name__ == "__main__":
    main()
