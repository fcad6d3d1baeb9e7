"""loom.data next to tf.data at the same thread settings: images/s, CPU and threads.

    python3 bench/compare/data_pipeline_compare.py --reps 5     # 4.5-5 min on 2 cores

Both runtimes run the same pipeline and the same NumPy work
(workers/data_pipeline_worker.py: from_tensor_slices of 512 images -> map
(AUTOTUNE unless fixed) -> batch(8) -> prefetch(AUTOTUNE) -> a ~2 ms consumer
per batch, or none for the "pipeline only" column) under five configurations:

  A  automatic everything
  B  intra 1, inter 1 (tf.config.threading / loom.config.threading)
  C  B + cpu_budget 1 (Options().autotune.cpu_budget)
  D  B + one thread for the pipeline (TF: Options().threading.private_threadpool_size;
     Loom: loom.config.threading.set_data_pipeline_threads)
  E  intra 1, inter 1, map num_parallel_calls fixed at the usable core count

Every measurement is its own process: Loom's with --loom-python (where the
loom package is installed), TF's with --tf-python (.venv-compare). Each rep
visits every (configuration, consumer) cell, the cell order rotated by one
per rep and the runtime order by one per cell and rep. The workers get an
environment without LOOM_*, TF_NUM_*, OMP_*, MKL_* and OPENBLAS_* variables,
plus OPENBLAS_NUM_THREADS=1 (NumPy's BLAS single-threaded, not a hidden pool).

Writes OUT.json (every process's record and command, per-cell medians) and
OUT.md (a table per configuration, Loom/TF ratios, the checks); the analysis
("What they say") is written by hand below the generated part.
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
RUNTIMES = ["loom", "tensorflow"]
LABELS = {"loom": "Loom", "tensorflow": "TF"}
CONSUMERS = {"model": "~2 ms consumer", "none": "pipeline only"}
STRIPPED_PREFIXES = ("LOOM_", "TF_NUM_", "OMP_", "MKL_", "OPENBLAS_")
BUDGET_TOLERANCE = 0.05  # cores above cpu_budget still counted as kept (clock and window edges)
STDERR_TAIL_CHARS = 1500


def configurations(cores):
    """{label: (description, worker flags)}; E's parallelism is the usable core count."""
    b = {"intra": 1, "inter": 1}
    return {
        "A": ("automatic everything, map AUTOTUNE", {}),
        "B": ("intra 1, inter 1, map AUTOTUNE", dict(b)),
        "C": ("B + cpu_budget 1", {**b, "cpu_budget": 1}),
        "D": ("B + a pipeline pool of 1 (TF private_threadpool_size, "
              "Loom set_data_pipeline_threads)", {**b, "pool": 1}),
        "E": (f"intra 1, inter 1, map num_parallel_calls = {cores} (the core count)",
              {**b, "parallel_calls": cores}),
    }


def parse_args(argv):
    today = datetime.date.today().isoformat()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--configs", default="A,B,C,D,E")
    parser.add_argument("--consumers", default="model,none")
    parser.add_argument("--runtimes", default="loom,tensorflow")
    parser.add_argument("--loom-python", default="python3", help="an interpreter with loom")
    parser.add_argument("--tf-python", default=os.path.join(REPO, ".venv-compare", "bin", "python"))
    parser.add_argument("--worker", default=os.path.join(HERE, "workers", "data_pipeline_worker.py"))
    parser.add_argument("--timeout-s", type=float, default=120, help="per process")
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results",
                                                      f"data-vs-tfdata-{today}"))
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    known = configurations(cores)
    args.configs = args.configs.split(",")
    args.consumers = args.consumers.split(",")
    args.runtimes = args.runtimes.split(",")
    for values, allowed, what in ((args.configs, known, "configuration"),
                                  (args.consumers, CONSUMERS, "consumer"),
                                  (args.runtimes, RUNTIMES, "runtime")):
        for value in values:
            if value not in allowed:
                parser.error(f"unknown {what} {value!r}; known: {', '.join(allowed)}")
    if args.reps < 1:
        parser.error("--reps must be >= 1")
    return args


