"""The process-wide CPU budget (issue 19; docs/threading.md, "CPU budget").

Each case runs in a child interpreter: the budget is frozen when the runtime
starts. CPU use is process CPU time over wall time while application threads
call run(); without a budget 4 threads at intra 2 keep both CPUs of a 2-CPU
machine busy, so a bound well under 2 cores can only come from the budget.
"""

import pytest

from conftest import run_json, usable_cpus

LOAD = """
import json, threading, time, numpy as np, loom
{setup}
from onnx import helper, TensorProto
import onnx
# A chain of MatMuls big enough to be parallel at intra 2.
nodes, x = [], "x"
for i in range(4):
    nodes.append(helper.make_node("MatMul", [x, "w"], [f"y{{i}}"])); x = f"y{{i}}"
w = helper.make_tensor("w", TensorProto.FLOAT, [256, 256], np.full(256 * 256, 0.001, np.float32))
g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 256])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [256, 256])], [w])
model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
sessions = [loom.InferenceSession(model, intra_op_num_threads=2, inter_op_num_threads=1)
            for _ in range({sessions})]
feed = {{"x": np.ones((256, 256), np.float32)}}
expected = sessions[0].run(None, feed)[0]
errors, runs = [], [0] * 4
stop = time.perf_counter() + 1.5
def work(i):
    s = sessions[i % len(sessions)]
    while time.perf_counter() < stop:
        out = s.run(None, feed)[0]
        if not np.array_equal(out, expected):
            errors.append(i)
        runs[i] += 1
t0, c0 = time.perf_counter(), time.process_time()
threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
d = loom.config.threading.describe()
print(json.dumps({{"cores": cpu / wall, "runs": runs, "errors": errors, "budget": d["cpu_budget"],
                   "get": loom.config.threading.get_cpu_budget()}}))
"""


def load(setup="", sessions=1, env=None):
    return run_json(LOAD.format(setup=setup, sessions=sessions), env, timeout=120)


@pytest.mark.parametrize("sessions", [1, 4])
def test_budget_of_one_keeps_the_process_on_one_cpu(sessions):
    out = load(sessions=sessions, env={"LOOM_CPU_BUDGET": "1"})
    assert out["budget"]["value"] == 1 and out["budget"]["source"] == "env:LOOM_CPU_BUDGET"
    assert out["errors"] == []
    # Every thread got turns (served in arrival order, nobody starves).
    assert min(out["runs"]) > 0, out["runs"]
    # The bound allows for the Python code between runs, which runs
    # outside the budget; without the budget this reads about 2.
    assert out["cores"] < 1.3, out


def test_api_sets_the_budget_and_the_environment_outranks_it():
    out = load(setup="loom.config.threading.set_cpu_budget(1)")
    assert out["budget"]["source"] == "api" and out["get"] == 1
    assert out["cores"] < 1.3, out
    out = load(setup="loom.config.threading.set_cpu_budget(1)", env={"LOOM_CPU_BUDGET": "2"})
    assert out["budget"]["value"] == 2 and out["budget"]["source"] == "env:LOOM_CPU_BUDGET"


def test_no_budget_unless_set_and_zero_means_the_usable_cpus():
    out = load()
    assert out["budget"] == {"value": 4096, "source": "auto", "in_use": 0, "waiting": 0}
    assert out["errors"] == [] and min(out["runs"]) > 0
    out = load(env={"LOOM_CPU_BUDGET": "0"})
    assert out["budget"]["value"] == usable_cpus()
    assert out["budget"]["source"] == "env:LOOM_CPU_BUDGET"
    assert out["budget"]["in_use"] == 0 and out["budget"]["waiting"] == 0
    assert out["errors"] == [] and min(out["runs"]) > 0
    if usable_cpus() == 2:
        assert out["cores"] < 2.1, out


def test_budget_is_frozen_when_the_runtime_starts():
    out = run_json(
        """
        import json, loom
        t = loom.config.threading
        t.set_cpu_budget(1)
        loom.start_runtime()
        try:
            t.set_cpu_budget(2)
            err = None
        except RuntimeError as e:
            err = str(e)
        t.set_cpu_budget(1)  # the value in force: fine
        print(json.dumps({"err": err, "value": t.get_cpu_budget()}))
        """
    )
    assert out == {"err": "The CPU budget cannot be modified after initialization.", "value": 1}


@pytest.mark.parametrize("value", ["two", "-1", ""])
def test_invalid_budget_variable_is_refused_naming_it(value):
    out = run_json(
        """
        import json, loom
        try:
            loom.start_runtime(); print(json.dumps(None))
        except ValueError as e:
            print(json.dumps(str(e)))
        """,
        {"LOOM_CPU_BUDGET": value},
    )
    assert out is not None and f"LOOM_CPU_BUDGET='{value}'" in out


def test_negative_budget_from_the_api_is_refused():
    out = run_json(
        """
        import json, loom
        try:
            loom.config.threading.set_cpu_budget(-1); print(json.dumps(None))
        except ValueError as e:
            print(json.dumps(str(e)))
        """
    )
    assert out is not None and "cpu_budget" in out
