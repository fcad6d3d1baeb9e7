"""Checks data_pipeline_compare.py without TensorFlow or Loom (about 2 s):

  - the run order, the workers' environment and command lines, medians,
    Loom/TF ratios and the limit checks on made-up records;
  - the worker's overlap count and thread census helpers;
  - the driver end to end on a fake worker that fails once: the run
    completes, the failure becomes an error entry, the report has every section.

    python3 bench/compare/data_pipeline_compare_test.py
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "workers"))
import data_pipeline_compare as dpc  # noqa: E402
import data_pipeline_worker as worker  # noqa: E402

# Follows the worker's output format; computes nothing. Fails for Loom in configuration C
# with a consumer.
FAKE_WORKER = textwrap.dedent("""
    import argparse, json, sys
    p = argparse.ArgumentParser()
    p.add_argument("--runtime"); p.add_argument("--consumer")
    for flag in ("--intra", "--inter", "--cpu-budget", "--pool"):
        p.add_argument(flag, type=int)
    p.add_argument("--parallel-calls", default="autotune")
    a = p.parse_args()
    if a.runtime == "loom" and a.cpu_budget == 1 and a.consumer == "model":
        sys.exit("RuntimeError: this fake fails here")
    loom = a.runtime == "loom"
    choice = ({"visible": True, "stats": {"stages": [
                  {"name": "map#1", "parallelism": 1, "buffer_size": 2},
                  {"name": "prefetch#3", "parallelism": 1, "buffer_size": 1}]}}
              if loom else {"visible": False, "stats": None})
    print(json.dumps({"runtime": a.runtime + " 0.1", "python": "3", "numpy": "2",
        "settings": ["fake"], "images_per_s": 500.0 if loom else 400.0, "cpu_cores": 1.0,
        "map_cores": 0.9 if loom else 1.3, "map_cpu_ms": 1.5, "map_wall_ms": 1.6,
        "map_threads": {"worker-*": 1}, "map_max_concurrent": 1 if loom else 2,
        "consumer_cpu_ms": 2.0 if a.consumer == "model" else None,
        "threads_total": 4, "threads_peak_during": 4, "new_threads_total": 3,
        "new_threads": {"worker-*": 3}, "cpu_cores_by_thread": {"main": 0.1},
        "checksum": 1.25, "autotune_choice": choice}))