def worker_env(environ):
    """(environment for the workers, {removed name: value})."""
    env = {k: v for k, v in environ.items() if not k.startswith(STRIPPED_PREFIXES)}
    removed = {k: v for k, v in environ.items() if k.startswith(STRIPPED_PREFIXES)}
    env["OPENBLAS_NUM_THREADS"] = "1"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # logging only
    return env, removed


def worker_command(python, worker, runtime, consumer, flags):
    command = [python, worker, "--runtime", runtime, "--consumer", consumer]
    for key in ("intra", "inter", "cpu_budget", "pool", "parallel_calls"):
        if key in flags:
            command += ["--" + key.replace("_", "-"), str(flags[key])]
    return command


def plan(reps, configs, consumers, runtimes):
    """[(rep, config, consumer, runtime, position)] in run order: every cell each rep, the
    cell order rotated by the rep, the runtime order by the rep plus the cell's index."""
    cells = [(config, consumer) for config in configs for consumer in consumers]
    order = []
    for rep in range(reps):
        rotated = cells[rep % len(cells):] + cells[:rep % len(cells)]
        for index, (config, consumer) in enumerate(rotated):
            shift = (rep + index) % len(runtimes)
            for position, runtime in enumerate(runtimes[shift:] + runtimes[:shift]):
                order.append((rep, config, consumer, runtime, position))
    return order


def measure(command, env, timeout_s):
    record = {"command": shlex.join(command), "ok": False, "result": None, "error": None,
              "stderr_tail": None}
    start = time.monotonic()
    stdout, stderr = "", ""
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=timeout_s, check=False)
        stdout, stderr = done.stdout, done.stderr
        if done.returncode != 0:
            record["error"] = f"exit status {done.returncode}"
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or ""
        record["error"] = f"timed out after {timeout_s:g} s"
    except OSError as e:
        record["error"] = f"could not start: {e}"
    record["seconds"] = round(time.monotonic() - start, 3)
    if record["error"] is None:
        try:
            record["result"] = json.loads(stdout.strip().splitlines()[-1])
            record["ok"] = True
        except (ValueError, IndexError) as e:
            record["error"] = f"unreadable output ({type(e).__name__}: {e})"
            stderr += "\n--- stdout ---\n" + stdout
    if not record["ok"]:
        record["stderr_tail"] = stderr[-STDERR_TAIL_CHARS:]
    return record


def loom_choice(result):
    """"map 2 / prefetch 4" from Loom's it.stats(); None for TF (not visible)."""
    choice = result.get("autotune_choice") or {}
    if not choice.get("visible"):
        return None
    stages = {s["name"].split("#")[0]: s for s in choice["stats"]["stages"]}
    parts = []
    if "map" in stages:
        parts.append(f"map {stages['map']['parallelism']}")
    if "prefetch" in stages:
        parts.append(f"prefetch {stages['prefetch']['buffer_size']}")
    return " / ".join(parts)


def median_by_key(dicts):
    """{key: median over dicts, a missing key counting as 0}."""
    keys = sorted({k for d in dicts for k in d})
    return {k: statistics.median(d.get(k, 0) for d in dicts) for k in keys}


