"""One input-pipeline measurement, loom.data or tf.data, in its own process; prints one JSON line.

The pipeline is the same in both (data_pipeline_compare.py runs this worker):

    from_tensor_slices(512 uint8 images 96x96x3, fixed seed)
      -> map(augment, num_parallel_calls)     # NumPy; tf.numpy_function in TF
      -> batch(8, drop_remainder=True) -> prefetch(AUTOTUNE)
      -> consume(batch)                       # fixed NumPy work per batch, or nothing

augment converts to float32 CHW, runs BLUR_PASSES separable blurs (a band
matrix on each side, np.matmul over the three channels), crops 64x64 at an
offset read from the image and normalizes each channel: about 1.3 ms of one
core, nearly all of it in matmul, which releases the GIL. consume is
CONSUMER_ROUNDS 64x64 matmuls over the batch into preallocated buffers,
about 1.7 ms, a stand-in for a model. The driver sets OPENBLAS_NUM_THREADS=1,
so NumPy starts no BLAS pool.

Thread settings, each only when given (else the runtime's automatic value):
  --intra / --inter  tf.config.threading.set_{intra,inter}_op_parallelism_threads,
                     loom.config.threading.set_{intra,inter}_op_parallelism_threads
  --cpu-budget N     tf.data.Options().autotune.cpu_budget / loom.data.Options().autotune.cpu_budget
  --pool N           TF: Options().threading.private_threadpool_size;
                     Loom: loom.config.threading.set_data_pipeline_threads
  --parallel-calls   the map's num_parallel_calls: "autotune" or a count

One warm-up pass (a full iterator, consumed, then dropped), then the timed
pass: a fresh iterator from iter() to the last batch. After it, with that
iterator still alive: the kernel's list of the process's threads
(/proc/self/task/*/comm, digits shown as "*", the main thread as "main"),
those created since just before the pipeline was built, and each thread
name's CPU over the timed pass (utime + stime, 10 ms ticks; a thread that
ended during the pass is missing). Each augment call also records its thread
and times: map_cores (their thread CPU time over the pass's wall time,
wherever they ran: what cpu_budget bounds), map_threads (the distinct threads
that ran them, by name) and map_max_concurrent (the most calls in progress at
one moment).

    python3 bench/compare/workers/data_pipeline_worker.py --runtime loom --intra 1 --inter 1
    .venv-compare/bin/python bench/compare/workers/data_pipeline_worker.py --runtime tensorflow
"""
import argparse
import json
import os
import re
import resource
import sys
import threading
import time

import numpy as np

PROCESS_START = time.perf_counter()

IMAGES, SIZE, CHANNELS, CROP, BATCH = 512, 96, 3, 64, 8
BLUR_PASSES = 12      # one augment ~1.3 ms of one core on the 2-vCPU EPYC VM (map_cpu_ms)
CONSUMER_ROUNDS = 12  # ~1.7 ms per batch there (consumer_cpu_ms)
AUTOTUNE_ARG = "autotune"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runtime", required=True, choices=["loom", "tensorflow"])
    parser.add_argument("--consumer", default="model", choices=["model", "none"])
    parser.add_argument("--intra", type=int)
    parser.add_argument("--inter", type=int)
    parser.add_argument("--cpu-budget", type=int)
    parser.add_argument("--pool", type=int, help="threads for the pipeline (see the docstring)")
    parser.add_argument("--parallel-calls", default=AUTOTUNE_ARG,
                        help="map num_parallel_calls: 'autotune' or a count")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.parallel_calls != AUTOTUNE_ARG:
        args.parallel_calls = int(args.parallel_calls)
    return args


# ---- the work, identical in both runtimes -------------------------------------------------

def blur_matrix(n):
    """[1 2 1] / 4 as an n x n band matrix, edges clamped: B @ x blurs x's rows."""
    b = np.zeros((n, n), np.float32)
    for i in range(n):
        for j, w in ((i - 1, 0.25), (i, 0.5), (i + 1, 0.25)):
            b[i, min(max(j, 0), n - 1)] += w
    return b


