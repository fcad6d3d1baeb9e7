"""Bad thread counts, invalid environment values, and the configuration
freezing once the runtime starts (docs/threading.md, "Validation" and
"Lifecycle"). Each case runs in a child interpreter.
"""

import pytest

# Only for argument errors, raised before any setting changes.
import loom
from conftest import run_json, run_python

# Calls `setter(value)` and reports the exception: type names, the isinstance
# checks a Python user relies on, the message.
CATCH = """
import json, loom
def catch(call):
    try:
        call()
    except Exception as e:
        return {{"type": type(e).__name__, "module": type(e).__module__,
                 "value_error": isinstance(e, ValueError),
                 "runtime_error": isinstance(e, RuntimeError),
                 "invalid_argument": isinstance(e, loom.errors.InvalidArgumentError),
                 "loom_runtime_error": isinstance(e, loom.errors.RuntimeError),
                 "message": str(e)}}
    return None
{prelude}
print(json.dumps(catch(lambda: {call})))
"""


def catch(call, prelude="", env=None):
    return run_json(CATCH.format(prelude=prelude, call=call), env)


@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_negative_count_raises_value_error(pool):
    error = catch(f"loom.config.threading.set_{pool}_op_parallelism_threads(-3)")
    assert error is not None
    assert error["value_error"] and error["invalid_argument"]
    assert error["message"] == (
        f"Number of threads must be positive, got -3 for {pool}_op_parallelism_threads "
        "(0 means automatic)"
    )


@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_count_above_4096_raises_value_error(pool):
    error = catch(f"loom.config.threading.set_{pool}_op_parallelism_threads(4097)")
    assert error is not None
    assert error["value_error"] and error["invalid_argument"]
    assert "4096" in error["message"] and "4097" in error["message"]


def test_count_4096_is_accepted_before_start():
    value = run_json(
        "import json, loom; t = loom.config.threading; "
        "t.set_intra_op_parallelism_threads(4096); "
        "print(json.dumps(t.get_intra_op_parallelism_threads()))"
    )
    assert value == 4096


def test_overridden_call_still_validates_its_argument():
    error = catch(
        "loom.config.threading.set_intra_op_parallelism_threads(-1)",
        env={"LOOM_NUM_INTRAOP_THREADS": "2"},
    )
    assert error is not None and error["invalid_argument"]


# The three ways the runtime starts: explicitly, by a session, by an eager op.
STARTERS = {
    "start_runtime": "loom.start_runtime()",
    "session": (
        "import onnx\n"
        "from onnx import helper, TensorProto\n"
        "g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'])], 'g',\n"
        "    [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2])],\n"
        "    [helper.make_tensor_value_info('y', TensorProto.FLOAT, [2])])\n"
        "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])\n"
        "m.ir_version = 8\n"
        "session = loom.InferenceSession(m.SerializeToString())"
    ),
    "eager_op": "import numpy; loom.ops.relu(numpy.ones(3, numpy.float32))",
}
FROZEN_MESSAGES = {
    "intra": "Intra op parallelism cannot be modified after initialization.",
    "inter": "Inter op parallelism cannot be modified after initialization.",
}


@pytest.mark.parametrize("starter", sorted(STARTERS))
@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_change_after_start_raises_runtime_error(starter, pool):
    if starter == "session":
        pytest.importorskip("onnx")
    prelude = (
        "loom.config.threading.set_intra_op_parallelism_threads(2)\n"
        "loom.config.threading.set_inter_op_parallelism_threads(2)\n"
        + STARTERS[starter]
        + "\nassert loom.runtime_started()"
    )
    error = catch(f"loom.config.threading.set_{pool}_op_parallelism_threads(1)", prelude)
    assert error is not None, "no error after the runtime started"
    assert error["runtime_error"] and error["loom_runtime_error"]
    assert not error["value_error"]
    assert error["message"] == FROZEN_MESSAGES[pool]


def test_runtime_not_started_by_import_or_configuration():
    started = run_json(
        """
        import json, loom
        t = loom.config.threading
        t.set_intra_op_parallelism_threads(1)
        t.get_inter_op_parallelism_threads()
        t.describe()
        print(json.dumps(loom.runtime_started()))
        """
    )
    assert started is False


@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_resetting_value_in_force_after_start_is_fine(pool):
    out = run_json(
        f"""
        import json, loom
        t = loom.config.threading
        t.set_{pool}_op_parallelism_threads(1)
        loom.start_runtime()
        t.set_{pool}_op_parallelism_threads(1)
        print(json.dumps(t.get_{pool}_op_parallelism_threads()))
        """
    )
    assert out == 1