def summarize(runs):
    """Per (config, consumer, runtime): medians over the reps that succeeded."""
    groups = {}
    for run in runs:
        groups.setdefault((run["config"], run["consumer"], run["runtime"]), []).append(run)
    cells = []
    for (config, consumer, runtime), group in groups.items():
        ok = [r["result"] for r in group if r["ok"]]
        cell = {"config": config, "consumer": consumer, "runtime": runtime,
                "reps": len(group), "reps_ok": len(ok),
                "errors": [{"rep": r["rep"], "error": r["error"], "stderr_tail": r["stderr_tail"]}
                           for r in group if not r["ok"]]}
        if ok:
            rates = [r["images_per_s"] for r in ok]
            choices = {}
            for r in ok:
                label = loom_choice(r)
                if label is not None:
                    choices[label] = choices.get(label, 0) + 1
            cell.update({
                "runtime_version": ok[0]["runtime"], "settings": ok[0]["settings"],
                "images_per_s": statistics.median(rates), "images_per_s_min": min(rates),
                "images_per_s_max": max(rates),
                "cpu_cores": statistics.median(r["cpu_cores"] for r in ok),
                "map_cores": statistics.median(r["map_cores"] for r in ok),
                "map_cores_max": max(r["map_cores"] for r in ok),
                "map_cpu_ms": statistics.median(r["map_cpu_ms"] for r in ok),
                "map_wall_ms": statistics.median(r["map_wall_ms"] for r in ok),
                "map_threads": median_by_key([r["map_threads"] for r in ok]),
                "map_max_concurrent_seen": sorted({r["map_max_concurrent"] for r in ok}),
                "consumer_cpu_ms": (statistics.median(r["consumer_cpu_ms"] for r in ok)
                                    if ok[0]["consumer_cpu_ms"] is not None else None),
                "threads_total": statistics.median(r["threads_total"] for r in ok),
                "threads_total_seen": sorted({r["threads_total"] for r in ok}),
                "threads_peak_seen": sorted({r["threads_peak_during"] for r in ok}),
                "new_threads_total": statistics.median(r["new_threads_total"] for r in ok),
                "new_threads": median_by_key([r["new_threads"] for r in ok]),
                "cpu_cores_by_thread": median_by_key([r["cpu_cores_by_thread"] for r in ok]),
                "autotune_choices": dict(sorted(choices.items(), key=lambda kv: -kv[1])),
                "autotune_visible": bool(ok[0].get("autotune_choice", {}).get("visible")),
                "checksums": sorted({round(r["checksum"], 6) for r in ok}),
            })
        cells.append(cell)
    return cells


def find_cell(cells, config, consumer, runtime):
    for cell in cells:
        if (cell["config"], cell["consumer"], cell["runtime"]) == (config, consumer, runtime):
            return cell if cell["reps_ok"] else None
    return None


def ratio(cells, config, consumer, key="images_per_s"):
    """Loom / TF of a median from the same run; None if either is missing."""
    loom, tf = (find_cell(cells, config, consumer, rt) for rt in RUNTIMES)
    if loom is None or tf is None or not tf[key]:
        return None
    return loom[key] / tf[key]


def limit_findings(data):
    """Cells whose map exceeded its configuration's limit in some rep: cpu_budget (map cores
    above it + BUDGET_TOLERANCE, or more calls at once than it) or a pipeline pool (more calls
    at once than its threads)."""
    found = []
    configs = data["configs"]
    for cell in data["cells"]:
        flags = configs[cell["config"]][1]
        if not cell["reps_ok"]:
            continue
        for key in ("cpu_budget", "pool"):
            limit = flags.get(key)
            if limit is None:
                continue
            concurrent = max(cell["map_max_concurrent_seen"])
            over_cores = key == "cpu_budget" and cell["map_cores_max"] > limit + BUDGET_TOLERANCE
            if over_cores or concurrent > limit:
                found.append({"config": cell["config"], "consumer": cell["consumer"],
                              "runtime": cell["runtime"], "limit": f"{key} {limit}",
                              "map_cores_median": cell["map_cores"],
                              "map_cores_max": cell["map_cores_max"],
                              "map_max_concurrent": concurrent})
    return found


def checksums_agree(cells):
    values = {c for cell in cells if cell["reps_ok"] for c in cell["checksums"]}
    return len(values) <= 1, sorted(values)


# ---- the report ---------------------------------------------------------------------------

def fmt_names(counts):
    return ", ".join(f"{name} {value:g}" for name, value in counts.items() if value) or "-"


