"""Writes a comparison's results: OUT.json (everything), OUT.md, OUT-<model>.svg.

Called by run_compare.py; also standalone, to redo the Markdown and plots from
a results file (even one a stopped run left behind, written after each rep):

    .venv-compare/bin/python bench/compare/report.py bench/results/compare-<date>.json

Ratio = Loom p50 / peer p50, so below 1 Loom is faster.
"""
import argparse
import json
import os
import re

import settings_check
import svg_plot
from runtimes import RUNTIMES

COLORS = {"loom": "#d1495b", "onnxruntime": "#2e86c1", "tensorflow": "#f0a202",
          "torch": "#6c4f9e"}
THREAD_KNOBS = {
    "loom": "`loom run --intra I --inter J` (the same options as the C++/Python API); "
            "`auto`: no flags, Loom's own defaults",
    "onnxruntime": "`SessionOptions.intra_op_num_threads = I`, `inter_op_num_threads = J`, "
                   "`execution_mode` ORT_PARALLEL when J > 1 else ORT_SEQUENTIAL",
    "tensorflow": "`tf.config.threading.set_intra_op_parallelism_threads(I)` and "
                  "`set_inter_op_parallelism_threads(J)` before any op",
    "torch": "`torch.set_num_threads(I)` and `torch.set_num_interop_threads(J)` before any op",
}


def write_json(data, out):
    with open(out + ".json", "w") as f:
        json.dump(data, f, indent=1)


def write_all(data, out):
    write_json(data, out)
    for model in data["options"]["models"]:
        with open(f"{out}-{model}.svg", "w") as f:
            f.write(model_svg(data, model))
    with open(out + ".md", "w") as f:
        f.write(markdown(data, os.path.basename(out)))


def label(name):
    return RUNTIMES[name].label


def format_ms(value):
    return svg_plot.format_value(value)


def cell_index(data):
    return {(c["model"], c["batch"], c["grid"], c["runtime"]): c for c in data["cells"]}


def p50(cells, key):
    cell = cells.get(key)
    return cell["median"]["p50"] if cell and "median" in cell else None


def model_svg(data, model):
    options = data["options"]
    cells = cell_index(data)
    series = [(label(r), COLORS[r]) for r in options["runtimes"]]
    panels = []
    for batch in options["batches"]:
        values = [[p50(cells, (model, batch, grid, r)) for r in options["runtimes"]]
                  for grid in options["grid"]]
        panels.append((f"batch {batch}", values))
    return svg_plot.grouped_bars_svg(
        f"{model}: p50 latency per thread setting (lower is better)", panels, options["grid"],
        series, "p50 latency (ms)", "threads: intra x inter (auto = the runtime's defaults)")


def header(data):
    machine = data["machine"]
    load = f"load average {machine['loadavg_start'][0]} at the start"
    if "loadavg_end" in machine:
        load += f", {machine['loadavg_end'][0]} at the end"
    lines = [f"# {data['title']} — {data['date'][:10]}", "",
             f"Machine: {machine['cpu_model']}, {machine['nproc']} usable CPUs (nproc; "
             f"os.cpu_count {machine['os_cpu_count']}); {machine['platform']}; {load}.", "",
             "Versions:", ""]
    lines += [f"- {label(name)}: {version}" for name, version in data["versions"].items()]
    peers_seen = sorted({c["version"] for c in data["cells"]
                         if c.get("version") and c["runtime"] != "loom"})
    if peers_seen:
        lines.append(f"- as the workers report themselves: {', '.join(peers_seen)}")
    lines += ["", "Command:", "", "```sh", data["command"], "```", ""]
    return lines


