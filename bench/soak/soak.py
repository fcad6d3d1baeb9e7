"""Soak: Loom under a long, mixed, concurrent load (issue 21).

    python3 bench/soak/soak.py --minutes 30 --out bench/results/soak-DATE.md

For the given time, 8 application threads (--threads) run the shared models
(../shared/models: ResNet-18, MobileNet-V2, the MLP) at mixed batch sizes
through long-lived sessions on the global pools; now and then a thread
creates a session of its own (private pools half the time), runs it and
drops it, cancels a run from a timer thread (RunOptions.terminate) or gives
it a deadline too short to meet (RunOptions.timeout_seconds); one more
thread iterates a loom.data pipeline (a parallel map building MLP batches,
a prefetch) and runs the MLP on what it yields. Every run that completes is
compared bit for bit with the same model, batch and input run once at the
start on one thread (intra 1, inter 1, sequential); a cancelled run must
raise CancelledError, one past its deadline DeadlineExceededError, or finish
with the right answer. Every 10 s the process's RSS is sampled.

Reports (stdout, and --out as Markdown with a JSON block): runs by kind,
errors (any exception not asked for), mismatches, RSS over time and its
growth after the warm-up (the first --warmup-minutes): the mean of the last
5-minute window over the mean of the first. The run passes with 0 errors,
0 mismatches and RSS growth under 5 %.
"""

import argparse
import json
import os
import platform
import random
import sys
import threading
import time

import numpy as np

import loom

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                          "models")
BATCHES = {"mlp": [1, 4, 16], "mobilenet_v2": [1, 2], "resnet18": [1, 2]}
# How often a model is picked: the CNNs are ~50x the MLP's work.
WEIGHTS = {"mlp": 6, "mobilenet_v2": 2, "resnet18": 1}


def rss_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


