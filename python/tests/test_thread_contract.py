"""The thread contract seen from Python: a started runtime with intra = I and
inter = M adds exactly I - 1 'loom-intra-*' and M - 1 'loom-inter-*' threads
(the calling thread is one of each) and nothing else; a session's private
pools are named for it, live and die with it, and leave the global pools
unstarted and their settings open.

The kernel's view (/proc/self/task/*/comm) is the judge, compared with what
describe() claims. The children import neither NumPy nor onnxruntime before
counting, since their BLAS pools would add threads of their own.
"""

import pytest

from conftest import THREAD_NAMES_SOURCE, needs_onnx, run_json

THREAD_NAMES = THREAD_NAMES_SOURCE

START_AND_COUNT = THREAD_NAMES + """
import json, sys, warnings
before = thread_names()
import loom
t = loom.config.threading
t.set_intra_op_parallelism_threads({intra})
t.set_inter_op_parallelism_threads({inter})
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # oversubscription, when I or M exceed the CPUs
    loom.start_runtime()
after = thread_names()
described = t.describe()
print(json.dumps({{"before": before, "after": after, "described": described["threads"],
                   "started": [loom.runtime_started(), described["runtime_started"]],
                   "modules": sorted(m for m in ("numpy", "onnxruntime") if m in sys.modules)}}))
"""


@pytest.mark.parametrize("intra, inter", [(1, 1), (2, 1), (1, 2), (3, 2), (5, 4)])
def test_started_runtime_creates_exactly_its_pools(intra, inter):
    out = run_json(START_AND_COUNT.format(intra=intra, inter=inter))
    assert out["modules"] == []
    assert out["started"] == [True, True]
    before = {tid for tid, _ in out["before"]}
    new = [[tid, name] for tid, name in out["after"] if tid not in before]
    new_names = sorted(name for _, name in new)
    expected = sorted(
        [f"loom-intra-{i}" for i in range(intra - 1)]
        + [f"loom-inter-{i}" for i in range(inter - 1)]
    )
    assert new_names == expected
    # No thread of the interpreter went away, either.
    assert before <= {tid for tid, _ in out["after"]}
    # describe() lists the same threads with their kernel ids.
    described = sorted([d["tid"], d["name"]] for d in out["described"])
    assert described == sorted(new)
    pools = {d["name"]: d["pool"] for d in out["described"]}
    assert all(
        pools[name] == ("intra_op" if name.startswith("loom-intra-") else "inter_op")
        for name in pools
    )
    assert all(d["owner"] == "global" for d in out["described"])


def test_runtime_threads_from_env_settings():
    out = run_json(
        START_AND_COUNT.format(intra=0, inter=0),
        {"LOOM_NUM_INTRAOP_THREADS": "3", "TF_NUM_INTEROP_THREADS": "1"},
    )
    names = sorted(name for _, name in out["after"] if name.startswith("loom-"))
    assert names == ["loom-intra-0", "loom-intra-1"]


def test_threads_are_created_at_start_not_before():
    out = run_json(
        THREAD_NAMES
        + """
import json, loom
t = loom.config.threading
t.set_intra_op_parallelism_threads(2)
t.describe()
t.get_inter_op_parallelism_threads()
print(json.dumps([name for _, name in thread_names()]))
"""
    )
    assert [name for name in out if name.startswith("loom-")] == []


SESSION_POOLS = THREAD_NAMES + """
import json
import loom
loom.config.threading.set_intra_op_parallelism_threads({global_intra})
loom.config.threading.set_inter_op_parallelism_threads({global_inter})
if {start_global}:
    loom.start_runtime()
def loom_threads():
    return sorted(name for _, name in thread_names() if name.startswith("loom-"))
started = loom_threads()
import numpy as np
import onnx
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
session = loom.InferenceSession(m.SerializeToString(), intra_op_num_threads={intra},
                                inter_op_num_threads={inter})
(y,) = session.run(None, {{"x": np.array([-1.0, 2.0], np.float32)}})
with_session = loom_threads()
described = [[d["name"], d["pool"], d["owner"]]
             for d in loom.config.threading.describe()["threads"]]
global_started = loom.runtime_started()
# Unless the global pools were used, their settings stay open.
try:
    loom.config.threading.set_intra_op_parallelism_threads(3)
    still_open = True
except RuntimeError:
    still_open = False
counts = [session.intra_op_num_threads, session.inter_op_num_threads]
del session
# The pools join their workers before `del` returns, but the kernel may list
# a joined thread in /proc/self/task for a moment longer (it wakes the
# joiner before it removes the task); a leaked thread stays past the 2 s.
import time
deadline = time.monotonic() + 2.0
after = loom_threads()
while after != started and time.monotonic() < deadline:
    time.sleep(0.001)
    after = loom_threads()
print(json.dumps({{"started": started, "with_session": with_session, "after": after,
                   "counts": counts, "y": y.tolist(), "described": described,
                   "global_started": global_started, "still_open": still_open}}))
"""


