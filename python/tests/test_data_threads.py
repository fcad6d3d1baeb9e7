"""The "loom-data-*" pool seen from Python (docs/data.md, "Threads"): its size
comes from LOOM_NUM_DATA_THREADS over set_data_pipeline_threads over
automatic, it is created when the first iterator starts (not by
start_runtime), and it follows the same rules as the other pools.

Each case runs in a fresh interpreter; the kernel's view
(/proc/self/task/*/comm) is the judge. A BLAS pool NumPy starts inherits the
name of the thread that imports NumPy, so iter(ds) imports NumPy on the
calling thread before any loom-data thread converts an element
(test_numpy_threads_never_take_a_data_thread_name checks it).
"""

import pytest

from conftest import THREAD_NAMES_SOURCE, run_json, run_python, usable_cpus

THREAD_NAMES = THREAD_NAMES_SOURCE + """
import json, warnings
def data_threads():
    return sorted(name for _, name in thread_names() if name.startswith("loom-data"))
"""

# Configures (SETUP), starts the runtime, iterates a pipeline with a parallel
# map and a prefetch, and reports the threads at each step.
ITERATE_AND_COUNT = THREAD_NAMES + """
import loom
from loom.data import Dataset
t = loom.config.threading
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    {setup}
    loom.start_runtime()
after_start = data_threads()
values = [int(x) for x in Dataset.range(100).map(lambda x: x + 1, num_parallel_calls=4).prefetch(2)]
after_iterating = data_threads()
described = t.describe()
print(json.dumps({{
    "after_start": after_start,
    "after_iterating": after_iterating,
    "values_ok": values == list(range(1, 101)),
    "get": t.get_data_pipeline_threads(),
    "setting": described["data_pipeline_threads"],
    "described_threads": sorted([d["tid"], d["name"]] for d in described["threads"]
                                if d["pool"] == "data"),
    "kernel_threads": [[tid, name] for tid, name in thread_names() if name.startswith("loom-data")],
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
}}))
"""


def iterate_and_count(setup="pass", env=None):
    out = run_json(ITERATE_AND_COUNT.format(setup=setup), env)
    assert out["values_ok"]
    return out


def expected_names(n):
    return sorted(f"loom-data-{i}" for i in range(n))


def test_automatic_pool_has_one_thread_per_usable_cpu():
    out = iterate_and_count()
    assert out["get"] == usable_cpus()
    assert out["setting"] == {"value": usable_cpus(), "source": "auto"}
    assert out["after_iterating"] == expected_names(usable_cpus())


def test_start_runtime_alone_creates_no_data_threads():
    out = iterate_and_count()
    assert out["after_start"] == []
    assert out["after_iterating"] != []


def test_no_data_threads_before_a_pipeline_iterates():
    out = run_json(THREAD_NAMES + """
import loom
from loom.data import Dataset
ds = Dataset.range(10).map(lambda x: x, num_parallel_calls=2).prefetch(2)
built = data_threads()
loom.start_runtime()
started = data_threads()
loom.config.threading.describe()
it = iter(ds)
iterating = data_threads()
print(json.dumps({"built": built, "started": started, "iterating": iterating,
                  "runtime": loom.runtime_started()}))
""")
    assert out["built"] == [] and out["started"] == []
    assert out["runtime"] is True
    assert out["iterating"] != []


def test_describe_lists_the_data_threads_with_their_kernel_ids():
    out = iterate_and_count()
    assert out["described_threads"] == sorted(out["kernel_threads"])


def test_env_sets_the_pool_size():
    out = iterate_and_count(env={"LOOM_NUM_DATA_THREADS": "3"})
    assert out["get"] == 3
    assert out["setting"] == {"value": 3, "source": "env:LOOM_NUM_DATA_THREADS"}
    assert out["after_iterating"] == expected_names(3)


@pytest.mark.parametrize("n", [1, 2])
def test_api_sets_the_pool_size(n):
    out = iterate_and_count(setup=f"t.set_data_pipeline_threads({n})")
    assert out["get"] == n
    assert out["setting"] == {"value": n, "source": "api"}
    assert out["after_iterating"] == expected_names(n)
    assert [w for w in out["warnings"] if "set_data_pipeline_threads" in w[1]] == []


def test_env_outranks_api_with_a_warning():
    out = iterate_and_count(setup="t.set_data_pipeline_threads(1)",
                            env={"LOOM_NUM_DATA_THREADS": "3"})
    assert out["get"] == 3
    assert out["setting"] == {"value": 3, "source": "env:LOOM_NUM_DATA_THREADS"}
    assert out["after_iterating"] == expected_names(3)
    overridden = [w for w in out["warnings"] if "set_data_pipeline_threads(1)" in w[1]]
    assert len(overridden) == 1, out["warnings"]
    category, message = overridden[0]
    assert category == "UserWarning"
    assert "LOOM_NUM_DATA_THREADS=3" in message


