"""Loom side by side with ONNX Runtime, TensorFlow and PyTorch: one command.

    bench/compare/setup.sh
    .venv-compare/bin/python bench/compare/run_compare.py            # 20-30 min on 2 cores
    .venv-compare/bin/python bench/compare/run_compare.py --quick    # ~3 min, to try it

Cells are model x batch x grid entry, where "IxJ" sets intra-op I and inter-op
J threads through each runtime's own knobs and "auto" sets none (each runtime's
defaults). Each rep visits every cell and runs every runtime's measurement in
its own process, one after the other (interleaved), the runtime order rotated
by one from cell to cell and from rep to rep, so slow drift of a shared
machine spreads over all runtimes instead of favouring whoever goes first.
Each process warms up, then times enough runs to last about --iterations-ms
(count chosen from a short probe at 1x1 in the first rep). The report takes
medians over reps; the raw per-process numbers stay in the JSON.

Worker protocol (peers; Loom uses `loom run --json`, mapped in runtimes.py):
    PYTHON workers/<rt>_worker.py --spec-dir DIR --model NAME --batch B --warmup W
        --iterations N [--intra I --inter J]
prints one JSON object: runtime, latency_ms{p50,p90,mean}, throughput_per_s,
cpu_cores_used, threads_total, threads{name: count}, settings.

A worker that fails or times out becomes an error entry (with its stderr
tail) in that cell; the run goes on.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import report
import runtimes
from runtimes import HERE, REPO, RUNTIMES

# Thread-count variables the runtimes read. Removed from the workers' environment
# so that "auto" means each runtime's own default and IxJ only the API knobs.
THREAD_ENV_VARS = ["LOOM_NUM_INTRAOP_THREADS", "LOOM_NUM_INTEROP_THREADS", "LOOM_INTRAOP_CPUS",
                   "LOOM_INTEROP_CPUS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS",
                   "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"]
SPEC_FILES = [".onnx", ".spec.json", ".weights.npz", ".input.npy"]
WARMUP = 3
PROBE_WARMUP, PROBE_ITERATIONS = 1, 3
MIN_ITERATIONS, MAX_ITERATIONS = 5, 500
STDERR_TAIL_CHARS = 1500


def parse_args(argv):
    today = datetime.date.today().isoformat()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="/work/shared/models",
                        help="the shared models: NAME.onnx, NAME.input.npy, NAME.input_name")
    parser.add_argument("--spec-dir", default=os.path.join(REPO, "build", "compare", "specs"),
                        help="export_models.py's output; exported first if a model is missing")
    parser.add_argument("--runtimes", default="loom,onnxruntime,tensorflow,torch")
    parser.add_argument("--model-names", default="resnet18,mobilenet_v2,mlp")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--grid", help="IxJ (intra I, inter J) or auto; default "
                        "1x1,2x1,1x2,2x2,auto (--quick: 1x1,2x2)")
    parser.add_argument("--reps", type=int, help="default 3 (--quick: 1)")
    parser.add_argument("--iterations-ms", type=float,
                        help="target length of each timed loop; default 1500 (--quick: 300)")
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results", f"compare-{today}"),
                        help="path prefix: writes OUT.json, OUT.md, OUT-<model>.svg")
    parser.add_argument("--loom", default=os.path.join(REPO, "build", "release", "bin", "loom"))
    parser.add_argument("--quick", action="store_true",
                        help="1 rep, 300 ms loops, grid 1x1,2x2 (explicit flags still win)")
    parser.add_argument("--timeout-s", type=float, default=300, help="per process")
    parser.add_argument("--python", default=runtimes.VENV_PYTHON,
                        help="interpreter for the onnxruntime and tensorflow workers")
    parser.add_argument("--torch-python", default=runtimes.TORCH_PYTHON)
    parser.add_argument("--workers-dir", default=os.path.join(HERE, "workers"),
                        help="where <runtime>_worker.py live (tests point this at fakes)")
    args = parser.parse_args(argv)
    quick = {"grid": "1x1,2x2", "reps": 1, "iterations_ms": 300.0}
    full = {"grid": "1x1,2x1,1x2,2x2,auto", "reps": 3, "iterations_ms": 1500.0}
    for key, value in (quick if args.quick else full).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    for name in args.runtimes.split(","):
        if name not in RUNTIMES:
            parser.error(f"unknown runtime {name!r}; known: {', '.join(RUNTIMES)}")
    return args


def parse_grid(text):
    """"1x1,auto" -> [("1x1", (1, 1)), ("auto", None)]."""
    grid = []
    for label in text.split(","):
        if label == "auto":
            grid.append((label, None))
        else:
            intra, inter = (int(n) for n in label.split("x"))
            grid.append((label, (intra, inter)))
    return grid


def ensure_specs(args, model_names):
    def missing():
        return [n for n in model_names for suffix in SPEC_FILES
                if not os.path.exists(os.path.join(args.spec_dir, n + suffix))]
    if missing():
        command = [args.python, os.path.join(HERE, "export_models.py"), "--models", args.models,
                   "--out", args.spec_dir]
        print("exporting the models:", shlex.join(command), flush=True)
        subprocess.run(command, check=False)
    still = missing()
    if still:
        sys.exit(f"run_compare: {args.spec_dir} still lacks {', '.join(sorted(set(still)))}"
                 " after export_models.py")


def input_name(args, model):
    """Loom needs the graph input's name for --input: the shared models' NAME.input_name,
    else whatever name the exported spec records."""
    path = os.path.join(args.models, model + ".input_name")
    if os.path.exists(path):
        with open(path) as f:
            return f.read().strip()
    with open(os.path.join(args.spec_dir, model + ".spec.json")) as f:
        spec = json.load(f)
    for candidate in (spec.get("input"), *(spec.get("inputs") or [])):
        if isinstance(candidate, dict) and "name" in candidate:
            return candidate["name"]
    if isinstance(spec.get("input_name"), str):
        return spec["input_name"]
    sys.exit(f"run_compare: no input name for {model} (no {path}, none in its spec)")


def worker_env():
    env = dict(os.environ)
    removed = {name: env.pop(name) for name in THREAD_ENV_VARS if name in env}
    if removed:
        print(f"note: not passing {', '.join(removed)} to the measured processes", flush=True)
    return env, removed


class Harness:
    """Runs single measurements; remembers the iteration count chosen per
    (model, runtime, batch)."""

    def __init__(self, args, env, inputs, input_names, loom_version):
        self.args, self.env, self.inputs = args, env, inputs
        self.input_names, self.loom_version = input_names, loom_version
        self.iterations = {}
        self.probes = []
        # A probe that timed out would time out again in every cell (each costing
        # --timeout-s): those cells are recorded as errors without running.
        self.skip_reason = {}

    def command(self, runtime, model, batch, warmup, iterations, setting):
        if runtime.name == "loom":
            return runtimes.loom_command(
                self.args.loom, os.path.join(self.args.spec_dir, model + ".onnx"),
                self.input_names[model], self.inputs[(model, batch)], batch, warmup, iterations,
                setting)
        python = runtimes.python_for(runtime, self.args.python, self.args.torch_python)
        return runtimes.worker_command(runtime, python, self.args.workers_dir, self.args.spec_dir,
                                       model, batch, warmup, iterations, setting)

    def measure(self, runtime, model, batch, warmup, iterations, setting):
        command = self.command(runtime, model, batch, warmup, iterations, setting)
        record = {"command": shlex.join(command), "iterations": iterations, "ok": False,
                  "result": None, "raw": None, "error": None, "stderr_tail": None}
        start = time.monotonic()
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=self.env,
                                  timeout=self.args.timeout_s, check=False)
            stdout, stderr = done.stdout, done.stderr
            if done.returncode != 0:
                record["error"] = f"exit status {done.returncode}"
        except subprocess.TimeoutExpired as e:
            stdout, stderr = "", e.stderr or ""
            stderr = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
            record["error"] = f"timed out after {self.args.timeout_s:g} s"
        except OSError as e:
            stdout, stderr = "", ""
            record["error"] = f"could not start: {e}"
        record["seconds"] = round(time.monotonic() - start, 3)
        if record["error"] is None:
            try:
                raw = runtimes.parse_json_stdout(stdout)
                record["raw"] = raw
                record["result"] = (runtimes.normalize_loom(raw, self.loom_version)
                                    if runtime.name == "loom"
                                    else runtimes.normalize_worker(raw, setting))
                record["ok"] = True
            except (ValueError, KeyError, TypeError) as e:
                record["error"] = f"unreadable output ({type(e).__name__}: {e})"
                stderr = stderr + "\n--- stdout ---\n" + stdout
        if not record["ok"]:
            record["stderr_tail"] = stderr[-STDERR_TAIL_CHARS:]
        return record

    @staticmethod
    def skipped(iterations, reason):
        return {"command": None, "iterations": iterations, "ok": False, "result": None,
                "raw": None, "error": reason, "stderr_tail": "", "seconds": 0.0}

    def iterations_for(self, runtime, model, batch):
        """Runs so the timed loop lasts about --iterations-ms, from a short 1x1 probe."""
        key = (model, runtime.name, batch)
        if key not in self.iterations:
            probe = self.measure(runtime, model, batch, PROBE_WARMUP, PROBE_ITERATIONS, (1, 1))
            count = MIN_ITERATIONS
            if probe["ok"]:
                p50 = max(probe["result"]["p50"], 1e-3)
                count = int(min(MAX_ITERATIONS, max(MIN_ITERATIONS,
                                                    round(self.args.iterations_ms / p50))))
            self.iterations[key] = count
            if probe["error"] and probe["error"].startswith("timed out"):
                self.skip_reason[key] = f"not run: the 1x1 probe {probe['error']}"
            self.probes.append({**probe, "model": model, "runtime": runtime.name, "batch": batch,
                                "probe_iterations": PROBE_ITERATIONS, "iterations": count})
            print(f"  probe {model} b{batch} {runtime.name}: "
                  f"{'p50 %.3f ms' % probe['result']['p50'] if probe['ok'] else probe['error']}"
                  f" -> {count} iterations", flush=True)
        return self.iterations[key]


def summarize(runs):
    """Medians over reps per (model, batch, grid, runtime); errors kept beside them."""
    groups = {}
    for run in runs:
        key = (run["model"], run["batch"], run["grid"], run["runtime"])
        groups.setdefault(key, []).append(run)
    cells = []
    for (model, batch, grid, runtime), group in groups.items():
        ok = [r["result"] for r in group if r["ok"]]
        cell = {"model": model, "batch": batch, "grid": grid, "runtime": runtime,
                "reps": len(group), "reps_ok": len(ok), "iterations": group[0]["iterations"],
                "errors": [{"rep": r["rep"], "error": r["error"], "stderr_tail": r["stderr_tail"]}
                           for r in group if not r["ok"]]}
        if ok:
            median = {key: statistics.median(r[key] for r in ok)
                      for key in ("p50", "p90", "throughput_per_s", "cpu_cores_used",
                                  "threads_total")}
            p50s = [r["p50"] for r in ok]
            median["p50_spread"] = (max(p50s) - min(p50s)) / median["p50"] if median["p50"] else 0
            cell["median"] = median
            first = ok[0]
            cell.update({key: first.get(key) for key in
                         ("version", "settings", "threads", "intra_in_force", "inter_in_force")})
        cells.append(cell)
    return cells


def machine_info():
    def command_output(command):
        try:
            return subprocess.run(command, capture_output=True, text=True, check=False).stdout
        except OSError:
            return ""
    model = next((line.split(":", 1)[1].strip() for line in command_output(["lscpu"]).splitlines()
                  if line.startswith("Model name:")), "unknown")
    # The affinity mask, as `nproc` reads it; the nproc command itself would also
    # obey OMP_NUM_THREADS from the caller's environment.
    return {"cpu_model": model, "nproc": len(os.sched_getaffinity(0)),
            "os_cpu_count": os.cpu_count(), "platform": platform.platform(),
            "loadavg_start": [round(x, 2) for x in os.getloadavg()]}


def write_tiled_inputs(args, model_names, batches, directory):
    """The batch-B input is the batch-1 input repeated B times along axis 0, as the
    workers build it; Loom reads it from a file."""
    inputs = {}
    for model in model_names:
        x = np.load(os.path.join(args.spec_dir, model + ".input.npy"))
        for batch in batches:
            path = os.path.join(directory, f"{model}.b{batch}.npy")
            np.save(path, np.concatenate([x] * batch, axis=0))
            inputs[(model, batch)] = path
    return inputs


def main(argv=None):
    args = parse_args(argv)
    model_names = args.model_names.split(",")
    batches = [int(b) for b in args.batches.split(",")]
    grid = parse_grid(args.grid)
    chosen = [RUNTIMES[name] for name in args.runtimes.split(",")]
    ensure_specs(args, model_names)
    env, removed_env = worker_env()

    versions = {}
    baselines = {}
    if "loom" in args.runtimes.split(","):
        versions["loom"] = runtimes.loom_version(args.loom)
    for runtime in chosen:
        if runtime.module:
            python = runtimes.python_for(runtime, args.python, args.torch_python)
            baselines[runtime.name] = runtimes.baseline(runtime, python, env, args.timeout_s)
            b = baselines[runtime.name]
            versions[runtime.name] = (f"{runtime.module} {b['version']} (python {b['python']}, "
                                      f"numpy {b['numpy']})" if "version" in b
                                      else f"unknown: {b.get('error', '')[-200:]}")
    data = {
        "title": "Loom vs ONNX Runtime, TensorFlow, PyTorch",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join([os.path.relpath(sys.executable, REPO)
                               if sys.executable.startswith(REPO) else sys.executable]
                              + [os.path.relpath(os.path.abspath(sys.argv[0]), REPO)]
                              + sys.argv[1:]),
        "machine": machine_info(), "versions": versions, "baselines": baselines,
        "removed_env": removed_env,
        "options": {"runtimes": [r.name for r in chosen], "models": model_names,
                    "batches": batches, "grid": [label for label, _ in grid], "reps": args.reps,
                    "iterations_ms": args.iterations_ms, "warmup": WARMUP,
                    "min_iterations": MIN_ITERATIONS, "max_iterations": MAX_ITERATIONS,
                    "timeout_s": args.timeout_s, "spec_dir": args.spec_dir,
                    "models_dir": args.models, "loom": args.loom},
        "probes": [], "runs": [], "cells": [],
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    cells = [(model, batch, label, setting) for model in model_names for batch in batches
             for label, setting in grid]
    with tempfile.TemporaryDirectory(prefix="loom-compare-") as tmp:
        inputs = write_tiled_inputs(args, model_names, batches, tmp)
        names = {model: input_name(args, model) for model in model_names}
        harness = Harness(args, env, inputs, names, versions.get("loom", "loom"))
        for rep in range(args.reps):
            print(f"rep {rep + 1}/{args.reps}", flush=True)
            for index, (model, batch, label, setting) in enumerate(cells):
                shift = (rep + index) % len(chosen)
                for position, runtime in enumerate(chosen[shift:] + chosen[:shift]):
                    iterations = harness.iterations_for(runtime, model, batch)
                    skip = harness.skip_reason.get((model, runtime.name, batch))
                    run = (harness.skipped(iterations, skip) if skip else
                           harness.measure(runtime, model, batch, WARMUP, iterations, setting))
                    run.update({"rep": rep, "model": model, "batch": batch, "grid": label,
                                "runtime": runtime.name, "position": position})
                    data["runs"].append(run)
                    print(f"  {model} b{batch} {label:4s} {runtime.name:11s} " + (
                        f"p50 {run['result']['p50']:9.3f} ms  cpu {run['result']['cpu_cores_used']:.2f}"
                        f"  threads {run['result']['threads_total']}" if run["ok"]
                        else f"ERROR {run['error']}") + f"  ({run['seconds']:.1f} s)", flush=True)
            data["probes"], data["cells"] = harness.probes, summarize(data["runs"])
            report.write_json(data, args.out)  # after every rep: a stopped run keeps its data
    data["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    report.write_all(data, args.out)
    print(f"wrote {args.out}.json, {args.out}.md and {args.out}-<model>.svg")


if __name__ == "__main__":
    main()
