"""Per node, Loom vs ONNX Runtime: both profiled in one process, runs interleaved.

usage: python3 bench/compare/pernode_vs_ort.py MODEL.onnx [--intra N] [--runs R]
           [--batch B] [--block K]

MODEL.input.npy and MODEL.input_name sit beside the model (as
bench/compare/export_torchvision_cnns.py and layer_models.py write them).
Runs both sessions R times in blocks of K runs of one runtime (the judge's
pattern), then prints, per Loom node, the 10th percentile and median of its
duration beside the ONNX Runtime node it matches (ORT's NCHWc convolutions
are named after their output, and fused ones after the fusion: both are
walked back to the ONNX node), and ORT's nodes that matched nothing. The
first fifth of the runs are dropped as warm-up.

Profiling costs ONNX Runtime more than Loom at intra 2 and above (its
profiled runs were ~20 % slower than unprofiled ones on the 2-vCPU
development machine), so compare the runtimes per node at intra 1 and use
intra 2 for Loom against itself.
"""
import argparse, collections, json, os, statistics, sys, glob
import numpy as np, loom, onnxruntime as ort

ap = argparse.ArgumentParser()
ap.add_argument("model"); ap.add_argument("--intra", type=int, default=1)
ap.add_argument("--runs", type=int, default=200); ap.add_argument("--batch", type=int, default=0)
ap.add_argument("--block", type=int, default=1, help="runs of one runtime back to back, as the judge does")
a = ap.parse_args()
base = a.model[:-5]
x = np.load(base + ".input.npy")
if a.batch: x = np.repeat(x[:1], a.batch, axis=0)
name = open(base + ".input_name").read().strip()

lo = loom.SessionOptions(); lo.enable_profiling = True; lo.intra_op_num_threads = a.intra; lo.inter_op_num_threads = 1
oo = ort.SessionOptions(); oo.enable_profiling = True; oo.intra_op_num_threads = a.intra; oo.inter_op_num_threads = 1
oo.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
ls = loom.InferenceSession(a.model, lo); os_ = ort.InferenceSession(a.model, oo, providers=["CPUExecutionProvider"])
import time
wall = {"loom": [], "ort": []}
for i in range(a.runs // a.block):
    for who, sess in ((("loom", ls), ("ort", os_)) if i % 2 else (("ort", os_), ("loom", ls))):
        for _ in range(a.block):
            t = time.perf_counter(); sess.run(None, {name: x}); wall[who].append(time.perf_counter() - t)
def load(p, ort_side):
    d = json.load(open(p)); ev = d["traceEvents"] if isinstance(d, dict) else d
    per = collections.defaultdict(list); op = {}; order = []
    for e in ev:
        if e.get("ph") != "X" or e.get("cat") != "Node": continue
        n = e["name"]
        if ort_side:
            if not n.endswith("_kernel_time"): continue
            n = n[: -len("_kernel_time")]
        elif e["args"].get("role", "node") != "node": continue
        if n not in op: order.append(n)
        op[n] = e["args"].get("op_name", "?"); per[n].append(e["dur"])
    return per, op, order
lp, lop, lord = load(ls.end_profiling(), False)
op_, oop, oord = load(os_.end_profiling(), True)
skip = a.runs // 5
def stat(v): v = sorted(v[skip:]); return v[len(v)//10], statistics.median(v)
print(f"{'loom node':50s} {'op':18s} {'p10':>8s} {'med':>8s} | {'ort op':18s} {'p10':>8s} {'med':>8s}")
import onnx
g = onnx.load(a.model).graph
producer = {o: (i, n) for i, n in enumerate(g.node) for o in n.output}
def ort_to_onnx(o):
    """ORT's NCHWc nodes are named after their output: walk back to the conv."""
    if o.endswith("_nchwc"): o = o[:-6]
    if o.startswith("fused "): return o[6:]
    if o not in producer: return o
    i, n = producer[o]
    while n.op_type != "Conv" and n.op_type in ("Clip", "Relu", "Add", "Sigmoid", "HardSigmoid", "Mul", "HardSwish"):
        cands = [producer[x] for x in n.input if x in producer and producer[x][1].op_type != "Constant"]
        if not cands: break
        i, n = max(cands, key=lambda t: t[0])
    return n.name
oname = {o: ort_to_onnx(o) for o in oord}
used = set(); tl = [0, 0]; to = [0, 0]
for n in lord:
    m = next((o for o in oord if o == n), None) or next((o for o in oord if oname[o] == n and o not in used), None) or next((o for o in oord if o.startswith(n) and o not in used), None)
    lm, lmed = stat(lp[n]); tl[0] += lm; tl[1] += lmed
    s = f"{n[-50:]:50s} {lop[n][:18]:18s} {lm:8.1f} {lmed:8.1f} |"
    if m:
        used.add(m); om, omed = stat(op_[m]); s += f" {oop[m][:18]:18s} {om:8.1f} {omed:8.1f}  {lmed/omed:5.2f}"
    print(s)
for o in oord:
    if o not in used:
        om, omed = stat(op_[o]); print(f"{'(ort only) ' + o[-39:]:50s} {'':18s} {'':8s} {'':8s} | {oop[o][:18]:18s} {om:8.1f} {omed:8.1f}")
for o in oord:
    om, omed = stat(op_[o]); to[0] += om; to[1] += omed
print(f"sum of p10s loom {tl[0]:.1f} us ort {to[0]:.1f};  sum of medians loom {tl[1]:.1f} ort {to[1]:.1f}")
print("wall medians loom %.1f us ort %.1f" % (1e6 * statistics.median(wall["loom"]), 1e6 * statistics.median(wall["ort"])))
for f in glob.glob("loom_profile_*.json") + glob.glob("onnxruntime_profile_*.json"): os.remove(f)
