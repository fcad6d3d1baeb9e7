"""Loom vs ONNX Runtime in the same Ray Data job: items/s and CPU use per actor.

    python3 bench/ray/ray_throughput.py [--model PATH] [--items 128] [--reps 3]

A local Ray instance with the machine's CPUs runs `map_batches` over
generated images through one model, with 1 and 2 actors of num_cpus=1 each:
  loom           loom.ray.Predictor (threads from the allotment: 1 each)
  ort-default    onnxruntime.InferenceSession with its default threads
  ort-allotted   onnxruntime with intra_op_num_threads=1 (the allotment)
Configurations are interleaved within each repetition. The table gives the
median over repetitions of: items/s, summed over actors, each actor timed
from its first batch to its last (so actor and Ray start-up do not count);
CPU milliseconds per item (the actor processes' own CPU time); the largest
actor's CPU use as a share of its busy time (above 1: it used more CPU than
Ray gave it); and the threads each actor process added for its runtime.
"""

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np
import ray

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "resnet18.onnx"


class Timed:
    """Common bookkeeping: per-actor first/last batch times, CPU, threads."""

    def setup(self, make_session):
        # Threads the runtime adds: those that appear while the session is
        # created and runs once (Ray's own threads start earlier or later).
        before = set(os.listdir("/proc/self/task"))
        self.session = make_session()
        self.input_name = self.session.get_inputs()[0].name
        self.session.run(None, {self.input_name: np.zeros((8, 3, 224, 224), np.float32)})
        self.threads_added = len(set(os.listdir("/proc/self/task")) - before)
        self.first = None
        self.last = None
        self.items = 0
        self.cpu0 = None

    def __call__(self, batch):
        if self.first is None:
            self.first = time.perf_counter()
            self.cpu0 = time.process_time()
        (out,) = self.session.run(None, {self.input_name: batch["image"]})
        self.items += len(out)
        self.last = time.perf_counter()
        stats = {
            "pid": os.getpid(),
            "items": self.items,
            "busy_wall": self.last - self.first,
            "cpu": time.process_time() - self.cpu0,
            "threads_added": self.threads_added,
        }
        n = len(out)
        return {"id": batch["id"], "stats": np.array([repr(stats)] * n, dtype=object)}


class LoomActor(Timed):
    def __init__(self, model):
        import loom

        self.setup(lambda: loom.InferenceSession(model))


class OrtActor(Timed):
    def __init__(self, model, threads):
        import onnxruntime as ort

        def make():
            options = ort.SessionOptions()
            if threads:
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
            return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

        self.setup(make)


def images(batch):
    ids = batch["id"]
    x = np.stack([np.random.default_rng(int(i)).standard_normal((3, 224, 224), dtype=np.float32)
                  for i in ids])
    return {"id": ids, "image": x}


def run(config, actors, model, items):
    kind, kwargs = {
        "loom": (LoomActor, {"model": model}),
        "ort-default": (OrtActor, {"model": model, "threads": 0}),
        "ort-allotted": (OrtActor, {"model": model, "threads": 1}),
    }[config]
    # Inputs from the object store: no read task competes for the CPUs the
    # actors hold (2 actors x 1 CPU fill a 2-CPU machine).
    x = images({"id": np.arange(items)})["image"]
    ds = ray.data.from_items([{"id": i, "image": x[i]} for i in range(items)])
    rows = ds.map_batches(kind, fn_constructor_kwargs=kwargs, concurrency=actors, num_cpus=1,
                          batch_size=8).take_all()
    last = {}
    for r in rows:
        s = eval(r["stats"])  # noqa: S307 - our own repr of a dict of numbers
        if s["items"] > last.get(s["pid"], {"items": -1})["items"]:
            last[s["pid"]] = s
    per_actor = list(last.values())
    throughput = sum(s["items"] / s["busy_wall"] for s in per_actor)
    return {
        "items_per_s": throughput,
        "cpu_per_item_ms": 1e3 * sum(s["cpu"] for s in per_actor) / items,
        "cpu_share": [s["cpu"] / s["busy_wall"] for s in per_actor],
        "threads_added": [s["threads_added"] for s in per_actor],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=str(DEFAULT_MODEL))
    p.add_argument("--items", type=int, default=128)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    ray.init(include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    configs = ["loom", "ort-default", "ort-allotted"]
    results = {}
    for rep in range(args.reps):
        for actors in (1, 2):
            for config in configs:
                r = run(config, actors, args.model, args.items)
                results.setdefault((config, actors), []).append(r)
                print(rep, config, actors, r, file=sys.stderr, flush=True)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    print(f"CPU: {cpu}, {os.cpu_count()} logical CPUs; Ray {ray.__version__}; "
          f"model {pathlib.Path(args.model).name}; {args.items} images; median of {args.reps} "
          "interleaved repetitions\n")
    print("| runtime | actors x CPUs | items/s | vs loom | CPU ms / item | CPU used / actor "
          "(share of its busy time) | threads added / actor |")
    print("|---|---|---|---|---|---|---|")
    for actors in (1, 2):
        base = statistics.median(r["items_per_s"] for r in results[("loom", actors)])
        for config in configs:
            rs = results[(config, actors)]
            ips = statistics.median(r["items_per_s"] for r in rs)
            cpu_item = statistics.median(r["cpu_per_item_ms"] for r in rs)
            share = statistics.median(max(r["cpu_share"]) for r in rs)
            threads = sorted(set(t for r in rs for t in r["threads_added"]))
            print(f"| {config} | {actors} x 1 | {ips:.1f} | {ips / base:.2f} | {cpu_item:.1f} | "
                  f"{share:.2f} | {threads} |")
    ray.shutdown()


if __name__ == "__main__":
    main()
