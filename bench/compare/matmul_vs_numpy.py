"""loom.ops.matmul next to NumPy's matmul (the OpenBLAS bundled with the
PyPI wheel) on the shapes of issue 16, GFLOP/s and the ratio Loom/NumPy
(>= 1: Loom is faster), at each thread count.

    python3 bench/compare/matmul_vs_numpy.py [--threads 1,2] [--rounds 5] [--json FILE]

Each library runs in its own child process, started with
LOOM_NUM_INTRAOP_THREADS and OPENBLAS_NUM_THREADS set to the thread count
(both read them once, at start-up), and the parent alternates Loom and NumPy
children for --rounds rounds; the best round per shape counts (the host is
shared). Separate processes because both libraries' idle workers spin after
a call (OpenBLAS's for tens of ms): in one process on a 2-CPU machine, the
library measured second shares a CPU with the other's spinning worker, which
cost Loom's 2-thread GEMV half its speed (20.6 -> 10.4 GFLOP/s). Within a
child, each shape times the median of enough calls to fill ~20 ms. Loom's
result is checked against NumPy's before timing.

Loom's eager matmul packs B on every call; a MatMul node whose B is a
constant weight packs it once (the sgemm benchmark's BM_LoomSgemmPackedB).
"""
import argparse
import json
import os
import subprocess
import sys
import time

SHAPES = [  # m, k, n
    (1024, 1024, 1024), (512, 512, 512), (256, 2048, 256), (64, 1024, 1024),
    (1, 4096, 1024), (8, 1024, 4096),
    # attention: [heads, seq, 64] x [heads, 64, seq] and back
    ("attn", 12, 128, 64), ("attn", 6, 512, 64),
]


def operands(shape, rng):
    import numpy as np
    if shape[0] == "attn":
        _, heads, seq, dh = shape
        a = rng.standard_normal((heads, seq, dh), dtype=np.float32)
        b = rng.standard_normal((heads, dh, seq), dtype=np.float32)
        return a, b, f"[{heads},{seq},{dh}]x[{heads},{dh},{seq}]", 2.0 * heads * seq * seq * dh
    m, k, n = shape
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    return a, b, f"{m}x{k}x{n}", 2.0 * m * k * n


def child(lib):
    import numpy as np
    rng = np.random.default_rng(0)
    if lib == "loom":
        import loom
        matmul = loom.ops.matmul
    else:
        matmul = np.matmul
    rows = []
    for shape in SHAPES:
        a, b, label, flops = operands(shape, rng)
        if lib == "loom":
            expected = np.matmul(a, b)
            if not np.allclose(matmul(a, b), expected, rtol=1e-4, atol=1e-3 * np.sqrt(a.shape[-1])):
                raise SystemExit(f"{label}: Loom differs from NumPy")
        matmul(a, b)
        t0 = time.perf_counter()
        matmul(a, b)
        calls = max(5, int(0.02 / max(time.perf_counter() - t0, 1e-6)))
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            matmul(a, b)
            times.append(time.perf_counter() - t0)
        times.sort()
        rows.append({"shape": label, "gflops": flops / times[len(times) // 2] / 1e9})
    print(json.dumps(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--child", choices=["loom", "numpy"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    results = {}
    for t in map(int, args.threads.split(",")):
        # The Loom child's NumPy only computes the reference: one thread, so
        # no OpenBLAS worker spins beside Loom's.
        envs = {"loom": dict(os.environ, LOOM_NUM_INTRAOP_THREADS=str(t), OPENBLAS_NUM_THREADS="1"),
                "numpy": dict(os.environ, LOOM_NUM_INTRAOP_THREADS="1", OPENBLAS_NUM_THREADS=str(t))}
        best = {}
        for _ in range(args.rounds):
            for lib in ("loom", "numpy"):
                out = subprocess.run([sys.executable, __file__, "--child", lib], env=envs[lib],
                                     check=True, capture_output=True, text=True).stdout
                for row in json.loads(out.strip().splitlines()[-1]):
                    key = (row["shape"], lib)
                    best[key] = max(best.get(key, 0.0), row["gflops"])
        results[t] = [{"shape": label, "loom_gflops": best[(label, "loom")],
                       "numpy_gflops": best[(label, "numpy")]}
                      for label in dict.fromkeys(shape for shape, _ in best)]
    print(f"{'shape':28s} " + " ".join(f"{'t' + str(t) + ' loom':>9s} {'numpy':>7s} {'ratio':>6s}"
                                         for t in results))
    for i, row in enumerate(next(iter(results.values()))):
        cells = []
        for t in results:
            r = results[t][i]
            cells.append(f"{r['loom_gflops']:9.1f} {r['numpy_gflops']:7.1f} "
                         f"{r['loom_gflops'] / r['numpy_gflops']:6.2f}")
        print(f"{row['shape']:28s} " + " ".join(cells))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": results, "command": " ".join(sys.argv)}, f, indent=1)


if __name__ == "__main__":
    main()