def test_setting_zero_when_automatic_in_force_after_start_is_fine():
    out = run_json(
        """
        import json, loom
        t = loom.config.threading
        loom.start_runtime()
        before = t.get_intra_op_parallelism_threads()
        t.set_intra_op_parallelism_threads(0)
        t.set_intra_op_parallelism_threads(before)
        print(json.dumps([before, t.get_intra_op_parallelism_threads()]))
        """
    )
    assert out[0] == out[1] >= 1


def test_overridden_call_after_start_warns_instead_of_raising():
    out = run_json(
        """
        import json, warnings, loom
        t = loom.config.threading
        loom.start_runtime()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.set_intra_op_parallelism_threads(2)
        print(json.dumps([str(w.message) for w in caught]))
        """,
        {"LOOM_NUM_INTRAOP_THREADS": "1"},
    )
    assert len(out) == 1 and "LOOM_NUM_INTRAOP_THREADS=1" in out[0]


INVALID_VALUES = ["abc", "-2", "1e9", "", " 4", "4x", "4097", "99999999999999999999"]


@pytest.mark.parametrize("text", INVALID_VALUES)
@pytest.mark.parametrize(
    "variable",
    ["LOOM_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"],
)
def test_invalid_env_value_makes_getter_and_start_raise(variable, text):
    getter = "intra" if "INTRA" in variable else "inter"
    out = run_json(
        f"""
        import json, loom
        def catch(call):
            try:
                call()
            except ValueError as e:
                return [type(e).__name__, str(e)]
            return None
        print(json.dumps({{
            "getter": catch(loom.config.threading.get_{getter}_op_parallelism_threads),
            "start": catch(loom.start_runtime),
            "started": loom.runtime_started(),
        }}))
        """,
        {variable: text},
    )
    expected = f"invalid environment variable {variable}='{text}'"
    for key in ("getter", "start"):
        assert out[key] is not None, f"{key} did not raise"
        assert out[key][0] == "InvalidArgumentError"
        assert out[key][1].startswith(expected), out[key][1]
    assert out["started"] is False


def test_invalid_value_in_an_outranked_variable_is_refused_too():
    error = catch("loom.start_runtime()", env={
        "LOOM_NUM_INTRAOP_THREADS": "2", "TF_NUM_INTRAOP_THREADS": "abc"})
    assert error is not None and error["invalid_argument"]
    assert "TF_NUM_INTRAOP_THREADS='abc'" in error["message"]


@pytest.mark.parametrize(
    "variable, text",
    [("LOOM_SPIN_WAIT_US", "2000000"), ("LOOM_INTRAOP_CPUS", "0-"), ("LOOM_NUM_DATA_THREADS", "")],
)
def test_other_invalid_variables_are_named(variable, text):
    error = catch("loom.start_runtime()", env={variable: text})
    assert error is not None and error["invalid_argument"]
    assert f"{variable}='{text}'" in error["message"]