BLUR = blur_matrix(SIZE)
BLUR_T = np.ascontiguousarray(BLUR.T)
MIX = (np.eye(CROP, dtype=np.float32) * 0.5
       + np.random.default_rng(1).standard_normal((CROP, CROP)).astype(np.float32) / (2 * CROP))
# One (start, end, thread CPU s, thread id) per augment call. list.append is atomic under
# the GIL: safe from any pipeline thread.
MAP_CALLS = []
CONSUMER_CPU_S = []
CONSUMER_BUFFERS = [np.empty((BATCH * CHANNELS * CROP, CROP), np.float32) for _ in range(2)]


def make_images(seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(IMAGES, SIZE, SIZE, CHANNELS), dtype=np.uint8)


def augment(image):
    """uint8 [96, 96, 3] -> float32 [3, 64, 64]: blurred, cropped, normalized per channel."""
    start, cpu_start = time.perf_counter(), time.thread_time()
    x = np.ascontiguousarray(image.transpose(2, 0, 1), dtype=np.float32) * np.float32(1 / 255)
    for _ in range(BLUR_PASSES):
        x = np.matmul(np.matmul(BLUR, x), BLUR_T)
    top = int(image[0, 0, 0]) % (SIZE - CROP + 1)
    left = int(image[0, 1, 0]) % (SIZE - CROP + 1)
    crop = x[:, top:top + CROP, left:left + CROP]
    mean = crop.mean(axis=(1, 2), keepdims=True)
    std = crop.std(axis=(1, 2), keepdims=True) + np.float32(1e-5)
    out = np.ascontiguousarray((crop - mean) / std, dtype=np.float32)
    MAP_CALLS.append((start, time.perf_counter(), time.thread_time() - cpu_start,
                      threading.get_native_id()))
    return out


def consume(batch):
    """The model stand-in: CONSUMER_ROUNDS matmuls of the batch's rows by a 64x64 matrix,
    into preallocated buffers (as a model's arena): a fresh 393 KB result per round came
    from mmap in most Loom processes and page-faulted (160 faults, +0.3 ms per batch),
    never in TF's (cause not pinned down; glibc's adaptive mmap threshold is a guess)."""
    start = time.thread_time()
    x = batch.reshape(-1, CROP)
    for round_ in range(CONSUMER_ROUNDS):
        out = CONSUMER_BUFFERS[round_ % 2]
        np.matmul(x, MIX, out=out)
        x = out
    result = float(x[0, 0])
    CONSUMER_CPU_S.append(time.thread_time() - start)
    return result


# ---- the two runtimes ---------------------------------------------------------------------

class LoomSide:
    def __init__(self, args):
        import loom
        self.loom = loom
        self.version = "loom " + getattr(loom, "__version__", "?")
        t = loom.config.threading
        self.settings = []
        if args.intra is not None:
            t.set_intra_op_parallelism_threads(args.intra)
            self.settings.append(f"loom.config.threading.set_intra_op_parallelism_threads({args.intra})")
        if args.inter is not None:
            t.set_inter_op_parallelism_threads(args.inter)
            self.settings.append(f"loom.config.threading.set_inter_op_parallelism_threads({args.inter})")
        if args.pool is not None:
            t.set_data_pipeline_threads(args.pool)
            self.settings.append(f"loom.config.threading.set_data_pipeline_threads({args.pool})")
        if args.cpu_budget is not None:
            self.settings.append(f"loom.data.Options().autotune.cpu_budget = {args.cpu_budget}")
        self.args = args

    def build(self, images):
        data = self.loom.data
        calls = data.AUTOTUNE if self.args.parallel_calls == AUTOTUNE_ARG else self.args.parallel_calls
        ds = (data.Dataset.from_tensor_slices(images)
              .map(augment, num_parallel_calls=calls)
              .batch(BATCH, drop_remainder=True)
              .prefetch(data.AUTOTUNE))
        if self.args.cpu_budget is not None:
            options = data.Options()
            options.autotune.cpu_budget = self.args.cpu_budget
            ds = ds.with_options(options)
        return ds

    @staticmethod
    def iterate(ds):
        return ds.as_numpy_iterator()

    @staticmethod
    def drop(it):
        it.close()

    def choice(self, it):
        described = self.loom.config.threading.describe()
        in_force = {key: described[key + "_threads"]["value"]
                    for key in ("intra_op_parallelism", "inter_op_parallelism", "data_pipeline")}
        return {"visible": True, "stats": it.stats(), "in_force": in_force}


