"""Checks that the four runtimes compute the same function before anyone times them.

For each model and batch: exports the specs (export_models.py), runs each
worker once with --save-output (ONNX Runtime, TensorFlow, PyTorch, each in its
own process, at the given or default thread settings) and `loom run
--save-outputs`, then compares every output with ONNX Runtime's, and with the
stored PyTorch output (NAME.output.npy, the exporter's own result for the
batch-1 input; tiled for larger batches, since the input is tiled too).

Agreement: numpy.allclose(rtol=1e-3, atol=1e-4 * max|reference|), the absolute
tolerance scaled to the output's magnitude (softmax probabilities of ~0.1 and
logits of ~10 get the same relative slack). Prints max |diff| and max |diff| /
max |reference| per comparison, how long each worker process took, and the
threads each reported. Exits 1 on any disagreement.

    .venv-compare/bin/python bench/compare/check_models.py --models /work/shared/models
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_models  # noqa: E402

RTOL, ATOL_SCALE = 1e-3, 1e-4


def run_json(command):
    """(parsed stdout JSON, wall seconds of the process); exits on failure."""
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"command failed ({result.returncode}): {' '.join(command)}\n{result.stderr[-4000:]}")
    return json.loads(result.stdout), wall


def thread_flags(args):
    flags = []
    if args.intra is not None:
        flags += ["--intra", str(args.intra)]
    if args.inter is not None:
        flags += ["--inter", str(args.inter)]
    return flags


def run_worker(args, python, runtime, name, batch, out_file):
    script = os.path.join(HERE, "workers", f"{runtime}_worker.py")
    command = [python, script, "--spec-dir", args.spec_dir, "--model", name, "--batch", str(batch),
               "--warmup", "1", "--iterations", "1", "--save-output", out_file] + thread_flags(args)
    report, wall = run_json(command)
    return np.load(out_file), {"wall_s": wall, "setup_s": report["setup_s"],
                               "threads": report["threads"], "threads_total": report["threads_total"],
                               "settings": report["settings"], "version": report["runtime"]}


def run_loom(args, name, batch, tmp):
    with open(os.path.join(args.spec_dir, name + ".spec.json")) as f:
        spec = json.load(f)
    x = np.load(os.path.join(args.spec_dir, name + ".input.npy"))
    input_file = os.path.join(tmp, f"{name}.b{batch}.input.npy")
    np.save(input_file, np.concatenate([x] * batch, axis=0))
    out_dir = os.path.join(tmp, "loom")
    command = [args.loom, "run", os.path.join(args.spec_dir, name + ".onnx"), "--batch", str(batch),
               "--warmup", "1", "--iterations", "1", "--input", f"{spec['input']['name']}={input_file}",
               "--save-outputs", out_dir, "--json"] + thread_flags(args)
    report, wall = run_json(command)
    output = np.load(os.path.join(out_dir, spec["output"]["name"] + ".npy"))
    return output, {"wall_s": wall, "setup_s": None, "threads": report["threads"],
                    "threads_total": report["threads"]["total"], "settings": report["sources"],
                    "version": "loom"}


def compare(output, reference):
    if output.shape != reference.shape:
        return {"max_abs": float("inf"), "relative": float("inf"), "ok": False,
                "note": f"shape {output.shape} vs {reference.shape}"}
    scale = float(np.max(np.abs(reference))) or 1.0
    max_abs = float(np.max(np.abs(output.astype(np.float64) - reference.astype(np.float64))))
    ok = bool(np.allclose(output, reference, rtol=RTOL, atol=ATOL_SCALE * scale))
    return {"max_abs": max_abs, "relative": max_abs / scale, "ok": ok}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True, help="the shared models (NAME.onnx, .input.npy, .output.npy)")
    parser.add_argument("--spec-dir", help="where to export the specs (default: a temporary folder)")
    parser.add_argument("--loom", default="build/release/bin/loom")
    parser.add_argument("--torch-python", default="/usr/bin/python3", help="the interpreter with torch")
    parser.add_argument("--names", default=",".join(export_models.MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--intra", type=int, help="passed to every runtime; omitted: their defaults")
    parser.add_argument("--inter", type=int)
    parser.add_argument("--json", help="also write every comparison and worker report here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        args.spec_dir = args.spec_dir or os.path.join(tmp, "specs")
        names = args.names.split(",")
        for name in names:
            export_models.export(args.models, args.spec_dir, name)

        pythons = {"ort": sys.executable, "tf": sys.executable, "torch": args.torch_python}
        rows, workers, failed = [], [], False
        for name in names:
            stored = np.load(os.path.join(args.models, name + ".output.npy"))
            for batch in [int(b) for b in args.batches.split(",")]:
                outputs, infos = {}, {}
                for runtime, python in pythons.items():
                    out_file = os.path.join(tmp, f"{runtime}.npy")
                    outputs[runtime], infos[runtime] = run_worker(args, python, runtime, name, batch, out_file)
                outputs["loom"], infos["loom"] = run_loom(args, name, batch, tmp)
                reference = np.concatenate([stored] * batch, axis=0)
                for runtime, output in outputs.items():
                    workers.append({"model": name, "batch": batch, "runtime": runtime, **infos[runtime]})
                    checks = [("pytorch-stored", compare(output, reference))]
                    if runtime != "ort":
                        checks.insert(0, ("ort", compare(output, outputs["ort"])))
                    for against, result in checks:
                        rows.append({"model": name, "batch": batch, "runtime": runtime, "vs": against, **result})
                        failed |= not result["ok"]
                        print(f"{name:13s} b{batch} {runtime:6s} vs {against:14s} max|diff| {result['max_abs']:9.3g}"
                              f"  relative {result['relative']:9.3g}  {'ok' if result['ok'] else 'DIFFER'}"
                              + (f" ({result['note']})" if "note" in result else ""), flush=True)

    print("\nworker processes (wall s incl. interpreter start; setup_s: imports + load + build):")
    for w in workers:
        setup = f"{w['setup_s']:.2f}" if w["setup_s"] is not None else "-"
        print(f"  {w['model']:13s} b{w['batch']} {w['runtime']:6s} wall {w['wall_s']:5.2f}  setup {setup:>5s}  "
              f"threads {w['threads_total']:2d} {json.dumps(w['threads'])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"comparisons": rows, "workers": workers,
                       "tolerance": {"rtol": RTOL, "atol": f"{ATOL_SCALE} * max|reference|"}}, f, indent=1)
    print("\nall outputs agree" if not failed else "\nSOME OUTPUTS DIFFER")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
