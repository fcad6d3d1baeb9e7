"""Lifetime of loom.data iterators and datasets: abandoning or closing a
pipeline stops its work promptly, an interpreter exits cleanly with a live
pipeline, Python callables are released with their dataset, and an idle
pipeline computes at most a bounded number of elements ahead.
"""

import gc
import subprocess
import sys
import threading
import time
import weakref

import numpy as np
import pytest

from conftest import REPO_ROOT, clean_env, run_python
from loom.data import AUTOTUNE, Dataset

INFINITE = 10**9


class CallCounter:
    """A map function that counts its calls (and may sleep)."""

    def __init__(self, sleep=0.0):
        self.sleep = sleep
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, x):
        if self.sleep:
            time.sleep(self.sleep)
        with self.lock:
            self.calls += 1
        return x


def settle(counter, quiet=0.15, limit=3.0):
    """Waits until `counter` has not moved for `quiet` seconds; returns its
    value."""
    deadline = time.monotonic() + limit
    last = counter.calls
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = counter.calls
        if now == last:
            return now
        last = now
    return counter.calls


def test_abandoning_an_infinite_pipeline_stops_its_work():
    slow = CallCounter(sleep=0.01)
    it = iter(Dataset.range(INFINITE).map(slow, num_parallel_calls=2).prefetch(4))
    assert [int(next(it)) for _ in range(5)] == [0, 1, 2, 3, 4]
    start = time.perf_counter()
    del it
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, elapsed
    stopped_at = slow.calls
    time.sleep(0.2)
    assert slow.calls == stopped_at, "map calls went on after the iterator was dropped"


def test_close_stops_the_work_and_ends_the_iteration():
    slow = CallCounter(sleep=0.005)
    it = iter(Dataset.range(INFINITE).map(slow, num_parallel_calls=2).prefetch(4))
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    start = time.perf_counter()
    it.close()
    assert time.perf_counter() - start < 2.0
    stopped_at = slow.calls
    with pytest.raises(StopIteration):
        next(it)
    assert list(it) == []
    it.close()  # closing again is fine
    time.sleep(0.15)
    assert slow.calls == stopped_at


def test_close_before_the_first_element():
    it = iter(Dataset.range(10).map(lambda x: x, num_parallel_calls=2))
    it.close()
    with pytest.raises(StopIteration):
        next(it)


def test_an_iterator_keeps_its_dataset_alive():
    def make():
        ds = Dataset.range(20).map(lambda x: x * 2, num_parallel_calls=2)
        return iter(ds.batch(5).prefetch(2))

    it = make()
    gc.collect()
    assert [b.tolist() for b in it] == [[2 * i for i in range(k, k + 5)] for k in range(0, 20, 5)]


class Callable:
    def __call__(self, *args):
        return args[0] if len(args) == 1 else args


def freed_after(build):
    """Calls build(fn, gen) inside a function scope with fresh callables and
    reports whether both were freed once that scope is gone."""
    def scope():
        fn = Callable()

        def generator():
            yield from (np.int64(i) for i in range(100))

        refs = (weakref.ref(fn), weakref.ref(generator))
        build(fn, generator)
        return refs

    refs = scope()
    gc.collect()
    return [r() is None for r in refs]


@pytest.mark.parametrize(
    "build",
    [
        lambda fn, gen: Dataset.range(10).map(fn),
        lambda fn, gen: list(Dataset.from_generator(gen).map(fn, num_parallel_calls=2)),
        lambda fn, gen: next(
            iter(Dataset.from_generator(gen).map(fn, num_parallel_calls=2).prefetch(4))),
        lambda fn, gen: next(
            iter(Dataset.range(INFINITE).filter(fn).map(fn, num_parallel_calls=AUTOTUNE))),
        lambda fn, gen: list(
            Dataset.range(3)
            .interleave(lambda x: Dataset.from_generator(gen).map(fn), cycle_length=2)
            .take(10)),
    ],
    ids=["built_only", "drained", "abandoned_mid_pass", "abandoned_infinite", "interleave"],
)
def test_callables_are_freed_with_their_dataset(build):
    assert freed_after(build) == [True, True]


