"""Parallel map: order (deterministic), completeness (non-deterministic),
real parallelism for work that releases the GIL, and Options.autotune.
cpu_budget seen as process CPU time.

CPU use is process CPU time / wall time (time.process_time /
time.perf_counter) measured in a child with the intra-op pool and NumPy's BLAS
single-threaded, so only the data pool can add cores. Other processes on the
machine can only lower what a child measures, so a lower bound is checked as
the best of a few attempts and an upper bound on one.
"""

import random
import threading
import time

import numpy as np
import pytest

from conftest import needs_two_cpus, run_json
from loom.data import AUTOTUNE, Dataset

N = 2000
PARALLEL = [1, 2, 4, AUTOTUNE]
PARALLEL_IDS = ["1", "2", "4", "AUTOTUNE"]


def ints(ds):
    return [int(x) for x in ds]


def jittery(fn, seed):
    """fn, after sleeping a random small time for about one element in
    eight: completions come back out of order."""
    lock = threading.Lock()
    random_source = random.Random(seed)

    def wrapped(*args):
        with lock:
            delay = random_source.choice([0.0] * 7 + [random_source.uniform(0.0001, 0.001)])
        if delay:
            time.sleep(delay)
        return fn(*args)

    return wrapped


@pytest.mark.parametrize("num_parallel_calls", PARALLEL, ids=PARALLEL_IDS)
def test_deterministic_parallel_map_keeps_the_order(num_parallel_calls):
    ds = Dataset.range(N).map(jittery(lambda x: x * 3 + 1, seed=1),
                              num_parallel_calls=num_parallel_calls, deterministic=True)
    assert ints(ds) == [3 * i + 1 for i in range(N)]


@pytest.mark.parametrize("num_parallel_calls", PARALLEL, ids=PARALLEL_IDS)
def test_deterministic_is_the_default(num_parallel_calls):
    ds = Dataset.range(N).map(jittery(lambda x: x - 5, seed=2),
                              num_parallel_calls=num_parallel_calls)
    assert ints(ds) == [i - 5 for i in range(N)]


@pytest.mark.parametrize("num_parallel_calls", PARALLEL, ids=PARALLEL_IDS)
def test_non_deterministic_parallel_map_yields_every_element_once(num_parallel_calls):
    ds = Dataset.range(N).map(jittery(lambda x: (x, x * x), seed=3),
                              num_parallel_calls=num_parallel_calls, deterministic=False)
    pairs = [(int(a), int(b)) for a, b in ds]
    assert sorted(pairs) == [(i, i * i) for i in range(N)]


