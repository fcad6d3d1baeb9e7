"""Checks the comparison harness without the real peers (about 5 s):

  - grid parsing, plot ticks and bar scaling, the thread and CPU rules;
  - run_compare end to end on fake workers written to a temporary folder, one
    of them failing for one model: the run completes, the failure becomes
    error cells, and the report has every section.

    .venv-compare/bin/python bench/compare/harness_test.py
"""
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import textwrap
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402
import run_compare  # noqa: E402
import settings_check  # noqa: E402
import svg_plot  # noqa: E402

# Follows the worker protocol; sleeps instead of computing. Fails for model "bad".
FAKE_WORKER = textwrap.dedent("""
    import argparse, json, os, sys, time
    p = argparse.ArgumentParser()
    for flag in ("--spec-dir", "--model"):
        p.add_argument(flag)
    for flag in ("--batch", "--warmup", "--iterations", "--intra", "--inter"):
        p.add_argument(flag, type=int)
    a = p.parse_args()
    if a.model == "bad":
        sys.exit("ValueError: this fake cannot build model 'bad'")
    latency = 0.2 * a.batch
    time.sleep(latency * a.iterations / 1e3)
    print(json.dumps({"runtime": "fake 0.1", "latency_ms": {"p50": latency, "p90": latency,
        "mean": latency}, "throughput_per_s": a.batch * 1e3 / latency, "cpu_cores_used": 0.01,
        "threads_total": len(os.listdir("/proc/self/task")), "threads": {"python": 1},
        "settings": f"intra {a.intra}, inter {a.inter}"}))
""")


def cell(runtime, p50, grid="1x1", cpu=1.0, threads=2, model="m", batch=1):
    return {"model": model, "batch": batch, "grid": grid, "runtime": runtime, "reps": 1,
            "reps_ok": 1, "iterations": 5, "errors": [], "intra_in_force": None,
            "inter_in_force": None,
            "median": {"p50": p50, "p90": p50, "throughput_per_s": 1.0, "cpu_cores_used": cpu,
                       "threads_total": threads, "p50_spread": 0.0}}


def run(runtime, threads_total, intra, inter, grid="1x1"):
    return {"model": "m", "batch": 1, "grid": grid, "runtime": runtime, "ok": True,
            "result": {"threads_total": threads_total, "intra_in_force": intra,
                       "inter_in_force": inter, "threads": {}}}


class Units(unittest.TestCase):
    def test_grid_parses_settings_and_auto(self):
        self.assertEqual(run_compare.parse_grid("1x1,2x1,auto"),
                         [("1x1", (1, 1)), ("2x1", (2, 1)), ("auto", None)])

    def test_ticks_cover_the_maximum_in_round_steps(self):
        self.assertEqual(svg_plot.nice_ticks(23.1), [0, 5, 10, 15, 20, 25])
        self.assertGreaterEqual(svg_plot.nice_ticks(0.13)[-1], 0.13)

    def test_bars_scale_with_their_values(self):
        svg = svg_plot.grouped_bars_svg("t", [("batch 1", [[10.0, 20.0]])], ["1x1"],
                                        [("A", "#111"), ("B", "#222")], "ms", "threads")
        heights = [float(h) for h in re.findall(r"<rect x='[^']*' y='[^']*' width='[^']*' "
                                                 r"height='([^']*)' fill='#[12]{3}'>", svg)]
        self.assertEqual(len(heights), 2)
        self.assertAlmostEqual(heights[1] / heights[0], 2.0, places=2)

    def test_loom_thread_rule_is_exact(self):
        data = {"runs": [run("loom", 4, 2, 2), run("loom", 5, 2, 2, grid="auto")],
                "baselines": {}}
        found = settings_check.thread_findings(data)
        self.assertEqual([(f["grid"], f["observed"]) for f in found], [("auto", [5])])

    def test_peer_thread_rule_counts_beyond_baseline(self):
        data = {"runs": [run("onnxruntime", 3, 1, 1), run("onnxruntime", 5, 1, 1, grid="x")],
                "baselines": {"onnxruntime": {"threads": 3}}}
        found = settings_check.thread_findings(data)
        self.assertEqual([f["grid"] for f in found], ["x"])

    def test_cpu_over_intra_plus_tolerance_is_listed(self):
        data = {"machine": {"nproc": 2}, "cells": [
            cell("torch", 1.0, cpu=1.1), cell("torch", 1.0, grid="2x2", cpu=2.3),
            cell("torch", 1.0, grid="auto", cpu=2.1)]}
        found = settings_check.cpu_findings(data)
        self.assertEqual([f["grid"] for f in found], ["2x2"])

    def test_losses_list_only_slower_cells_worst_first(self):
        data = {"options": {"runtimes": ["loom", "onnxruntime", "torch"]},
                "cells": [cell("loom", 10.0), cell("onnxruntime", 8.0), cell("torch", 12.0),
                          cell("loom", 3.0, grid="2x2"), cell("torch", 2.0, grid="2x2")]}
        found = report.losses(data)
        self.assertEqual([(f["grid"], f["peer"]) for f in found],
                         [("2x2", "torch"), ("1x1", "onnxruntime")])


class EndToEnd(unittest.TestCase):
    def test_failing_worker_becomes_error_cells_and_the_report_is_complete(self):
        with tempfile.TemporaryDirectory() as tmp:
            specs, workers = os.path.join(tmp, "specs"), os.path.join(tmp, "workers")
            os.makedirs(specs)
            os.makedirs(workers)
            for model in ("good", "bad"):
                for suffix in (".onnx", ".weights.npz"):
                    open(os.path.join(specs, model + suffix), "w").close()
                with open(os.path.join(specs, model + ".spec.json"), "w") as f:
                    json.dump({"input": {"name": "x"}}, f)
                np.save(os.path.join(specs, model + ".input.npy"), np.zeros((1, 4), np.float32))
            for name in ("ort_worker.py", "torch_worker.py"):
                with open(os.path.join(workers, name), "w") as f:
                    f.write(FAKE_WORKER)
            out = os.path.join(tmp, "out", "compare-test")
            with contextlib.redirect_stdout(io.StringIO()):  # the per-process progress lines
                run_compare.main(["--spec-dir", specs, "--models", specs, "--workers-dir", workers,
                                  "--runtimes", "onnxruntime,torch", "--model-names", "good,bad",
                                  "--batches", "1,2", "--grid", "1x1,auto", "--reps", "2",
                                  "--iterations-ms", "5", "--torch-python", sys.executable,
                                  "--out", out])
            with open(out + ".json") as f:
                data = json.load(f)
            self.assertEqual(len(data["runs"]), 2 * 2 * 2 * 2 * 2)
            bad = [c for c in data["cells"] if c["model"] == "bad"]
            self.assertTrue(all(c["reps_ok"] == 0 and c["errors"] for c in bad))
            good = [c for c in data["cells"] if c["model"] == "good"]
            self.assertTrue(all(c["reps_ok"] == 2 for c in good))
            with open(out + ".md") as f:
                text = f.read()
            for heading in ("## Results", "## Where Loom loses", "## Threads and CPU vs settings",
                            "## Errors", "this fake cannot build model 'bad'"):
                self.assertIn(heading, text)
            for model in ("good", "bad"):
                self.assertTrue(os.path.exists(f"{out}-{model}.svg"))


if __name__ == "__main__":
    unittest.main()