def fmt_choices(choices):
    """{"map 2 / prefetch 1": 3} -> "map 2 / prefetch 1 (x3)"."""
    return ", ".join(f"{label} (x{n})" for label, n in choices.items()) or "-"


def fmt(value, pattern="{:.2f}"):
    return "-" if value is None else pattern.format(value)


def markdown(data):
    cells, configs = data["cells"], data["configs"]
    m = data["machine"]
    lines = [f"# loom.data vs tf.data at the same thread settings - {data['date'][:10]}", "",
             "Generated by `bench/compare/data_pipeline_compare.py` (bench/README.md). Command "
             f"({data['run_seconds']:.0f} s):", "", "```sh", data["command"], "```", "",
             f"Machine: {m['cpu_model']}; {m['nproc']} usable CPUs ({m['os_cpu_count']} online); "
             f"{m['platform']}. Load average (1/5/15 min) before the run: "
             f"{' '.join(str(x) for x in m['loadavg_start'])}; after: "
             f"{' '.join(str(x) for x in m.get('loadavg_end', []))}.", "",
             "Versions: " + "; ".join(f"{k}: {v}" for k, v in data["versions"].items()) + ".", "",
             "Workers' environment: LOOM_*, TF_NUM_*, OMP_*, MKL_*, OPENBLAS_* removed "
             f"({', '.join(data['removed_env']) or 'none were set'}), OPENBLAS_NUM_THREADS=1.", ""]
    calib = {rt: [c for c in cells if c["runtime"] == rt and c["reps_ok"]] for rt in RUNTIMES}
    map_ms = {rt: statistics.median(c["map_cpu_ms"] for c in v) for rt, v in calib.items() if v}
    map_wall = {rt: statistics.median(c["map_wall_ms"] for c in v) for rt, v in calib.items() if v}
    cons_ms = {rt: statistics.median(c["consumer_cpu_ms"] for c in v if c["consumer_cpu_ms"])
               for rt, v in calib.items() if any(c["consumer_cpu_ms"] for c in v)}
    agree, sums = checksums_agree(cells)
    lines += ["Pipeline (identical NumPy work in both): `from_tensor_slices` of 512 uint8 "
              "96x96x3 images -> `map(augment, num_parallel_calls)` (tf.numpy_function in TF) -> "
              "`batch(8, drop_remainder=True)` -> `prefetch(AUTOTUNE)` -> a consumer doing ~2 ms of "
              "NumPy per batch (or nothing: \"pipeline only\"). One process per measurement: a "
              "warm-up pass, then one timed pass (64 batches) with a fresh iterator; threads are "
              f"counted after it with the iterator alive. Medians of {data['options']['reps']} "
              "reps, runtimes and cells interleaved, order rotated.", "",
              "Calibration (medians over all cells, thread CPU time): augment "
              + ", ".join(f"{LABELS[rt]} {v:.2f} ms (wall {map_wall[rt]:.2f} ms)"
                          for rt, v in map_ms.items())
              + " per image; consumer "
              + ", ".join(f"{LABELS[rt]} {v:.2f} ms" for rt, v in cons_ms.items())
              + " per batch. Outputs identical in every process of both runtimes "
              f"(order-sensitive checksum): {'yes' if agree else 'NO: ' + str(sums)}.", ""]

    lines += ["## Summary", "",
              "| config | consumer | Loom img/s | TF img/s | Loom/TF | Loom cores | TF cores | "
              "Loom map cores | TF map cores | Loom threads | TF threads | Loom chose |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for config in data["options"]["configs"]:
        for consumer in data["options"]["consumers"]:
            loom, tf = (find_cell(cells, config, consumer, rt) for rt in RUNTIMES)
            lines.append("| " + " | ".join([
                config, CONSUMERS[consumer],
                fmt(loom and loom["images_per_s"], "{:.0f}"), fmt(tf and tf["images_per_s"], "{:.0f}"),
                fmt(ratio(cells, config, consumer), "{:.2f}x"),
                fmt(loom and loom["cpu_cores"]), fmt(tf and tf["cpu_cores"]),
                fmt(loom and loom["map_cores"]), fmt(tf and tf["map_cores"]),
                fmt(loom and loom["threads_total"], "{:g}"), fmt(tf and tf["threads_total"], "{:g}"),
                fmt_choices(loom["autotune_choices"]) if loom else "-"]) + " |")
    lines += ["", "Loom/TF = median images/s of Loom / of TF, same run (> 1: Loom faster). Cores = "
              "process CPU time / wall time over the timed pass. Map cores = the augment calls' own "
              "thread CPU time / wall time, wherever they ran (what cpu_budget should bound). "
              "Threads = entries in /proc/self/task after the timed pass. Loom chose = the map "
              "parallelism / prefetch buffer `it.stats()` reported at the end, with how many reps "
              "ended there; TF has no API that shows its choice.", ""]

    lines += ["## Per configuration", ""]
    for config in data["options"]["configs"]:
        description, _ = configs[config]
        lines += [f"### {config}. {description}", ""]
        for rt in RUNTIMES:
            cell = next((c for c in cells if c["config"] == config and c["runtime"] == rt
                         and c["reps_ok"]), None)
            if cell:
                lines.append(f"- {LABELS[rt]} settings: " + "; ".join(f"`{s}`" for s in cell["settings"]))
        lines += ["", "| runtime | consumer | images/s | min-max | cores | map cores (med/max) | "
                  "map at once (seen) | map ran on | threads (seen) | new threads by name | "
                  "CPU cores by thread name | AUTOTUNE chose |",
                  "|---|---|---:|---:|---:|---:|---:|---|---:|---|---|---|"]
        for consumer in data["options"]["consumers"]:
            for rt in RUNTIMES:
                cell = find_cell(cells, config, consumer, rt)
                if cell is None:
                    lines.append(f"| {LABELS[rt]} | {CONSUMERS[consumer]} | error |"
                                 + " |" * 9)
                    continue
                chose = (fmt_choices(cell["autotune_choices"]) if cell["autotune_visible"]
                         else "not visible")
                lines.append("| " + " | ".join([
                    LABELS[rt], CONSUMERS[consumer], f"{cell['images_per_s']:.0f}",
                    f"{cell['images_per_s_min']:.0f}-{cell['images_per_s_max']:.0f}",
                    f"{cell['cpu_cores']:.2f}", f"{cell['map_cores']:.2f} / {cell['map_cores_max']:.2f}",
                    "/".join(str(n) for n in cell["map_max_concurrent_seen"]),
                    fmt_names(cell["map_threads"]),
                    f"{cell['threads_total']:g} ({'/'.join(str(t) for t in cell['threads_total_seen'])})",
                    f"{cell['new_threads_total']:g}: {fmt_names(cell['new_threads'])}",
                    fmt_names({k: round(v, 2) for k, v in cell["cpu_cores_by_thread"].items()}),
                    chose]) + " |")
        lines.append("")
    lines += ["Map at once = the most augment calls in progress at one moment in the timed pass "
              "(each rep's value seen); map ran on = the distinct threads that ran augment calls, "
              "by name (medians). "
              "New threads = threads that were not there just before the pipeline was built "
              "(after the runtime's import and thread settings), medians per name; \"main\" is the "
              "main thread; threads a library leaves unnamed inherit the interpreter's name "
              "(\"python\"). CPU by thread name: utime + stime over the timed pass (10 ms ticks) "
              "/ wall time, medians.", ""]

    found = limit_findings(data)
    lines += ["## Checks", ""]
    if any(configs[c][1].get(k) for c in data["options"]["configs"] for k in ("cpu_budget", "pool")):
        lines.append(f"Limits: a cell fails when, in any rep, its map ran more calls at once than "
                     f"its cpu_budget or pipeline pool allows, or its compute exceeded cpu_budget + "
                     f"{BUDGET_TOLERANCE} cores. "
                     + ("All kept them." if not found else "Exceeded in: " + "; ".join(
                         f"{LABELS[f['runtime']]} {f['config']} {CONSUMERS[f['consumer']]} "
                         f"({f['limit']}: map cores median {f['map_cores_median']:.2f}, max "
                         f"{f['map_cores_max']:.2f}, at most {f['map_max_concurrent']} calls at once)"
                         for f in found) + "."))
        lines.append("")
    errors = [(c, e) for c in cells for e in c["errors"]]
    if errors:
        lines += ["## Errors", ""]
        for cell, error in errors:
            lines += [f"- {LABELS[cell['runtime']]} {cell['config']} {cell['consumer']} rep "
                      f"{error['rep']}: {error['error']}", "", "```",
                      (error["stderr_tail"] or "").strip()[-800:], "```"]
        lines.append("")
    return "\n".join(lines)


def write(data, out):
    with open(out + ".json", "w") as f:
        json.dump(data, f, indent=1)
    with open(out + ".md", "w") as f:
        f.write(markdown(data) + "\n")


def machine_info():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith("model name")), model)
    except OSError:
        pass
    return {"cpu_model": model, "nproc": len(os.sched_getaffinity(0)),
            "os_cpu_count": os.cpu_count(), "platform": platform.platform(),
            "loadavg_start": [round(x, 2) for x in os.getloadavg()]}