class TensorFlowSide:
    def __init__(self, args):
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # logging only; stdout is one JSON line
        import tensorflow as tf
        self.tf = tf
        self.version = "tensorflow " + tf.__version__
        self.settings = []
        if args.intra is not None:
            tf.config.threading.set_intra_op_parallelism_threads(args.intra)
            self.settings.append(f"tf.config.threading.set_intra_op_parallelism_threads({args.intra})")
        if args.inter is not None:
            tf.config.threading.set_inter_op_parallelism_threads(args.inter)
            self.settings.append(f"tf.config.threading.set_inter_op_parallelism_threads({args.inter})")
        if args.cpu_budget is not None:
            self.settings.append(f"tf.data.Options().autotune.cpu_budget = {args.cpu_budget}")
        if args.pool is not None:
            self.settings.append(
                f"tf.data.Options().threading.private_threadpool_size = {args.pool}")
        self.args = args

    def build(self, images):
        tf = self.tf

        def tf_augment(image):
            out = tf.numpy_function(augment, [image], tf.float32, stateful=False)
            out.set_shape([CHANNELS, CROP, CROP])
            return out

        calls = tf.data.AUTOTUNE if self.args.parallel_calls == AUTOTUNE_ARG else self.args.parallel_calls
        ds = (tf.data.Dataset.from_tensor_slices(images)
              .map(tf_augment, num_parallel_calls=calls)
              .batch(BATCH, drop_remainder=True)
              .prefetch(tf.data.AUTOTUNE))
        if self.args.cpu_budget is not None or self.args.pool is not None:
            options = tf.data.Options()
            if self.args.cpu_budget is not None:
                options.autotune.cpu_budget = self.args.cpu_budget
            if self.args.pool is not None:
                options.threading.private_threadpool_size = self.args.pool
            ds = ds.with_options(options)
        return ds

    @staticmethod
    def iterate(ds):
        return ds.as_numpy_iterator()

    @staticmethod
    def drop(it):
        del it  # tf.data has no close(); the caller drops its reference too

    @staticmethod
    def choice(it):
        return {"visible": False, "stats": None,
                "note": "tf.data 2.x has no public API that reports the parallelism or buffer "
                        "AUTOTUNE chose"}


# ---- the census ---------------------------------------------------------------------------

def thread_name(raw):
    """Digit runs shown as "*": "loom-data-0" -> "loom-data-*"."""
    return re.sub(r"\d+", "*", raw) or "?"


def tasks():
    """{tid: (name, cpu ticks)} for this process's threads, from /proc/self/task. The main
    thread is "main": threads a library leaves unnamed inherit its name ("python")."""
    found = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = "main" if int(tid) == os.getpid() else thread_name(f.read().strip())
            with open(f"/proc/self/task/{tid}/stat") as f:
                # Fields after the ")" that ends comm: utime and stime are the 12th and 13th.
                fields = f.read().rsplit(")", 1)[1].split()
            found[int(tid)] = (name, int(fields[11]) + int(fields[12]))
        except (OSError, IndexError, ValueError):  # the thread ended while being read
            continue
    return found


def by_name(entries):
    counts = {}
    for name in entries:
        counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def cpu_by_name(before, after, wall_s):
    ticks = os.sysconf("SC_CLK_TCK")
    cores = {}
    for tid, (name, cpu) in after.items():
        used = cpu - before.get(tid, (name, 0))[1]
        cores[name] = cores.get(name, 0.0) + used / ticks / wall_s
    return {name: round(value, 3) for name, value in sorted(cores.items()) if value > 0}


def max_overlap(intervals):
    """The most intervals (start, end) open at one moment."""
    events = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    most = now = 0
    for _, step in events:  # at a tie the end (-1) sorts first: touching is not overlapping
        now += step
        most = max(most, now)
    return most