def method(data):
    options = data["options"]
    lines = ["## Method", "",
             "- Cells: model x batch x thread setting. `IxJ` = intra-op I threads, inter-op J; "
             "`auto` = nothing set, each runtime's own defaults.",
             f"- Every measurement is a separate process. Each rep visits every cell and runs the "
             f"runtimes one after the other, their order rotated by one from cell to cell and "
             f"from rep to rep, so drift on the shared machine spreads over all of them. "
             f"{options['reps']} rep(s); tables show the median over reps.",
             f"- In each process: {options['warmup']} warm-up runs, then a timed loop of about "
             f"{options['iterations_ms']:g} ms (run count from a short 1x1 probe per model, "
             f"runtime and batch; at least {options['min_iterations']}, at most "
             f"{options['max_iterations']}). p50 = the median run of that loop.",
             "- CPU cores = process CPU time / wall time over the timed loop. Threads = OS threads "
             "in the process after the loop (`/proc/self/task`; Loom: `threads.total`).",
             "- The batch-B input is the batch-1 input repeated B times. Loom runs the ONNX file "
             "(`loom run MODEL.onnx --json`); ONNX Runtime the same file; TensorFlow (Keras, "
             "NHWC, `tf.function`) and PyTorch (`nn.Module`, eval, `inference_mode`) the same "
             "architecture and weights converted from it (bench/compare/export_models.py).",
             f"- A process that fails or runs over {options['timeout_s']:g} s counts as an error "
             "in its cell (listed under Errors) and the run goes on.", "",
             "How threads were set:", ""]
    examples = {}
    for cell in data["cells"]:
        if cell.get("settings") and cell["grid"] != "auto":
            examples.setdefault(cell["runtime"], (cell["grid"], cell["settings"]))
    for name in options["runtimes"]:
        line = f"- {label(name)}: {THREAD_KNOBS[name]}."
        if name in examples and name != "loom":
            line += f" The worker reports, for {examples[name][0]}: \"{examples[name][1]}\"."
        lines.append(line)
    if data.get("removed_env"):
        lines.append(f"- Not passed to the measured processes (so settings come only from the "
                     f"knobs above): {', '.join(sorted(data['removed_env']))}.")
    return lines + [""]


def results_tables(data, out_name):
    options = data["options"]
    cells = cell_index(data)
    names = options["runtimes"]
    peers = [n for n in names if n != "loom"] if "loom" in names else []
    lines = ["## Results", "",
             "p50 latency in ms, median over reps. Loom/peer < 1: Loom faster. CPU cores and "
             "threads are listed in the order of the latency columns.", ""]
    for model in options["models"]:
        lines += [f"### {model}", ""]
        for batch in options["batches"]:
            iterations = ", ".join(
                f"{label(n)} {cells[(model, batch, options['grid'][0], n)]['iterations']}"
                for n in names if (model, batch, options["grid"][0], n) in cells)
            lines += [f"Batch {batch} (timed runs per process: {iterations})", ""]
            order = " / ".join(label(n) for n in names)
            columns = ([f"{label(n)} ms" for n in names] + [f"Loom/{label(p)}" for p in peers]
                       + [f"CPU cores {order}", f"threads {order}"])
            lines.append("| threads | " + " | ".join(columns) + " |")
            lines.append("|---|" + "---:|" * len(columns))
            for grid in options["grid"]:
                row = [grid]
                for n in names:
                    cell = cells.get((model, batch, grid, n))
                    row.append(_latency_text(cell))
                loom = p50(cells, (model, batch, grid, "loom"))
                for peer in peers:
                    other = p50(cells, (model, batch, grid, peer))
                    ratio = loom / other if loom and other else None
                    row.append("–" if ratio is None
                               else f"**{ratio:.2f}**" if ratio > 1 else f"{ratio:.2f}")
                row.append(" / ".join(_median_text(cells.get((model, batch, grid, n)),
                                                   "cpu_cores_used", "{:.2f}") for n in names))
                row.append(" / ".join(_median_text(cells.get((model, batch, grid, n)),
                                                   "threads_total", "{:g}") for n in names))
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
        lines += [f"![{model}: p50 latency per setting]({out_name}-{model}.svg)", ""]
    lines += ["Bold ratio: Loom slower. `error`: every rep of that process failed (see Errors); "
              "`*`: median of fewer reps than asked, some failed.", ""]
    return lines


def _latency_text(cell):
    if not cell or "median" not in cell:
        return "error" if cell else "–"
    text = format_ms(cell["median"]["p50"])
    return text + ("*" if cell["reps_ok"] < cell["reps"] else "")


def _median_text(cell, key, pattern):
    if not cell or "median" not in cell:
        return "–"
    return pattern.format(cell["median"][key])


