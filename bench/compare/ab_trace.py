"""A/B two `loom` binaries on one model, per node, on a noisy host.

usage: python3 bench/compare/ab_trace.py OLD_LOOM NEW_LOOM MODEL.onnx
           [--intra N] [--rounds R] [--per-node]

Each round runs `loom trace` and `loom run` with both binaries, the order
flipped every round, so drift of the host affects both alike. Prints each
node's minimum over the rounds (old, new, old/new), their sums, and the
`loom run` p50s. The minimum of a node is the least disturbed measurement
of it; whole-run medians on the shared 2-CPU development hosts moved by
20-40 % within minutes (bench/results/nchwc-2026-12-02.md).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile


def trace_nodes(loom, model, intra, path):
    subprocess.run([loom, "trace", model, "--intra", str(intra), "--inter", "1", "-o", path],
                   check=True, capture_output=True)
    with open(path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    # Nodes only: at intra > 1 the helpers' shards are events of the same
    # name, and a node's minimum would be its smallest shard.
    return [(e["name"], e["dur"]) for e in events
            if e.get("ph") == "X" and "op" in e.get("args", {})
            and e["args"].get("role", "node") == "node"]


def run_p50(loom, model, intra):
    out = subprocess.run([loom, "run", model, "--intra", str(intra), "--inter", "1",
                          "--iterations", "30", "--json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["latency_ms"]["p50"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("model")
    ap.add_argument("--intra", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--per-node", action="store_true", help="print every node")
    a = ap.parse_args()
    for binary in (a.old, a.new):
        if not os.access(binary, os.X_OK):
            sys.exit(f"ab_trace: {binary} is not an executable loom binary")
    if a.rounds < 1 or a.intra < 1:
        sys.exit("ab_trace: --rounds and --intra must be at least 1")
    nodes = {"old": collections.defaultdict(list), "new": collections.defaultdict(list)}
    order = []  # node names in graph order
    p50 = {"old": [], "new": []}
    binaries = {"old": a.old, "new": a.new}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        for r in range(a.rounds):
            for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                for name, dur in trace_nodes(binaries[side], a.model, a.intra, path):
                    if name not in nodes["old"] and name not in nodes["new"]:
                        order.append(name)
                    nodes[side][name].append(dur)
                p50[side].append(run_p50(binaries[side], a.model, a.intra))
    total_old = total_new = 0.0
    for name in order:
        old = min(nodes["old"].get(name, [0.0]))
        new = min(nodes["new"].get(name, [0.0]))
        total_old += old
        total_new += new
        if a.per_node:
            ratio = old / new if new > 0 else float("nan")
            print(f"{name[-48:]:48s} {old:9.0f} {new:9.0f} {ratio:6.2f}")
    print(f"sum of per-node minima (us): old {total_old:.0f}  new {total_new:.0f}  "
          f"old/new {total_old / max(total_new, 1e-9):.3f}")
    print("loom run p50 (ms): old", sorted(round(v, 3) for v in p50["old"]),
          " new", sorted(round(v, 3) for v in p50["new"]))


if __name__ == "__main__":
    main()