""")


def record(runtime, config, consumer="model", rep=0, ok=True, **result):
    base = {"runtime": runtime + " 1", "settings": [], "images_per_s": 100.0, "cpu_cores": 1.0,
            "map_cores": 0.9, "map_cpu_ms": 1.5, "map_wall_ms": 1.6, "map_threads": {"t": 1}, "map_max_concurrent": 1,
            "consumer_cpu_ms": 2.0, "threads_total": 4, "threads_peak_during": 4,
            "new_threads_total": 3, "new_threads": {"t": 3}, "cpu_cores_by_thread": {"t": 0.9},
            "checksum": 1.0, "autotune_choice": {"visible": False}}
    base.update(result)
    return {"rep": rep, "config": config, "consumer": consumer, "runtime": runtime, "ok": ok,
            "result": base if ok else None, "error": None if ok else "exit status 1",
            "stderr_tail": None if ok else "boom"}


class Units(unittest.TestCase):
    def test_plan_visits_every_cell_and_runtime_each_rep_and_rotates(self):
        order = dpc.plan(3, ["A", "B"], ["model", "none"], ["loom", "tensorflow"])
        self.assertEqual(len(order), 3 * 2 * 2 * 2)
        for rep in range(3):
            seen = {(c, k, r) for p, c, k, r, _ in order if p == rep}
            self.assertEqual(len(seen), 8)
        # Rep 0 starts with cell (A, model), rep 1 with (A, none); runtimes alternate first.
        self.assertEqual(order[0][1:4], ("A", "model", "loom"))
        self.assertEqual(order[2][1:4], ("A", "none", "tensorflow"))
        self.assertEqual(order[8][1:4], ("A", "none", "tensorflow"))

    def test_environment_strips_thread_variables_and_pins_blas_to_one(self):
        env, removed = dpc.worker_env({"PATH": "/bin", "LOOM_NUM_DATA_THREADS": "3",
                                       "OMP_NUM_THREADS": "2", "TF_NUM_INTEROP_THREADS": "1",
                                       "OPENBLAS_NUM_THREADS": "4", "MKL_X": "1"})
        self.assertEqual(env["OPENBLAS_NUM_THREADS"], "1")
        self.assertEqual(sorted(removed), ["LOOM_NUM_DATA_THREADS", "MKL_X", "OMP_NUM_THREADS",
                                           "OPENBLAS_NUM_THREADS", "TF_NUM_INTEROP_THREADS"])
        self.assertNotIn("OMP_NUM_THREADS", env)
        self.assertEqual(env["PATH"], "/bin")

    def test_command_passes_only_the_configured_flags(self):
        flags = dpc.configurations(2)["D"][1]
        self.assertEqual(dpc.worker_command("py", "w.py", "loom", "none", flags),
                         ["py", "w.py", "--runtime", "loom", "--consumer", "none",
                          "--intra", "1", "--inter", "1", "--pool", "1"])
        self.assertEqual(dpc.configurations(4)["E"][1]["parallel_calls"], 4)
        self.assertEqual(dpc.worker_command("py", "w.py", "tensorflow", "model", {})[2:],
                         ["--runtime", "tensorflow", "--consumer", "model"])

    def test_summary_takes_medians_and_counts_loom_choices(self):
        choice = {"visible": True, "stats": {"stages": [
            {"name": "map#1", "parallelism": 2, "buffer_size": 4},
            {"name": "prefetch#3", "parallelism": 1, "buffer_size": 1}]}}
        runs = [record("loom", "A", rep=i, images_per_s=v, autotune_choice=choice)
                for i, v in enumerate((300.0, 100.0, 200.0))]
        runs += [record("tensorflow", "A", images_per_s=250.0), record("loom", "A", ok=False)]
        cells = dpc.summarize(runs)
        loom = dpc.find_cell(cells, "A", "model", "loom")
        self.assertEqual((loom["reps"], loom["reps_ok"], len(loom["errors"])), (4, 3, 1))
        self.assertEqual(loom["images_per_s"], 200.0)
        self.assertEqual((loom["images_per_s_min"], loom["images_per_s_max"]), (100.0, 300.0))
        self.assertEqual(loom["autotune_choices"], {"map 2 / prefetch 1": 3})
        self.assertAlmostEqual(dpc.ratio(cells, "A", "model"), 0.8)
        self.assertIsNone(dpc.ratio(cells, "A", "none"))

    def test_limits_flag_cores_over_budget_and_calls_over_pool(self):
        runs = [record("loom", "C", map_cores=1.03), record("tensorflow", "C", map_cores=1.2),
                record("loom", "D", map_max_concurrent=1),
                record("tensorflow", "D", map_max_concurrent=2)]
        data = {"configs": dpc.configurations(2), "cells": dpc.summarize(runs)}
        found = dpc.limit_findings(data)
        self.assertEqual([(f["runtime"], f["config"]) for f in found],
                         [("tensorflow", "C"), ("tensorflow", "D")])

    def test_overlap_counts_calls_in_progress_together(self):
        self.assertEqual(worker.max_overlap([]), 0)
        self.assertEqual(worker.max_overlap([(0, 1), (1, 2), (2, 3)]), 1)  # touching only
        self.assertEqual(worker.max_overlap([(0, 3), (1, 2), (1.5, 4), (5, 6)]), 3)

    def test_thread_names_hide_digits_and_census_sees_this_thread(self):
        self.assertEqual(worker.thread_name("loom-data-12"), "loom-data-*")
        self.assertEqual(worker.tasks()[os.getpid()][0], "main")


class EndToEnd(unittest.TestCase):
    def test_failing_worker_becomes_an_error_and_the_report_is_complete(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "fake_worker.py")
            with open(fake, "w") as f:
                f.write(FAKE_WORKER)
            out = os.path.join(tmp, "out", "dvt")
            argv = ["--reps", "2", "--configs", "A,C", "--worker", fake, "--loom-python",
                    sys.executable, "--tf-python", sys.executable, "--out", out]
            with contextlib.redirect_stdout(io.StringIO()):  # the per-process progress lines
                dpc.main(argv)
            with open(out + ".json") as f:
                data = json.load(f)
            self.assertEqual(len(data["runs"]), 2 * 2 * 2 * 2)
            failed = dpc.find_cell(data["cells"], "C", "model", "loom")
            self.assertIsNone(failed)
            self.assertAlmostEqual(dpc.ratio(data["cells"], "A", "model"), 1.25)
            with open(out + ".md") as f:
                text = f.read()
            for heading in ("## Summary", "### A. ", "### C. ", "## Checks", "## Errors",
                            "this fake fails here", "Exceeded in: TF C",
                            "map 1 / prefetch 1 (x2)", "not visible"):
                self.assertIn(heading, text)


if __name__ == "__main__":
    unittest.main()