def losses(data):
    """Every (cell, peer) where Loom's p50 is above the peer's, worst first."""
    cells = cell_index(data)
    found = []
    if "loom" not in data["options"]["runtimes"]:
        return found
    for (model, batch, grid, name), cell in cells.items():
        if name == "loom" or "median" not in cell:
            continue
        loom = cells.get((model, batch, grid, "loom"))
        if not loom or "median" not in loom:
            continue
        ratio = loom["median"]["p50"] / cell["median"]["p50"]
        if ratio > 1.0:
            found.append({"model": model, "batch": batch, "grid": grid, "peer": name,
                          "ratio": ratio, "loom": loom["median"], "other": cell["median"]})
    return sorted(found, key=lambda f: -f["ratio"])


def _losses_per_peer(data, found):
    texts = []
    for peer in data["options"]["runtimes"]:
        if peer == "loom":
            continue
        measured = sum(1 for c in data["cells"] if c["runtime"] == peer and "median" in c)
        lost = sum(1 for f in found if f["peer"] == peer)
        texts.append(f"vs {label(peer)}: {lost} of {measured}")
    return texts


def losses_section(data):
    lines = ["## Where Loom loses", ""]
    found = losses(data)
    if "loom" not in data["options"]["runtimes"]:
        return lines + ["Loom was not measured in this run.", ""]
    comparisons = sum(1 for c in data["cells"] if c["runtime"] != "loom" and "median" in c)
    if not found:
        if not comparisons:
            return lines + ["No comparison possible: no peer cell has a result.", ""]
        return lines + [f"Nowhere: in all {comparisons} cell-by-peer comparisons Loom's p50 is "
                        "at most the peer's.", ""]
    lines += [f"Loom's p50 is above the peer's in {len(found)} of {comparisons} comparisons "
              "(" + "; ".join(_losses_per_peer(data, found)) + "). Every one, worst first:", ""]
    reps = data["options"]["reps"]
    for f in found:
        percent = (f["ratio"] - 1) * 100
        line = (f"- {f['model']}, batch {f['batch']}, {f['grid']}: Loom {format_ms(f['loom']['p50'])}"
                f" ms vs {label(f['peer'])} {format_ms(f['other']['p50'])} ms: Loom takes "
                f"{f['ratio']:.2f}x as long ({percent:.0f}% slower).")
        spread = max(f["loom"]["p50_spread"], f["other"]["p50_spread"])
        if reps > 1 and f["ratio"] - 1 < spread:
            line += (f" Less than the spread between reps ({spread * 100:.0f}%), so not a clear "
                     "loss.")
        lines.append(line)
    return lines + [""]


def settings_section(data):
    lines = ["## Threads and CPU vs settings", "",
             f"CPU: a cell is listed when its cores used exceed intra + "
             f"{settings_check.CPU_TOLERANCE} (`auto`: Loom's intra in force; the peers: nproc). "
             "With inter > 1, independent branches running at once may add busy cores "
             "legitimately; such cells say so.",
             "Threads: each runtime's rule below, checked on every rep. The peers' baseline is "
             "the thread count of their interpreter after importing numpy and the runtime, "
             "before any work: " + (", ".join(
                 f"{label(n)} {b['threads']}" for n, b in data.get("baselines", {}).items()
                 if "threads" in b) or "not measured") + ".", ""]
    cpu = settings_check.cpu_findings(data)
    threads = settings_check.thread_findings(data)
    cpu_counts, thread_counts = settings_check.checked_counts(data)
    for name in data["options"]["runtimes"]:
        lines += [f"### {label(name)}", "", f"Threads rule: {RUNTIMES[name].rule_text}", ""]
        mine = [f for f in cpu if f["runtime"] == name]
        if mine:
            for f in mine:
                inter_note = (" (inter > 1)" if f["grid"] != "auto"
                              and int(f["grid"].split("x")[1]) > 1 else "")
                lines.append(f"- CPU: {f['model']} batch {f['batch']} {f['grid']}: "
                             f"{f['cpu']:.2f} cores used, limit {f['limit']} "
                             f"({f['limit_source']}){inter_note}.")
        else:
            lines.append(f"- CPU: within the limit {in_all(cpu_counts.get(name, 0))}.")
        mine = [f for f in threads if f["runtime"] == name]
        if mine:
            lines += _thread_finding_lines(mine, RUNTIMES[name].exact)
        else:
            lines.append(f"- Threads: the rule holds {in_all(thread_counts.get(name, 0))}"
                         + ("" if name == "loom" else " (auto cells not checked)") + ".")
        lines.append("")
    return lines


