"""loom.ops.matmul next to NumPy's matmul (the OpenBLAS bundled with the
PyPI wheel) on the shapes of issue 16, GFLOP/s and the ratio Loom/NumPy
(>= 1: Loom is faster), at each thread count.

    python3 bench/compare/matmul_vs_numpy.py [--threads 1,2] [--rounds 5] [--json FILE]

Each thread count runs in a child process started with
LOOM_NUM_INTRAOP_THREADS and OPENBLAS_NUM_THREADS set to it (both libraries
read them once, at start-up). Within the child, the two libraries alternate
on each shape for --rounds rounds; each round times the median of enough
calls to fill ~20 ms, and the best round counts (the host is shared). Both
see the same C-contiguous float32 operands; Loom's result is checked
against NumPy's before timing.

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


def child(rounds):
    import numpy as np
    import loom
    rng = np.random.default_rng(0)
    rows = []
    for shape in SHAPES:
        if shape[0] == "attn":
            _, heads, seq, dh = shape
            a = rng.standard_normal((heads, seq, dh), dtype=np.float32)
            b = rng.standard_normal((heads, dh, seq), dtype=np.float32)
            label, flops = f"[{heads},{seq},{dh}]x[{heads},{dh},{seq}]", 2.0 * heads * seq * seq * dh
        else:
            m, k, n = shape
            a = rng.standard_normal((m, k), dtype=np.float32)
            b = rng.standard_normal((k, n), dtype=np.float32)
            label, flops = f"{m}x{k}x{n}", 2.0 * m * k * n
        expected = np.matmul(a, b)
        got = loom.ops.matmul(a, b)
        if not np.allclose(got, expected, rtol=1e-4, atol=1e-3 * np.sqrt(a.shape[-1])):
            raise SystemExit(f"{label}: Loom differs from NumPy")

        def best_gflops(fn):
            fn()
            t0 = time.perf_counter()
            fn()
            once = max(time.perf_counter() - t0, 1e-6)
            calls = max(3, int(0.02 / once))
            best = 0.0
            for _ in range(rounds):
                times = []
                for _ in range(calls):
                    t0 = time.perf_counter()
                    fn()
                    times.append(time.perf_counter() - t0)
                times.sort()
                best = max(best, flops / times[len(times) // 2] / 1e9)
            return best

        loom_g, numpy_g = 0.0, 0.0
        for _ in range(2):  # alternate the libraries
            loom_g = max(loom_g, best_gflops(lambda: loom.ops.matmul(a, b)))
            numpy_g = max(numpy_g, best_gflops(lambda: np.matmul(a, b)))
        rows.append({"shape": label, "loom_gflops": loom_g, "numpy_gflops": numpy_g})
    print(json.dumps(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.rounds)
        return
    results = {}
    for t in map(int, args.threads.split(",")):
        env = dict(os.environ, LOOM_NUM_INTRAOP_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t))
        out = subprocess.run([sys.executable, __file__, "--child", "--rounds", str(args.rounds)],
                             env=env, check=True, capture_output=True, text=True).stdout
        results[t] = json.loads(out.strip().splitlines()[-1])
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