def test_tf_style_alias_does_not_exist():
    # tf.data has no such variable, so there is no TF_ alias to honour.
    out = iterate_and_count(env={"TF_NUM_DATA_THREADS": "3"})
    assert out["setting"]["source"] == "auto"


SET_AFTER_START = THREAD_NAMES + """
import loom
from loom.data import Dataset
t = loom.config.threading
t.set_data_pipeline_threads(1)
list(Dataset.range(3).prefetch(1))
result = {"same": None, "different": None}
t.set_data_pipeline_threads(1)  # the value in force: fine
result["same"] = "ok"
try:
    t.set_data_pipeline_threads(2)
except BaseException as e:
    result["different"] = [type(e).__name__, isinstance(e, RuntimeError), str(e)]
result["get"] = t.get_data_pipeline_threads()
result["threads"] = data_threads()
print(json.dumps(result))
"""


def test_changing_the_pool_size_after_start_is_runtime_error():
    out = run_json(SET_AFTER_START)
    assert out["same"] == "ok"
    name, is_runtime_error, message = out["different"]
    assert is_runtime_error, name
    assert message == "Data pipeline parallelism cannot be modified after initialization."
    assert out["get"] == 1
    assert out["threads"] == ["loom-data-0"]


def test_negative_pool_size_is_value_error():
    out = run_json("""
import json
import loom
try:
    loom.config.threading.set_data_pipeline_threads(-1)
    result = None
except BaseException as e:
    result = [type(e).__name__, isinstance(e, ValueError), str(e)]
print(json.dumps({"error": result, "get": loom.config.threading.get_data_pipeline_threads()}))
""")
    name, is_value_error, message = out["error"]
    assert is_value_error, name
    assert "-1" in message and "data_pipeline_threads" in message
    assert out["get"] >= 1


def test_invalid_env_value_fails_when_the_pipeline_starts():
    result = run_python("""
import loom
from loom.data import Dataset
ds = Dataset.range(3).map(lambda x: x, num_parallel_calls=2)
print("built", flush=True)
try:
    iter(ds)
except ValueError as e:
    print("ValueError:", e, flush=True)
    raise SystemExit(3)
print("iterated", flush=True)
""", {"LOOM_NUM_DATA_THREADS": "abc"})
    assert "built" in result.stdout, result.stderr
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "LOOM_NUM_DATA_THREADS" in result.stdout and "abc" in result.stdout
    assert "iterated" not in result.stdout


def test_data_threads_stay_after_the_iterator_is_gone():
    # Pool threads belong to the pool, not to an iterator: later pipelines
    # reuse them and no thread is created per pipeline.
    out = run_json(THREAD_NAMES + """
import gc
import loom
from loom.data import Dataset
loom.config.threading.set_data_pipeline_threads(2)
seen = []
for _ in range(5):
    it = iter(Dataset.range(50).map(lambda x: x, num_parallel_calls=2).prefetch(4))
    sum(1 for _ in it)
    del it
    gc.collect()
    seen.append(thread_names())
print(json.dumps(seen))
""")
    data = [sorted(tid for tid, name in names if name.startswith("loom-data")) for names in out]
    assert len(data[0]) == 2
    assert all(d == data[0] for d in data)  # the same two threads every time


NO_NUMPY_FIRST = """
import json, os, sys
assert "numpy" not in sys.modules
import loom
from loom.data import Dataset
assert "numpy" not in sys.modules  # iter() below imports it, on this thread
values = [int(x) for x in Dataset.range(50).map(lambda x: x, num_parallel_calls=2)]
names = []
for tid in os.listdir("/proc/self/task"):
    try:
        with open(os.path.join("/proc/self/task", tid, "comm")) as f:
            names.append(f.read().strip())
    except FileNotFoundError:
        pass
print(json.dumps({"values_ok": values == list(range(50)),
                  "data": sorted(n for n in names if n.startswith("loom-data")),
                  "get": loom.config.threading.get_data_pipeline_threads()}))
"""


def test_numpy_threads_never_take_a_data_thread_name():
    # NumPy's BLAS pool is named after the thread that imports NumPy; if that
    # were a loom-data thread, /proc would show more loom-data threads than
    # Loom created.
    out = run_json(NO_NUMPY_FIRST, {"LOOM_NUM_DATA_THREADS": "2"})
    assert out["values_ok"]
    assert out["data"] == expected_names(2)