def main(argv=None):
    args = parse_args(argv)
    started = time.monotonic()
    cores = len(os.sched_getaffinity(0))
    configs = configurations(cores)
    env, removed = worker_env(os.environ)
    pythons = {"loom": args.loom_python, "tensorflow": args.tf_python}
    data = {
        "title": "loom.data vs tf.data at the same thread settings",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python3", os.path.relpath(os.path.abspath(sys.argv[0]), REPO)]
                              + sys.argv[1:]) if argv is None else shlex.join(argv),
        "machine": machine_info(), "versions": {}, "removed_env": sorted(removed),
        "configs": {k: configs[k] for k in args.configs},
        "options": {"reps": args.reps, "configs": args.configs, "consumers": args.consumers,
                    "runtimes": args.runtimes, "pythons": pythons, "timeout_s": args.timeout_s},
        "runs": [], "cells": [], "run_seconds": 0.0,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    order = plan(args.reps, args.configs, args.consumers, args.runtimes)
    for number, (rep, config, consumer, runtime, position) in enumerate(order, 1):
        command = worker_command(pythons[runtime], args.worker, runtime, consumer, configs[config][1])
        run = measure(command, env, args.timeout_s)
        run.update({"rep": rep, "config": config, "consumer": consumer, "runtime": runtime,
                    "position": position})
        data["runs"].append(run)
        if run["ok"]:
            result = run["result"]
            data["versions"].setdefault(
                runtime, f"{result['runtime']} (python {result['python']}, numpy {result['numpy']})")
        print(f"[{number}/{len(order)}] rep {rep + 1} {config} {consumer:5s} {runtime:10s} " + (
            f"{run['result']['images_per_s']:7.0f} img/s  cores {run['result']['cpu_cores']:.2f}"
            f"  threads {run['result']['threads_total']}" if run["ok"] else f"ERROR {run['error']}")
            + f"  ({run['seconds']:.1f} s)", flush=True)
        if position == len(args.runtimes) - 1 or number == len(order):
            data["cells"] = summarize(data["runs"])
            data["run_seconds"] = time.monotonic() - started
            write(data, args.out)  # as it goes: a stopped run keeps what it measured
    data["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    data["run_seconds"] = time.monotonic() - started
    data["cells"] = summarize(data["runs"])
    write(data, args.out)
    print(f"wrote {args.out}.json and {args.out}.md ({data['run_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
