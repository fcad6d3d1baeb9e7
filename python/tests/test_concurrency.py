"""Many Python threads at once: one shared session, eager ops, and the GIL
released while Loom computes, so the threads really run in parallel.

Parallelism is measured as process CPU time over wall time while the threads
run. Other processes on the machine can steal CPUs, so a measurement is
retried a few times; a runtime that held the GIL could never exceed one core
in any attempt.
"""

import threading
import time

import numpy as np
import pytest

import loom
from conftest import assert_close, needs_two_cpus, run_json
import onnx_models

THREADS = 8
MIN_CORES = 1.3
ATTEMPTS = 3


def run_in_threads(work, count=THREADS):
    """Runs work(i) on `count` threads started together; returns (results by
    index, CPU seconds / wall seconds over the run)."""
    barrier = threading.Barrier(count + 1)
    results = [None] * count
    errors = []

    def body(i):
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as e:  # reported on the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    barrier.wait()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.join()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    if errors:
        raise errors[0]
    return results, cpu / wall


def matmul_chain_reference(model, x):
    """The matmul_chain model in float64 NumPy."""
    from onnx import numpy_helper

    weights = {w.name: numpy_helper.to_array(w).astype(np.float64) for w in model.graph.initializer}
    h = x.astype(np.float64)
    for i in range(len(weights)):
        h = np.maximum(h @ weights[f"w{i}"], 0.0)
    return h.astype(np.float32)


@pytest.fixture(scope="module")
def chain():
    # About 5 ms of single-thread work per run on the development machines.
    model = onnx_models.matmul_chain(size=256, layers=4)
    session = loom.InferenceSession(model.SerializeToString(), intra_op_num_threads=1,
                                    inter_op_num_threads=1)
    return model, session


def test_one_session_from_many_threads_gives_the_single_threaded_results(chain, rng):
    model, session = chain
    inputs = [rng.standard_normal((64, 256)).astype(np.float32) for _ in range(THREADS)]
    expected = [session.run(None, {"x": x})[0] for x in inputs]
    for x, reference in zip(inputs, expected):
        assert_close(reference, matmul_chain_reference(model, x))

    def work(i):
        return [session.run(None, {"x": inputs[i]})[0] for _ in range(10)]

    results, _ = run_in_threads(work)
    for i, outputs in enumerate(results):
        for out in outputs:
            # Every kernel is bit-exact across runs; a mixed-up buffer is not.
            np.testing.assert_array_equal(out, expected[i])


@needs_two_cpus
def test_one_session_from_many_threads_runs_in_parallel(chain, rng):
    _, session = chain
    x = rng.standard_normal((1024, 256)).astype(np.float32)
    session.run(None, {"x": x})  # warm-up: buffers, packed weights

    def work(i):
        for _ in range(40):
            session.run(None, {"x": x})

    cores = []
    for _ in range(ATTEMPTS):
        _, used = run_in_threads(work)
        cores.append(used)
        if used > MIN_CORES:
            break
    assert max(cores) > MIN_CORES, f"CPU/wall per attempt: {cores}"


EAGER_IN_THREADS = """
import json, threading, time
import numpy as np
import loom

THREADS, CALLS = 8, 300
rng = np.random.default_rng(7)
a = [rng.standard_normal((256, 256)).astype(np.float32) for _ in range(THREADS)]
b = rng.standard_normal((256, 256)).astype(np.float32)
expected = [(x.astype(np.float64) @ b.astype(np.float64)).astype(np.float32) for x in a]
loom.ops.matmul(a[0], b)  # starts the runtime outside the measurement
ok = [False] * THREADS
barrier = threading.Barrier(THREADS + 1)

def work(i):
    barrier.wait()
    for _ in range(CALLS):
        out = loom.ops.matmul(a[i], b)
    ok[i] = bool(np.allclose(out, expected[i], rtol=1e-4, atol=1e-3))

cores = []
for attempt in range(3):
    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    barrier.wait()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for t in threads:
        t.join()
    cores.append((time.process_time() - cpu0) / (time.perf_counter() - wall0))
    if cores[-1] > 1.3:
        break
print(json.dumps({"cores": cores, "ok": ok,
                  "intra": loom.config.threading.get_intra_op_parallelism_threads(),
                  "threads": [t["name"] for t in loom.config.threading.describe()["threads"]]}))
"""


@needs_two_cpus
def test_eager_ops_from_many_threads_run_in_parallel():
    # With one intra-op thread each call runs on its caller alone, so any
    # parallelism comes from the Python threads running at once.
    out = run_json(EAGER_IN_THREADS, {"LOOM_NUM_INTRAOP_THREADS": "1"}, timeout=120)
    assert out["intra"] == 1
    assert not any(name.startswith("loom-intra-") for name in out["threads"])
    assert all(out["ok"])
    assert max(out["cores"]) > MIN_CORES, f"CPU/wall per attempt: {out['cores']}"


def test_eager_ops_from_many_threads_give_correct_results(rng):
    a = [rng.standard_normal((64, 48)).astype(np.float32) for _ in range(THREADS)]
    b = rng.standard_normal((48, 32)).astype(np.float32)
    expected = [(x.astype(np.float64) @ b.astype(np.float64)).astype(np.float32) for x in a]

    def work(i):
        return [loom.ops.relu(loom.ops.matmul(a[i], b)) for _ in range(20)]

    results, _ = run_in_threads(work)
    for i, outputs in enumerate(results):
        for out in outputs:
            assert_close(out, np.maximum(expected[i], 0), rtol=1e-5, atol=1e-5)


def longest_pause_while(work):
    """Runs work() on a thread while this thread counts in a loop; returns the
    longest pause between two iterations, start() included (a thread that
    keeps the GIL may run its whole call inside start())."""
    done = threading.Event()
    worker = threading.Thread(target=lambda: (work(), done.set()))
    longest_pause = 0.0
    last = time.perf_counter()
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_pause = max(longest_pause, now - last)
        last = now
    worker.join()
    return longest_pause


def shortest_longest_pause(work, limit):
    """longest_pause_while(work) until one attempt is under `limit`; returns
    every attempt's pause (the smallest is what counts)."""
    pauses = []
    for _ in range(ATTEMPTS):
        pauses.append(longest_pause_while(work))
        if pauses[-1] < limit:
            break
    return pauses


def timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_pause_measurement_detects_a_held_gil():
    # The control: sorted() keeps the GIL for its whole call.
    data = list(np.random.default_rng(5).random(400_000))
    single = timed(lambda: sorted(data))
    pause = longest_pause_while(lambda: [sorted(data) for _ in range(2)])
    assert pause > single / 2, (single, pause)


@needs_two_cpus
def test_session_run_releases_the_gil(rng):
    model = onnx_models.matmul_chain(size=1024, layers=6)
    session = loom.InferenceSession(model.SerializeToString(), intra_op_num_threads=1,
                                    inter_op_num_threads=1)
    x = rng.standard_normal((1024, 1024)).astype(np.float32)
    single = timed(lambda: session.run(None, {"x": x}))
    pauses = shortest_longest_pause(lambda: [session.run(None, {"x": x}) for _ in range(2)],
                                    single / 2)
    assert min(pauses) < single / 2, f"single run {single:.3f}s, pauses {pauses}"


@needs_two_cpus
def test_eager_op_releases_the_gil(rng):
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    single = timed(lambda: loom.ops.matmul(a, a))
    pauses = shortest_longest_pause(lambda: [loom.ops.matmul(a, a) for _ in range(3)],
                                    single / 2)
    assert min(pauses) < single / 2, f"single call {single:.3f}s, pauses {pauses}"