def test_callables_stay_alive_while_their_dataset_does():
    fn = Callable()
    ref = weakref.ref(fn)
    ds = Dataset.range(5).map(fn, num_parallel_calls=2)
    del fn
    gc.collect()
    assert ref() is not None
    assert [int(x) for x in ds] == list(range(5))
    del ds
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize(
    "npc, prefetch, parallelism_bound, buffer_bound",
    [(2, 4, 2, 4), (4, 2, 4, 2), (1, 8, 1, 8), (AUTOTUNE, AUTOTUNE, 2, 16), (2, None, 2, 0)],
    ids=["map2-prefetch4", "map4-prefetch2", "map1-prefetch8", "autotune", "map2"],
)
def test_an_idle_pipeline_computes_a_bounded_number_ahead(npc, prefetch, parallelism_bound,
                                                           buffer_bound):
    # A map holds at most 2 x its parallelism (in progress plus finished), a
    # prefetch its buffer of finished elements plus the one it computes
    # (docs/data.md). AUTOTUNE: a map never goes past the pool (2 on the test
    # machines' automatic setting, see test_data_stats), a prefetch buffer
    # past 16.
    import loom

    if npc == AUTOTUNE:
        parallelism_bound = loom.config.threading.get_data_pipeline_threads()
    counter = CallCounter()
    ds = Dataset.range(INFINITE).map(counter, num_parallel_calls=npc)
    if prefetch is not None:
        ds = ds.prefetch(prefetch)
    it = iter(ds)
    consumed = 40
    assert [int(next(it)) for _ in range(consumed)] == list(range(consumed))
    computed = settle(counter)
    in_prefetch = buffer_bound + 1 if prefetch is not None else 0
    assert consumed <= computed <= consumed + 2 * parallelism_bound + in_prefetch, computed
    del it


def test_concurrent_iterators_from_python_threads():
    ds = Dataset.range(500).map(lambda x: x * 7, num_parallel_calls=2).prefetch(2)
    results = {}

    def consume(key):
        results[key] = [int(x) for x in ds]

    threads = [threading.Thread(target=consume, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    assert results == {k: [7 * i for i in range(500)] for k in range(4)}


# ---- interpreter exit with live pipelines ----

EXIT_WITH_LIVE_PIPELINE = """
import sys, threading, time
import numpy as np
import loom
from loom.data import Dataset

entered = threading.Event()

def sleeping(x):
    entered.set()
    time.sleep(0.05)
    return x

def busy(x):
    entered.set()
    end = time.perf_counter() + 0.03
    n = 0
    while time.perf_counter() < end:  # pure Python: holds the GIL
        n += 1
    return x

def numpy_work(x):
    entered.set()
    a = np.ones((200, 200))
    return (a @ a)[0, :2]

fn = {fn}
it = iter(Dataset.range(10**9).map(fn, num_parallel_calls=2).prefetch(4))
next(it)
next(it)
entered.clear()
entered.wait(5)  # a map call is running right now
print("exiting", flush=True)
{exit}
"""


@pytest.mark.parametrize("fn", ["sleeping", "busy", "numpy_work"])
@pytest.mark.parametrize("exit", ["pass", "sys.exit(0)"], ids=["end_of_script", "sys_exit"])
def test_interpreter_exits_cleanly_with_a_live_pipeline(fn, exit):
    start = time.perf_counter()
    result = run_python(EXIT_WITH_LIVE_PIPELINE.format(fn=fn, exit=exit), timeout=30)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stderr
    assert "exiting" in result.stdout
    for word in ("leaked", "Fatal", "Traceback", "terminate"):
        assert word not in result.stderr, result.stderr
    assert elapsed < 10, elapsed


DAEMON_CONSUMER = """
import threading, time
import loom
from loom.data import Dataset

def fn(x):
    time.sleep(0.01)
    return x

iterating = threading.Event()

def consume():
    for _ in Dataset.range(10**9).map(fn, num_parallel_calls=2).prefetch(2):
        iterating.set()

threading.Thread(target=consume, daemon=True).start()
# Exit while the daemon thread iterates (test_exit_under_load.py covers
# every kind of call in flight and every way of exiting).
iterating.wait(30)
time.sleep(0.2)
print("exiting", flush=True)
"""


def test_interpreter_exits_cleanly_with_an_iterator_on_a_daemon_thread():
    # The crash is a race: several children at once make one (practically) certain.
    children = [
        subprocess.Popen([sys.executable, "-c", DAEMON_CONSUMER], env=clean_env(), cwd=REPO_ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(8)
    ]
    outcomes = []
    for child in children:
        stdout, stderr = child.communicate(timeout=60)
        outcomes.append((child.returncode, "exiting" in stdout, stderr))
    for returncode, printed, stderr in outcomes:
        assert printed and returncode == 0, (returncode, stderr)
        for word in ("leaked", "Fatal", "Traceback", "terminate"):
            assert word not in stderr, stderr