def _thread_finding_lines(findings, exact):
    """One line per distinct breach (setting, count, names): a runtime that adds a
    thread adds it in every model and batch, and should read as one finding."""
    groups = {}
    for f in findings:
        names = ", ".join(f"{k} {v}" for k, v in sorted(f["threads"].items()))
        key = (f["grid"], f["intra"], f["inter"], tuple(f["observed"]), f["baseline"],
               f["allowed"], names, f["note"])
        groups.setdefault(key, []).append(f"{f['model']} b{f['batch']}")
    lines = []
    for (grid, intra, inter, observed, baseline, allowed, names, note), where in groups.items():
        base = f"baseline {baseline} + " if baseline else ""
        lines.append(f"- Threads, {grid} (intra {intra}, inter {inter}): "
                     f"{' or '.join(map(str, observed))} threads where the rule allows "
                     f"{base}{allowed}{' exactly' if exact else ''}, in {', '.join(where)}; "
                     f"by name: {names}{'; ' + note if note else ''}.")
    return lines


def in_all(count):
    return {0: "(no cell measured)", 1: "in the one cell measured"}.get(
        count, f"in all {count} cells measured")


# TensorFlow's INFO/WARNING log lines (absl format, e.g. "I0000 00:00:17.. port.cc:153]")
# bury the traceback that says why a worker failed.
LOG_NOISE = re.compile(r"^[IW]\d{4} |^WARNING: All log messages|^To enable the following")


def useful_tail(stderr, lines=8):
    kept = [line for line in (stderr or "").strip().splitlines() if not LOG_NOISE.match(line)]
    tracebacks = [i for i, line in enumerate(kept) if line.startswith("Traceback")]
    if tracebacks:
        kept = kept[tracebacks[-1]:]
    return kept[-lines:]


def errors_section(data):
    """Failures grouped by runtime, error and stderr tail: one broken worker fails
    the same way in every cell, and should read as one entry."""
    groups = {}
    for cell in data["cells"]:
        for error in cell["errors"]:
            tail = useful_tail(error["stderr_tail"])
            key = (cell["runtime"], error["error"], "\n".join(tail))
            groups.setdefault(key, []).append(cell)
    probes = [p for p in data.get("probes", []) if not p["ok"]]
    if not groups and not probes:
        return []
    lines = ["## Errors", ""]
    for (name, error, tail), cells in groups.items():
        where = []
        for cell in cells:
            text = f"{cell['model']} b{cell['batch']} {cell['grid']}"
            if text not in where:
                where.append(text)
        lines.append(f"- {label(name)}: {error}, {len(cells)} measurement(s) in {len(where)} "
                     f"cell(s): {', '.join(where)}" + ("" if tail else " (no stderr)"))
        if tail:
            lines += ["", "  ```", *[f"  {t}" for t in tail.splitlines()], "  ```", ""]
    for probe in probes:
        lines.append(f"- probe {probe['model']} batch {probe['batch']} {label(probe['runtime'])} "
                     f"failed ({probe['error']}); used {probe['iterations']} runs per process.")
    return lines + [""]


def markdown(data, out_name):
    lines = (header(data) + method(data) + results_tables(data, out_name) + losses_section(data)
             + settings_section(data) + errors_section(data))
    return "\n".join(lines).rstrip() + "\n"


def main():
    parser = argparse.ArgumentParser(description="Redo OUT.md and OUT-<model>.svg from OUT.json")
    parser.add_argument("results", help="OUT.json written by run_compare.py")
    parser.add_argument("--out", help="path prefix; default: the results file without .json")
    args = parser.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    out = args.out or (args.results[:-5] if args.results.endswith(".json") else args.results)
    write_all(data, out)
    print(f"wrote {out}.md and {out}-<model>.svg")


if __name__ == "__main__":
    main()