@needs_onnx
@pytest.mark.parametrize("intra, inter", [(1, 1), (2, 1), (3, 2)])
@pytest.mark.parametrize("start_global", [True, False])
def test_session_private_pools_go_away_with_the_session(intra, inter, start_global):
    out = run_json(
        SESSION_POOLS.format(
            global_intra=2, global_inter=1, intra=intra, inter=inter, start_global=start_global
        )
    )
    assert out["y"] == [0.0, 2.0]
    assert out["counts"] == [intra, inter]
    assert out["started"] == (["loom-intra-0"] if start_global else [])
    # Session 1's threads, named for it; the caller is one of each count.
    private = sorted(
        [f"loom-s1-intra-{i}" for i in range(intra - 1)]
        + [f"loom-s1-inter-{i}" for i in range(inter - 1)]
    )
    assert out["with_session"] == sorted(out["started"] + private)
    assert sorted(name for name, _, owner in out["described"] if owner == "session 1") == private
    assert sorted(name for name, _, owner in out["described"] if owner == "global") == out[
        "started"
    ]
    assert out["after"] == out["started"]
    # The private session neither started nor froze the global pools.
    assert out["global_started"] == start_global
    assert out["still_open"] == (not start_global)


@needs_onnx
def test_session_without_counts_shares_the_global_pools():
    out = run_json(
        SESSION_POOLS.format(
            global_intra=2, global_inter=1, intra="None", inter="None", start_global=True
        )
    )
    assert out["with_session"] == out["started"] == out["after"]
    assert out["counts"] == [2, 1]


@needs_onnx
def test_session_with_one_count_takes_the_other_from_the_global_setting():
    out = run_json(
        SESSION_POOLS.format(
            global_intra=2, global_inter=2, intra=1, inter="None", start_global=True
        )
    )
    assert out["counts"] == [1, 2]
    assert out["with_session"] == sorted(out["started"] + ["loom-s1-inter-0"])
    assert out["after"] == out["started"]


TWO_PRIVATE_SESSIONS = THREAD_NAMES + """
import json
import numpy as np
import loom
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
sessions = [loom.InferenceSession(m.SerializeToString(), intra_op_num_threads=2,
                                  inter_op_num_threads=2) for _ in range(2)]
for s in sessions:
    s.run(None, {"x": np.array([-1.0, 2.0], np.float32)})
print(json.dumps({"os": [[tid, name] for tid, name in thread_names() if name.startswith("loom-")],
                  "described": loom.config.threading.describe()["threads"],
                  "started": loom.runtime_started()}))
"""


@needs_onnx
def test_two_private_sessions_have_their_own_named_threads_and_describe_lists_them():
    out = run_json(TWO_PRIVATE_SESSIONS)
    expected = sorted(
        f"loom-s{k}-{pool}-0" for k in (1, 2) for pool in ("intra", "inter")
    )
    assert sorted(name for _, name in out["os"]) == expected
    # describe() lists every live pool's threads, with the kernel's ids.
    assert sorted([d["tid"], d["name"]] for d in out["described"]) == sorted(out["os"])
    owners = {d["name"]: d["owner"] for d in out["described"]}
    assert owners == {name: "session " + name[6] for name in expected}
    assert out["started"] is False



POOLS_BY_USE = THREAD_NAMES + """
import json
import loom
t = loom.config.threading
t.set_intra_op_parallelism_threads(2)
t.set_inter_op_parallelism_threads(2)
t.set_data_pipeline_threads(2)
def loom_threads():
    return sorted(name for _, name in thread_names() if name.startswith("loom-"))
steps = {{}}
if "{first}" == "data":
    rows = list(loom.data.Dataset.range(8).map(lambda x: x + 1, num_parallel_calls=2))
    steps["after_pipeline"] = loom_threads()
import numpy as np
loom.ops.relu(np.ones((4, 4), np.float32))
steps["after_eager_op"] = loom_threads()
print(json.dumps(steps))
"""


@pytest.mark.parametrize("first", ["data", "eager"])
def test_each_pool_starts_with_its_first_use(first):
    # A pipeline creates only the data pool; an eager op only the intra-op
    # pool; the inter-op pool waits for a session on the global pools.
    out = run_json(POOLS_BY_USE.format(first=first))
    if first == "data":
        assert out["after_pipeline"] == ["loom-data-0", "loom-data-1"]
        assert out["after_eager_op"] == ["loom-data-0", "loom-data-1", "loom-intra-0"]
    else:
        assert out["after_eager_op"] == ["loom-intra-0"]
