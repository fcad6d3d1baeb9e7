"""Did each runtime stay within the thread setting it was given?

Two checks per measured cell, both from the runtime's own process:
- CPU: cores used (process CPU time / wall time over the timed loop) above
  intra + CPU_TOLERANCE. `auto` cells: Loom against the intra-op count it
  reports in force, the peers against the usable CPUs (nproc).
- Threads: the rule in runtimes.RUNTIMES (`allowed_threads`, `rule_text`),
  applied to every rep, not the median, because one rep over is already a
  thread the setting did not ask for. Peers are charged only for threads
  beyond their baseline (interpreter + imports, measured by run_compare), and
  their `auto` cells are not checked: no setting, nothing implied.
"""
from runtimes import RUNTIMES

# Timer and scheduler noise; a runtime that really uses one more core shows far more.
CPU_TOLERANCE = 0.15


def cpu_limit(cell, nproc):
    """Cores the cell's setting allows, and how that limit was read."""
    if cell["grid"] != "auto":
        return int(cell["grid"].split("x")[0]), "intra"
    if cell["runtime"] == "loom" and cell.get("intra_in_force"):
        return cell["intra_in_force"], "intra in force"
    return nproc, "nproc"


def cpu_findings(data):
    nproc = data["machine"].get("nproc") or data["machine"].get("os_cpu_count") or 1
    findings = []
    for cell in data["cells"]:
        if "median" not in cell:
            continue
        limit, source = cpu_limit(cell, nproc)
        used = cell["median"]["cpu_cores_used"]
        if used > limit + CPU_TOLERANCE:
            findings.append({**_where(cell), "cpu": used, "limit": limit, "limit_source": source})
    return findings


def baseline_threads(data, runtime_name):
    """Threads a peer's process has before the runtime does any work; Loom's rule
    counts its main thread itself, so its baseline is 0."""
    if runtime_name == "loom":
        return 0, None
    baseline = data.get("baselines", {}).get(runtime_name, {})
    if "threads" in baseline:
        return baseline["threads"], None
    return 1, "baseline unknown, assumed 1 (the main thread)"


def thread_findings(data):
    findings = []
    by_cell = {}
    for run in data["runs"]:
        if run["ok"]:
            key = (run["model"], run["batch"], run["grid"], run["runtime"])
            by_cell.setdefault(key, []).append(run["result"])
    for (model, batch, grid, runtime_name), results in by_cell.items():
        runtime = RUNTIMES[runtime_name]
        first = results[0]
        intra, inter = first["intra_in_force"], first["inter_in_force"]
        if intra is None or inter is None:
            continue  # a peer's auto cell
        baseline, note = baseline_threads(data, runtime_name)
        allowed = runtime.allowed_threads(intra, inter)
        observed = sorted({r["threads_total"] for r in results})
        extra = [total - baseline for total in observed]
        broken = (any(e != allowed for e in extra) if runtime.exact
                  else any(e > allowed for e in extra))
        if broken:
            findings.append({"model": model, "batch": batch, "grid": grid,
                             "runtime": runtime_name, "intra": intra, "inter": inter,
                             "observed": observed, "baseline": baseline, "allowed": allowed,
                             "threads": first["threads"], "note": note})
    return findings


def checked_counts(data):
    """How many cells each check looked at, per runtime (to say 'all N hold')."""
    cpu, threads = {}, {}
    for cell in data["cells"]:
        if "median" not in cell:
            continue
        name = cell["runtime"]
        cpu[name] = cpu.get(name, 0) + 1
        if cell.get("intra_in_force") is not None:
            threads[name] = threads.get(name, 0) + 1
    return cpu, threads


def _where(cell):
    return {key: cell[key] for key in ("model", "batch", "grid", "runtime")}