def test_invalid_env_does_not_crash_session_or_eager_op():
    result = run_python(
        """
        import numpy, loom
        try:
            loom.ops.relu(numpy.ones(3, numpy.float32))
        except ValueError as e:
            print("eager:", e)
        try:
            loom.start_runtime()
        except ValueError as e:
            print("again:", e)
        """,
        {"LOOM_NUM_INTEROP_THREADS": "4x"},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert all("LOOM_NUM_INTEROP_THREADS='4x'" in line for line in lines)


def test_failed_start_creates_no_thread():
    out = run_json(
        """
        import json, os, loom
        try:
            loom.start_runtime()
        except ValueError:
            pass
        names = [open(f"/proc/self/task/{t}/comm").read().strip()
                 for t in os.listdir("/proc/self/task")]
        print(json.dumps([n for n in names if n.startswith("loom-")]))
        """,
        {"LOOM_NUM_INTRAOP_THREADS": "abc"},
    )
    assert out == []


# Issue 19: other libraries' variables in the forms NumPy and ONNX Runtime
# run with never stop Loom; outranked ones are not even read.
@pytest.mark.parametrize(
    "env, intra, spin, warning",
    [
        ({"OMP_NUM_THREADS": "", "LOOM_NUM_INTRAOP_THREADS": "1"}, (1, "env:LOOM_NUM_INTRAOP_THREADS"), None, None),
        ({"OMP_NUM_THREADS": "2 ", "LOOM_NUM_INTRAOP_THREADS": "1"}, (1, "env:LOOM_NUM_INTRAOP_THREADS"), None, None),
        ({"OMP_NUM_THREADS": "0", "LOOM_NUM_INTRAOP_THREADS": "1"}, (1, "env:LOOM_NUM_INTRAOP_THREADS"), None, None),
        ({"OMP_NUM_THREADS": "1,", "LOOM_NUM_INTRAOP_THREADS": "1"}, (1, "env:LOOM_NUM_INTRAOP_THREADS"), None, None),
        ({"KMP_BLOCKTIME": "infinite", "LOOM_SPIN_WAIT_US": "20"}, None, (20, "env:LOOM_SPIN_WAIT_US"), None),
        ({"OMP_NUM_THREADS": "2 "}, (2, "env:OMP_NUM_THREADS"), None, None),
        ({"OMP_NUM_THREADS": "1,"}, (1, "env:OMP_NUM_THREADS"), None, None),
        ({"OMP_NUM_THREADS": ""}, (None, "auto"), None, None),
        ({"OMP_NUM_THREADS": "0"}, (None, "auto"), None, "OMP_NUM_THREADS='0' is ignored"),
        ({"KMP_BLOCKTIME": "infinite"}, None, (50, "auto"), "KMP_BLOCKTIME='infinite' is ignored"),
    ],
)
def test_other_libraries_variables_never_stop_loom(env, intra, spin, warning):
    result = run_python(
        """
        import json, numpy, loom
        loom.start_runtime()
        d = loom.config.threading.describe()
        out = loom.ops.relu(numpy.array([-1.0, 2.0], numpy.float32))
        print(json.dumps({"intra": d["intra_op_parallelism_threads"],
                          "spin": d["spin_wait_us"], "relu": out.tolist()}))
        """,
        env,
    )
    assert result.returncode == 0, result.stderr
    import json
    out = json.loads(result.stdout.splitlines()[-1])
    assert out["relu"] == [0.0, 2.0]
    if intra is not None:
        if intra[0] is not None:
            assert out["intra"]["value"] == intra[0]
        assert out["intra"]["source"] == intra[1]
    if spin is not None:
        assert out["spin"] == {"value": spin[0], "source": spin[1]}
    if warning is None:
        assert "is ignored" not in result.stderr
    else:
        assert result.stderr.count(warning) == 1, result.stderr


SETTERS = [
    "set_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_data_pipeline_threads",
    "set_spin_wait_us",
    "set_cpu_budget",
]


@pytest.mark.parametrize("setter", SETTERS)
@pytest.mark.parametrize("value", ["1", 2.0, True, None, [1]])
def test_a_count_that_is_not_an_int_is_a_type_error_naming_the_setting(setter, value):
    with pytest.raises(TypeError, match=f"{setter}: expected an int"):
        getattr(loom.config.threading, setter)(value)


@pytest.mark.parametrize("setter", SETTERS)
def test_a_count_beyond_any_int_is_a_value_error_naming_the_setting(setter):
    with pytest.raises(ValueError, match=f"{setter} = {10**20} is out of range"):
        getattr(loom.config.threading, setter)(10**20)


def test_numpy_integers_are_counts():
    out = run_json(
        """
import json, numpy as np, loom
t = loom.config.threading
t.set_intra_op_parallelism_threads(np.int64(3))
t.set_intra_op_cpu_affinity(np.array([0]))
print(json.dumps([t.get_intra_op_parallelism_threads(), t.get_intra_op_cpu_affinity()]))
"""
    )
    assert out == [3, [0]]


def test_cpu_affinity_takes_the_clis_cpu_list_syntax():
    out = run_json(
        """
import json, os, loom
t = loom.config.threading
cpus = sorted(os.sched_getaffinity(0))
t.set_intra_op_cpu_affinity(f"{cpus[0]}")
single = t.get_intra_op_cpu_affinity()
t.set_inter_op_cpu_affinity(f"{cpus[0]}-{cpus[-1]}")
print(json.dumps([single, t.get_inter_op_cpu_affinity(), cpus]))
"""
    )
    single, both, cpus = out
    assert single == [cpus[0]]
    assert both == list(range(cpus[0], cpus[-1] + 1))


@pytest.mark.parametrize("text", ["x", "0-", "-1", "3-1", "0,", "0,,1", "1.5", "0-99999999999"])
def test_a_malformed_cpu_list_is_a_value_error(text):
    with pytest.raises(ValueError, match="is not a CPU list"):
        loom.config.threading.set_intra_op_cpu_affinity(text)


def test_a_cpu_list_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="expected a list of CPU numbers"):
        loom.config.threading.set_intra_op_cpu_affinity(0)
    with pytest.raises(TypeError, match="expected an int"):
        loom.config.threading.set_inter_op_cpu_affinity([0, "1"])