class Soak:
    def __init__(self, args):
        self.args = args
        self.paths = {name: os.path.join(args.models, name + ".onnx") for name in BATCHES}
        for name, path in self.paths.items():
            if not os.path.exists(path):
                sys.exit(f"soak: {path} is missing (the shared models are needed)")
        self.rng = np.random.default_rng(2026)
        self.inputs = {}  # (model, batch) -> input
        self.expected = {}  # (model, batch) -> outputs of the one-thread run
        self.sessions = {}
        self.lock = threading.Lock()
        self.counts = {}
        self.errors = []
        self.mismatches = []
        self.samples = []
        self.stop = threading.Event()

    def count(self, kind):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def error(self, what):
        with self.lock:
            if len(self.errors) < 50:
                self.errors.append(what)
            self.counts["errors"] = self.counts.get("errors", 0) + 1

    def prepare(self):
        so = loom.SessionOptions()
        so.execution_mode = loom.ExecutionMode.ORT_SEQUENTIAL
        for name, path in self.paths.items():
            one_thread = loom.InferenceSession(path, so, intra_op_num_threads=1,
                                               inter_op_num_threads=1)
            input_name = one_thread.get_inputs()[0].name
            for batch in BATCHES[name]:
                shape = [batch] + [d for d in one_thread.get_inputs()[0].shape[1:]]
                x = self.rng.standard_normal(shape).astype(np.float32)
                self.inputs[(name, batch)] = {input_name: x}
                self.expected[(name, batch)] = one_thread.run(None, {input_name: x})
            self.sessions[name] = loom.InferenceSession(path)  # the global pools

    def check(self, key, outputs, how):
        for got, want in zip(outputs, self.expected[key]):
            if got.shape != want.shape or got.tobytes() != want.tobytes():
                diff = float(np.max(np.abs(got - want))) if got.shape == want.shape else None
                with self.lock:
                    self.mismatches.append({"model": key[0], "batch": key[1], "how": how,
                                            "max_abs_diff": diff})
                return
        self.count("checked")

    def pick(self, rng):
        names = list(WEIGHTS)
        name = rng.choices(names, weights=[WEIGHTS[n] for n in names])[0]
        return name, rng.choice(BATCHES[name])

    def one_run(self, rng):
        name, batch = self.pick(rng)
        key = (name, batch)
        feed = self.inputs[key]
        roll = rng.random()
        try:
            if roll < 0.04:  # a session of its own, created and dropped
                private = rng.random() < 0.5
                kwargs = {"intra_op_num_threads": 1, "inter_op_num_threads": 1} if private else {}
                session = loom.InferenceSession(self.paths[name], **kwargs)
                self.check(key, session.run(None, feed), "own session")
                del session
                self.count("own_private" if private else "own_shared")
            elif roll < 0.09:  # cancelled from a timer thread
                ro = loom.RunOptions()
                timer = threading.Timer(rng.uniform(0, 0.02), lambda: setattr(ro, "terminate",
                                                                              True))
                timer.start()
                try:
                    self.check(key, self.sessions[name].run(None, feed, ro), "cancel")
                    self.count("cancel_finished_first")
                except loom.errors.CancelledError:
                    self.count("cancelled")
                timer.join()
            elif roll < 0.14:  # a deadline it cannot always meet
                ro = loom.RunOptions()
                ro.timeout_seconds = rng.uniform(0.0005, 0.01)
                try:
                    self.check(key, self.sessions[name].run(None, feed, ro), "deadline")
                    self.count("deadline_met")
                except loom.errors.DeadlineExceededError:
                    self.count("deadline_exceeded")
            else:
                self.check(key, self.sessions[name].run(None, feed), "shared")
                self.count("runs")
        except Exception as error:  # noqa: BLE001 - every unexpected error is counted
            self.error(f"{name} batch {batch}: {type(error).__name__}: {error}")

    def worker(self, seed):
        rng = random.Random(seed)
        while not self.stop.is_set():
            self.one_run(rng)

    def pipeline(self):
        # MLP batches built by a parallel map on the loom-data pool.
        batch = 4
        x = self.inputs[("mlp", batch)]
        name = next(iter(x))

        def build(i):
            return x[name]  # the same batch every time: its answer is known

        ds = (loom.data.Dataset.range(10**12).map(build, num_parallel_calls=loom.data.AUTOTUNE)
              .prefetch(2))
        try:
            for element in ds:
                if self.stop.is_set():
                    break
                self.check(("mlp", batch), self.sessions["mlp"].run(None, {name: element}),
                           "pipeline")
                self.count("pipeline_runs")
        except Exception as error:  # noqa: BLE001
            self.error(f"pipeline: {type(error).__name__}: {error}")

    def run(self):
        start = time.monotonic()
        self.prepare()
        threads = [threading.Thread(target=self.worker, args=(seed,), daemon=True)
                   for seed in range(self.args.threads)]
        threads.append(threading.Thread(target=self.pipeline, daemon=True))
        for thread in threads:
            thread.start()
        end = start + self.args.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(10, max(0, end - time.monotonic())))
            with self.lock:
                done = sum(v for k, v in self.counts.items() if k != "errors")
            self.samples.append({"s": round(time.monotonic() - start), "rss_mib":
                                 round(rss_bytes() / 2**20, 1), "runs": done})
            print(f"{self.samples[-1]['s']:5d} s  RSS {self.samples[-1]['rss_mib']:7.1f} MiB  "
                  f"runs {done}  errors {self.counts.get('errors', 0)}  "
                  f"mismatches {len(self.mismatches)}", flush=True)
        self.stop.set()
        for thread in threads:
            thread.join(timeout=120)
        return self.report(time.monotonic() - start)

    def report(self, seconds):
        warm = [s for s in self.samples if s["s"] >= self.args.warmup_minutes * 60]
        # One sample swings by ~+-80 MiB (sessions created and dropped, their
        # buffers, malloc's arenas), so growth compares the mean RSS of the
        # first and the last window after the warm-up (5 minutes, or a fifth
        # of what is left when that is shorter), with the slope beside it.
        window = min(30, max(1, len(warm) // 5))
        base = round(sum(s["rss_mib"] for s in warm[:window]) / window, 1) if warm else None
        final = round(sum(s["rss_mib"] for s in warm[-window:]) / window, 1) if warm else None
        growth = (final - base) / base * 100 if base else None
        peak = max((s["rss_mib"] for s in warm), default=None)
        slope = None
        if len(warm) >= 2:
            xs = [s["s"] / 60 for s in warm]
            ys = [s["rss_mib"] for s in warm]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2
                                                                           for x in xs)
        passed = (not self.errors and not self.mismatches and growth is not None
                  and growth < 5.0)
        result = {
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "cpu": cpu_model(), "cpus": os.cpu_count(), "loom": loom.__version__,
            "seconds": round(seconds), "threads": self.args.threads, "counts": self.counts,
            "errors": self.errors, "mismatches": self.mismatches[:50],
            "mismatch_count": len(self.mismatches), "rss_window_samples": window,
            "rss_first_window_mib": base, "rss_last_window_mib": final,
            "rss_peak_after_warmup_mib": peak,
            "rss_growth_percent": None if growth is None else round(growth, 2),
            "rss_slope_mib_per_minute": None if slope is None else round(slope, 2),
            "passed": passed, "samples": self.samples,
        }
        return result


def markdown(result):
    lines = [
        f"# Soak: {result['seconds'] // 60} minutes, {result['threads']} application threads + "
        "a loom.data pipeline",
        "",
        f"- Command: `{result['command']}`",
        f"- CPU: {result['cpu']} ({result['cpus']} logical CPUs); loom {result['loom']}",
        f"- Result: **{'pass' if result['passed'] else 'FAIL'}** — errors "
        f"{result['counts'].get('errors', 0)}, mismatches {result['mismatch_count']}, mean RSS "
        f"{result['rss_first_window_mib']} MiB in the first window after warm-up -> "
        f"{result['rss_last_window_mib']} MiB in the last ({result['rss_growth_percent']} %; "
        f"{result['rss_window_samples']} samples each; slope "
        f"{result['rss_slope_mib_per_minute']} MiB/min; peak "
        f"{result['rss_peak_after_warmup_mib']} MiB)",
        "",
        "| kind | count |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in sorted(result["counts"].items())]
    lines += ["", "RSS every 10 s (MiB): " + ", ".join(str(s["rss_mib"])
                                                      for s in result["samples"]), ""]
    lines += ["```json", json.dumps({k: v for k, v in result.items() if k != "samples"},
                                    indent=1), "```", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--warmup-minutes", type=float, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--models", default=MODELS_DIR)
    parser.add_argument("--out", help="write the report here (Markdown)")
    args = parser.parse_args()
    if args.minutes <= 0 or args.threads <= 0 or args.warmup_minutes < 0:
        parser.error("--minutes and --threads must be positive, --warmup-minutes >= 0")
    result = Soak(args).run()
    text = markdown(result)
    print(text)
    if args.out:
        with open(args.out, "w") as out:
            out.write(text)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