@pytest.mark.parametrize("num_parallel_calls", PARALLEL, ids=PARALLEL_IDS)
def test_parallel_map_with_batch_and_prefetch(num_parallel_calls, rng):
    table = rng.standard_normal((N, 3))
    ds = (Dataset.from_tensor_slices((np.arange(N), table))
          .map(jittery(lambda i, row: (i, row * 2.0), seed=4),
               num_parallel_calls=num_parallel_calls)
          .batch(64)
          .prefetch(2))
    batches = list(ds)
    assert len(batches) == -(-N // 64)
    np.testing.assert_array_equal(np.concatenate([i for i, _ in batches]), np.arange(N))
    np.testing.assert_array_equal(np.concatenate([r for _, r in batches]), table * 2.0)


def test_a_slow_element_does_not_hold_back_the_others_when_not_deterministic():
    """Element 0 blocks until the consumer has ten other elements: only a
    stage that lets finished elements overtake can deliver them. (The
    consumer computes an element itself when nothing is in flight; an attempt
    where it took element 0 proves nothing either way and is retried.)"""
    main = threading.main_thread()
    for _ in range(5):
        gate = threading.Event()
        on_consumer = []

        def fn(x):
            if int(x) == 0:
                if threading.current_thread() is main:
                    on_consumer.append(True)
                else:
                    gate.wait(10)
            return x

        it = iter(Dataset.range(40).map(fn, num_parallel_calls=2, deterministic=False))
        first = [int(next(it)) for _ in range(10)]
        gate.set()
        rest = ints(it)
        assert sorted(first + rest) == list(range(40))
        if not on_consumer:
            assert 0 not in first, first
            return
    pytest.fail("the consumer computed element 0 itself in every attempt")


def test_a_slow_first_element_still_comes_first_when_deterministic():
    def fn(x):
        if int(x) == 0:
            time.sleep(0.05)  # the others finish meanwhile
        return x

    ds = Dataset.range(20).map(fn, num_parallel_calls=2, deterministic=True)
    assert ints(ds) == list(range(20))


def test_pure_python_functions_give_correct_results_in_parallel():
    def collatz_steps(x):
        n, steps = int(x) + 1, 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    def reference(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    expected = [reference(i + 1) for i in range(N)]
    for num_parallel_calls in (2, AUTOTUNE):
        ds = Dataset.range(N).map(collatz_steps, num_parallel_calls=num_parallel_calls)
        assert ints(ds) == expected


def thread_comm():
    """The kernel's name of the calling thread."""
    with open("/proc/thread-self/comm") as f:
        return f.read().strip()


def test_map_functions_run_on_loom_data_threads_and_the_consumer():
    import loom

    names = set()
    lock = threading.Lock()

    def fn(x):
        time.sleep(0.001)  # lets the pool's threads take turns
        name = thread_comm()
        with lock:
            names.add(name)
        return x

    consumer = thread_comm()
    assert ints(Dataset.range(200).map(fn, num_parallel_calls=2)) == list(range(200))
    pool = {f"loom-data-{i}" for i in range(loom.config.threading.get_data_pipeline_threads())}
    # The pool's threads, and the consumer when nothing was in flight: no
    # thread created for the pipeline.
    assert names <= pool | {consumer}, names
    assert names & pool, names


# ---- how many elements are computed at once ----


def peak_concurrency(budget, npc, n=150):
    """The most map calls inside loom.ops.matmul (which releases the GIL) at
    the same moment, counted under a lock."""
    import loom

    a = np.random.default_rng(3).standard_normal((256, 256)).astype(np.float32)
    expected = (a.astype(np.float64) @ a.astype(np.float64))[0, :4]
    lock = threading.Lock()
    inside = [0, 0]  # now, peak

    def fn(x):
        with lock:
            inside[0] += 1
            inside[1] = max(inside[1], inside[0])
        try:
            return loom.ops.matmul(a, a)[0, :4]
        finally:
            with lock:
                inside[0] -= 1

    options = loom.data.Options()
    options.autotune.cpu_budget = budget
    rows = list(Dataset.range(n).map(fn, num_parallel_calls=npc).with_options(options))
    assert len(rows) == n
    np.testing.assert_allclose(rows[-1], expected, rtol=1e-3, atol=1e-3 * np.abs(expected).max())
    return inside[1]


@needs_two_cpus
def test_two_parallel_calls_compute_two_elements_at_once():
    assert peak_concurrency(None, 2) == 2


@pytest.mark.parametrize("budget, npc, limit", [(1, 4, 1), (1, 2, 1), (2, 4, 2), (1, AUTOTUNE, 1)])
def test_cpu_budget_limits_the_elements_computed_at_once(budget, npc, limit):
    assert peak_concurrency(budget, npc) <= limit


# ---- CPU use, in children ----

# Runs `attempts` passes of a 0..n map whose function multiplies a matrix
# (loom.ops.matmul or np.dot, both release the GIL) and reports each pass's
# cores; stops early once a pass reaches `enough`.
CPU_CHILD = """
import json, time
import numpy as np
import loom
from loom.data import Dataset, Options, AUTOTUNE

rng = np.random.default_rng(7)
if {kind!r} == "loom":
    a = rng.standard_normal(({size}, {size})).astype(np.float32)
    def product():
        return loom.ops.matmul(a, a)
else:
    a = rng.standard_normal(({size}, {size}))
    def product():
        return np.dot(a, a)
expected_row = (a.astype(np.float64) @ a.astype(np.float64))[0, :8]

import threading
work = [0.0]
work_lock = threading.Lock()

def fn(x):
    t0 = time.thread_time()
    row = product()[0, :8]
    spent = time.thread_time() - t0
    with work_lock:
        work[0] += spent
    return row

options = Options()
options.autotune.cpu_budget = {budget}
ds = Dataset.range({n}).map(fn, num_parallel_calls={npc}).with_options(options)
for _ in ds.take(4):  # starts the pool and warms the caches
    pass
cores, work_cores, correct = [], [], True
for _ in range({attempts}):
    work[0] = 0.0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    rows = [row for row in ds]
    wall = time.perf_counter() - wall0
    cores.append((time.process_time() - cpu0) / wall)
    work_cores.append(work[0] / wall)
    atol = 1e-3 * np.abs(expected_row).max()
    correct = correct and len(rows) == {n} and all(
        np.allclose(r, expected_row, rtol=1e-3, atol=atol) for r in rows)
    if {enough} is not None and cores[-1] > {enough}:
        break
print(json.dumps({{"cores": cores, "work_cores": work_cores, "correct": bool(correct),
                   "pool": loom.config.threading.get_data_pipeline_threads()}}))
"""

SINGLE_THREADED = {
    "LOOM_NUM_INTRAOP_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "LOOM_NUM_DATA_THREADS": "2",
}


def cpu_run(kind="loom", size=384, n=120, npc=2, budget=None, attempts=3, enough=None,
            full=False):
    """Each pass's process cores (or the whole report when `full`)."""
    code = CPU_CHILD.format(kind=kind, size=size, n=n, npc=npc, budget=budget,
                            attempts=attempts, enough=enough)
    out = run_json(code, SINGLE_THREADED, timeout=120)
    assert out["correct"], "a map result differs from NumPy's product"
    assert out["pool"] == 2
    return out if full else out["cores"]


@needs_two_cpus
@pytest.mark.parametrize("kind", ["loom", "numpy"])
def test_gil_releasing_work_runs_on_two_cores(kind):
    cores = cpu_run(kind=kind, npc=2, attempts=4, enough=1.3)
    assert max(cores) > 1.3, cores


@needs_two_cpus
def test_sequential_map_uses_one_core():
    cores = cpu_run(npc=None, attempts=2)
    assert max(cores) < 1.15, cores


@needs_two_cpus
def test_cpu_budget_one_caps_a_map_of_four_to_one_core_of_work():
    # The CPU spent inside the map function (thread_time around the product)
    # per wall second: one core at most. The process as a whole burns more
    # (see the next tests), which is a bug of its own.
    out = cpu_run(npc=4, budget=1, attempts=2, full=True)
    assert max(out["work_cores"]) <= 1.1, out
    assert max(out["work_cores"]) > 0.2, out  # the measurement saw the work at all


# Work that only sleeps (releasing the GIL) costs no CPU: whatever the
# process burns meanwhile is the pipeline's own overhead. Upper bounds hold
# for every pass (other processes can only lower what a pass measures).
IDLE_CHILD = """
import json, time
import loom
from loom.data import Dataset, Options

def fn(x):
    time.sleep(0.002)
    return x

options = Options()
options.autotune.cpu_budget = {budget}
ds = Dataset.range(120).map(fn, num_parallel_calls={npc}).with_options(options)
for _ in ds:  # a whole pass first: the first one pays one-time costs
    pass
cores, values_ok = [], True
for _ in range(3):
    cpu0, wall0 = time.process_time(), time.perf_counter()
    values = [int(x) for x in ds]
    cores.append((time.process_time() - cpu0) / (time.perf_counter() - wall0))
    values_ok = values_ok and values == list(range(120))
print(json.dumps({{"cores": cores, "values_ok": values_ok}}))
"""


def idle_cores(budget, npc):
    out = run_json(IDLE_CHILD.format(budget=budget, npc=npc), {"LOOM_NUM_DATA_THREADS": "2"})
    assert out["values_ok"]
    return out["cores"]


@pytest.mark.parametrize("budget, npc", [(None, 4), (2, 4), (1, 1)])
def test_a_map_that_sleeps_burns_no_cpu(budget, npc):
    cores = idle_cores(budget, npc)
    assert max(cores) < 0.4, cores


@pytest.mark.parametrize("npc", [2, 4])
def test_a_map_that_sleeps_burns_no_cpu_under_a_budget_of_one(npc):
    cores = idle_cores(1, npc)
    assert max(cores) < 0.4, cores


@needs_two_cpus
def test_cpu_budget_two_lets_a_map_of_four_use_two_cores():
    cores = cpu_run(npc=4, budget=2, attempts=4, enough=1.3)
    assert max(cores) > 1.3, cores


@needs_two_cpus
def test_autotune_with_cpu_budget_one_uses_one_core():
    # AUTOTUNE never goes past the budget, so no task waits for a token and
    # the whole process stays within one core.
    cores = cpu_run(npc="AUTOTUNE", budget=1, attempts=2)
    assert max(cores) <= 1.1, cores