def map_summary(calls, names, wall_s):
    """What the augment calls of the timed pass say: cost, where they ran, how many at once."""
    if not calls:
        return {"map_calls": 0, "map_cpu_ms": None, "map_wall_ms": None, "map_cores": 0.0,
                "map_threads": {},
                "map_max_concurrent": 0}
    tids = {tid for *_, tid in calls}
    return {
        "map_calls": len(calls),
        "map_cpu_ms": 1e3 * float(np.median([cpu for _, _, cpu, _ in calls])),
        # Above map_cpu_ms: the call waited (for a core, or for the GIL between NumPy calls).
        "map_wall_ms": 1e3 * float(np.median([end - start for start, end, _, _ in calls])),
        # The pipeline's own compute wherever it ran: what cpu_budget limits.
        "map_cores": sum(cpu for _, _, cpu, _ in calls) / wall_s,
        # Distinct threads that ran augment, by name ("?" if gone by the census).
        "map_threads": by_name(names.get(tid, ("?", 0))[0] for tid in tids),
        "map_max_concurrent": max_overlap([(start, end) for start, end, _, _ in calls]),
    }


def run_pass(side, ds, consumer, census=None):
    """Iterates one full pass; returns (iterator, batches, checksum). census() runs after
    each batch when given."""
    it = side.iterate(ds)
    checksum, batches = 0.0, 0
    for batch in it:
        batches += 1
        # Order-sensitive; a corner of each image, since whole normalized images sum to ~0.
        checksum += batches * float(batch[:, :, :8, :8].sum(dtype=np.float64))
        if consumer == "model":
            consume(batch)
        if census:
            census()
    return it, batches, checksum


def main(argv=None):
    args = parse_args(argv)
    images = make_images(args.seed)
    side = LoomSide(args) if args.runtime == "loom" else TensorFlowSide(args)
    before_build = tasks()
    ds = side.build(images)
    ready = time.perf_counter()

    warm, _, _ = run_pass(side, ds, args.consumer)
    side.drop(warm)
    del warm
    warmup_s = time.perf_counter() - ready

    MAP_CALLS.clear()
    CONSUMER_CPU_S.clear()
    peak = [0]

    def census():
        peak[0] = max(peak[0], len(os.listdir("/proc/self/task")))

    start_tasks = tasks()
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    it, batches, checksum = run_pass(side, ds, args.consumer, census)
    wall_s = time.perf_counter() - wall_start
    cpu_s = time.process_time() - cpu_start
    end_tasks = tasks()  # the iterator is still alive here
    new = [name for tid, (name, _) in end_tasks.items() if tid not in before_build]

    result = {
        "runtime": side.version,
        "python": sys.version.split()[0], "numpy": np.__version__,
        "settings": side.settings or ["none (automatic)"],
        "parallel_calls": args.parallel_calls, "consumer": args.consumer,
        "images": batches * BATCH, "batches": batches,
        "images_per_s": batches * BATCH / wall_s, "wall_s": wall_s,
        "cpu_cores": cpu_s / wall_s,
        "threads_total": len(end_tasks), "threads": by_name(n for n, _ in end_tasks.values()),
        "threads_before_build": by_name(n for n, _ in before_build.values()),
        "new_threads_total": len(new), "new_threads": by_name(new),
        "threads_peak_during": peak[0],
        "cpu_cores_by_thread": cpu_by_name(start_tasks, end_tasks, wall_s),
        **map_summary(list(MAP_CALLS), end_tasks, wall_s),
        "consumer_cpu_ms": 1e3 * float(np.median(CONSUMER_CPU_S)) if CONSUMER_CPU_S else None,
        "checksum": checksum,
        "autotune_choice": side.choice(it),
        "setup_s": ready - PROCESS_START, "warmup_s": warmup_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "env": {k: v for k, v in os.environ.items()
                if re.match(r"(LOOM_|TF_NUM_|OMP_|MKL_|OPENBLAS_)", k)},
    }
    print(json.dumps(result), flush=True)
    side.drop(it)


if __name__ == "__main__":
    main()
