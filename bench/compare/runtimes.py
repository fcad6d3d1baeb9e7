"""The four runtimes bench/compare measures: how each is started and read.

Every measurement is one process. The peers (ONNX Runtime, TensorFlow,
PyTorch) run a worker from workers/ that follows the protocol in
run_compare.py's docstring; Loom runs its own CLI, `loom run --json`, whose
keys differ and are mapped here onto the workers' keys, so the rest of the
harness sees one record shape:

    {"version", "p50", "p90", "mean", "throughput_per_s", "cpu_cores_used",
     "threads_total", "threads" {name: count}, "settings",
     "intra_in_force", "inter_in_force"}   # in force: None when unknown

Each runtime also carries the rule its thread count is judged by against the
setting (settings_check.py applies it; report.py prints `rule_text`).
"""
import dataclasses
import json
import os
import subprocess
from typing import Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
VENV_PYTHON = os.path.join(REPO, ".venv-compare", "bin", "python")
# Debian's python3-torch lives in the system interpreter only (see setup.sh).
TORCH_PYTHON = "/usr/bin/python3"


@dataclasses.dataclass(frozen=True)
class Runtime:
    name: str              # as given to --runtimes
    label: str             # column header and legend
    worker: Optional[str]  # file in workers/; None for Loom (its CLI)
    module: Optional[str]  # what the worker imports, for the baseline thread count
    # Threads the setting (intra, inter) allows on top of the baseline.
    allowed_threads: Callable[[int, int], int]
    exact: bool            # True: threads must equal the allowance, not just stay under it
    rule_text: str


RUNTIMES = {
    "loom": Runtime(
        "loom", "Loom", None, None,
        lambda intra, inter: 1 + (intra - 1) + inter, True,
        "`threads.total` from `loom run --json` must equal 1 + (intra - 1) + inter exactly: "
        "the calling thread runs one intra-op shard, so the intra-op pool has intra - 1 "
        "workers, and the inter-op pool has inter. intra and inter are the values in force "
        "that Loom reports, so `auto` cells are checked too."),
    "onnxruntime": Runtime(
        "onnxruntime", "ORT", "ort_worker.py", "onnxruntime",
        lambda intra, inter: (intra - 1) + (inter - 1 if inter > 1 else 0), False,
        "threads beyond the baseline must be at most (intra - 1) + (inter - 1 if inter > 1): "
        "ORT's pools count the calling thread as one of their threads, and the inter-op pool "
        "exists only in ORT_PARALLEL mode (inter > 1)."),
    "tensorflow": Runtime(
        "tensorflow", "TF", "tf_worker.py", "tensorflow",
        lambda intra, inter: intra + inter, False,
        "threads beyond the baseline must be at most intra + inter: one intra-op pool of "
        "`intra` threads and one inter-op pool of `inter`, neither counting the caller."),
    "torch": Runtime(
        "torch", "torch", "torch_worker.py", "torch",
        lambda intra, inter: (intra - 1) + inter, False,
        "threads beyond the baseline must be at most (intra - 1) + inter: the OpenMP team "
        "of `intra` includes the calling thread; the inter-op pool has `inter` threads."),
}


def python_for(runtime, venv_python, torch_python):
    return torch_python if runtime.name == "torch" else venv_python


def worker_command(runtime, python, workers_dir, spec_dir, model, batch, warmup, iterations,
                   setting):
    """The worker command line; setting (intra, inter) or None = the runtime's defaults."""
    command = [python, os.path.join(workers_dir, runtime.worker), "--spec-dir", spec_dir,
               "--model", model, "--batch", str(batch), "--warmup", str(warmup),
               "--iterations", str(iterations)]
    if setting is not None:
        command += ["--intra", str(setting[0]), "--inter", str(setting[1])]
    return command


def loom_command(loom, model_path, input_name, input_path, batch, warmup, iterations, setting):
    command = [loom, "run", model_path, "--json", "--input", f"{input_name}={input_path}",
               "--batch", str(batch), "--warmup", str(warmup), "--iterations", str(iterations)]
    if setting is not None:
        command += ["--intra", str(setting[0]), "--inter", str(setting[1])]
    return command


def parse_json_stdout(stdout):
    """The one JSON object a worker prints; tolerates stray lines before it."""
    try:
        return json.loads(stdout)
    except json.JSONDecodeError:
        for line in reversed(stdout.strip().splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise


def normalize_worker(report, setting):
    latency = report["latency_ms"]
    return {
        "version": report.get("runtime", "?"),
        "p50": latency["p50"], "p90": latency.get("p90"), "mean": latency.get("mean"),
        "throughput_per_s": report["throughput_per_s"],
        "cpu_cores_used": report["cpu_cores_used"],
        "threads_total": report["threads_total"],
        "threads": report.get("threads", {}),
        "settings": report.get("settings", ""),
        "intra_in_force": setting[0] if setting else None,
        "inter_in_force": setting[1] if setting else None,
    }


def normalize_loom(report, loom_version):
    latency = report["latency_ms"]
    threads = {k: v for k, v in report["threads"].items() if k != "total"}
    sources = report.get("sources", {})
    intra, inter = report["intra_op_threads"], report["inter_op_threads"]
    return {
        "version": loom_version,
        "p50": latency["p50"], "p90": latency["p90"], "mean": latency["mean"],
        "throughput_per_s": report["throughput_per_s"],
        "cpu_cores_used": report["cpu_cores_used"],
        "threads_total": report["threads"]["total"],
        "threads": threads,
        "settings": (f"intra {intra} ({sources.get('intra_op_threads', '?')}), "
                     f"inter {inter} ({sources.get('inter_op_threads', '?')})"),
        "intra_in_force": intra, "inter_in_force": inter,
        "isa": report.get("isa"),
    }


def loom_version(loom):
    """The CLI has no --version: name the commit (and whether the tree had edits)."""
    def git(*args):
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True,
                              check=False).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"loom {commit}{dirty} ({os.path.relpath(os.path.abspath(loom), REPO)})"


def baseline(runtime, python, env, timeout_s):
    """Threads and versions of the worker's interpreter after importing numpy and the
    runtime, before any session or op: what the thread rule does not charge to the
    setting (numpy's OpenBLAS starts threads on import, so does onnxruntime)."""
    code = ("import json, os, sys, numpy, importlib\n"
            f"m = importlib.import_module({runtime.module!r})\n"
            "print(json.dumps({'threads': len(os.listdir('/proc/self/task')),"
            " 'version': getattr(m, '__version__', '?'), 'numpy': numpy.__version__,"
            " 'python': sys.version.split()[0], 'executable': sys.executable}))\n")
    try:
        result = subprocess.run([python, "-c", code], capture_output=True, text=True,
                                timeout=timeout_s, env=env, check=False)
        if result.returncode == 0:
            return parse_json_stdout(result.stdout)
        return {"error": result.stderr.strip()[-2000:]}
    except (subprocess.TimeoutExpired, OSError, ValueError) as e:
        return {"error": str(e)}
