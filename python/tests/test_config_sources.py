"""Where a thread setting comes from: environment over API over OMP_NUM_THREADS
over automatic (docs/threading.md, "Where each value comes from").

Each case runs in a child interpreter: the configuration is read once per
process and frozen when the runtime starts.
"""

import pytest

from conftest import run_json, run_python, usable_cpus

SETTERS = {
    "intra": "set_intra_op_parallelism_threads",
    "inter": "set_inter_op_parallelism_threads",
}
GETTERS = {
    "intra": "get_intra_op_parallelism_threads",
    "inter": "get_inter_op_parallelism_threads",
}
KEYS = {"intra": "intra_op_parallelism_threads", "inter": "inter_op_parallelism_threads"}
VARIABLES = {
    "intra": ("LOOM_NUM_INTRAOP_THREADS", "TF_NUM_INTRAOP_THREADS"),
    "inter": ("LOOM_NUM_INTEROP_THREADS", "TF_NUM_INTEROP_THREADS"),
}

# Sets `value` through the API (recording warnings) and reports what is in force.
SET_AND_DESCRIBE = """
import json, warnings
import loom
t = loom.config.threading
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t.{setter}({value})
print(json.dumps({{
    "value": t.{getter}(),
    "setting": t.describe()["{key}"],
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
}}))
"""


def set_and_describe(pool, value, env):
    code = SET_AND_DESCRIBE.format(
        setter=SETTERS[pool], getter=GETTERS[pool], key=KEYS[pool], value=value
    )
    return run_json(code, env)


@pytest.mark.parametrize("pool", ["intra", "inter"])
@pytest.mark.parametrize("variable_index", [0, 1], ids=["LOOM_name", "TF_alias"])
def test_env_outranks_api(pool, variable_index):
    variable = VARIABLES[pool][variable_index]
    out = set_and_describe(pool, 1, {variable: "3"})
    assert out["value"] == 3
    assert out["setting"] == {"value": 3, "source": f"env:{variable}"}


@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_loom_name_wins_over_tf_alias(pool):
    loom_name, tf_name = VARIABLES[pool]
    out = set_and_describe(pool, 1, {loom_name: "3", tf_name: "5"})
    assert out["setting"] == {"value": 3, "source": f"env:{loom_name}"}


@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_overridden_call_warns_once_naming_variable_and_value(pool):
    variable = VARIABLES[pool][0]
    out = set_and_describe(pool, 1, {variable: "3"})
    assert len(out["warnings"]) == 1, out["warnings"]
    category, message = out["warnings"][0]
    assert category == "UserWarning"
    assert f"{variable}=3" in message


@pytest.mark.parametrize("pool", ["intra", "inter"])
def test_api_call_without_env_does_not_warn(pool):
    out = set_and_describe(pool, 1, {})
    assert out["warnings"] == []
    assert out["setting"] == {"value": 1, "source": "api"}


def test_overridden_call_raises_under_error_filter():
    result = run_python(
        """
        import warnings
        import loom
        warnings.simplefilter("error")
        try:
            loom.config.threading.set_intra_op_parallelism_threads(1)
        except UserWarning as w:
            print("raised:", w)
        else:
            print("no exception")
        """,
        {"LOOM_NUM_INTRAOP_THREADS": "3"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("raised:")
    assert "LOOM_NUM_INTRAOP_THREADS=3" in result.stdout


def test_omp_num_threads_is_the_fallback_for_automatic_intra():
    out = set_and_describe("intra", 0, {"OMP_NUM_THREADS": "3"})
    assert out["setting"] == {"value": 3, "source": "env:OMP_NUM_THREADS"}


def test_omp_num_threads_nested_list_uses_first_level():
    out = set_and_describe("intra", 0, {"OMP_NUM_THREADS": "3,2"})
    assert out["setting"] == {"value": 3, "source": "env:OMP_NUM_THREADS"}


def test_api_outranks_omp_num_threads():
    out = set_and_describe("intra", 1, {"OMP_NUM_THREADS": "3"})
    assert out["setting"] == {"value": 1, "source": "api"}
    assert out["warnings"] == []


def test_omp_num_threads_does_not_touch_inter():
    out = set_and_describe("inter", 0, {"OMP_NUM_THREADS": "3"})
    assert out["setting"]["source"] == "auto"


def test_automatic_values_are_usable_cpus():
    out = run_json(
        """
        import json, loom
        t = loom.config.threading
        print(json.dumps([t.get_intra_op_parallelism_threads(),
                          t.get_inter_op_parallelism_threads(), t.describe()]))
        """
    )
    intra, inter, described = out
    usable = described["cpu"]["usable"]
    # Loom also counts physical cores and the cgroup quota, so only bound it
    # by what Python sees.
    assert 1 <= usable <= usable_cpus()
    assert intra == inter == usable
    assert described["intra_op_parallelism_threads"] == {"value": usable, "source": "auto"}
    assert described["inter_op_parallelism_threads"] == {"value": usable, "source": "auto"}


SPIN = """
import json, loom
t = loom.config.threading
t.set_spin_wait_us({value})
print(json.dumps([t.get_spin_wait_us(), t.describe()["spin_wait_us"]]))
"""


def test_spin_wait_set_and_get():
    value, setting = run_json(SPIN.format(value=0))
    assert value == 0
    assert setting == {"value": 0, "source": "api"}
    value, setting = run_json(SPIN.format(value=1234))
    assert [value, setting] == [1234, {"value": 1234, "source": "api"}]


def test_spin_wait_default_is_automatic_50us():
    value, setting = run_json(
        "import json, loom; t = loom.config.threading; "
        "print(json.dumps([t.get_spin_wait_us(), t.describe()['spin_wait_us']]))"
    )
    assert setting == {"value": 50, "source": "auto"}
    assert value == 50


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"LOOM_SPIN_WAIT_US": "7"}, {"value": 7, "source": "env:LOOM_SPIN_WAIT_US"}),
        ({"KMP_BLOCKTIME": "2"}, {"value": 2000, "source": "env:KMP_BLOCKTIME"}),
        ({"KMP_BLOCKTIME": "40us"}, {"value": 40, "source": "env:KMP_BLOCKTIME"}),
    ],
)
def test_spin_wait_env_outranks_api(env, expected):
    value, setting = run_json(SPIN.format(value=0), env)
    assert setting == expected
    assert value == expected["value"]


@pytest.mark.parametrize("value", [-1, 1_000_001])
def test_spin_wait_out_of_range_raises_value_error(value):
    out = run_json(
        f"""
        import json, loom
        try:
            loom.config.threading.set_spin_wait_us({value})
            print(json.dumps(None))
        except loom.errors.InvalidArgumentError as e:
            print(json.dumps([isinstance(e, ValueError), str(e)]))
        """
    )
    assert out is not None, "no error raised"
    is_value_error, message = out
    assert is_value_error
    assert str(value) in message and "1000000" in message


def test_describe_has_every_value_with_its_source():
    out = run_json(
        """
        import json, loom
        t = loom.config.threading
        t.set_intra_op_parallelism_threads(2)
        print(json.dumps(t.describe()))
        """,
        {"LOOM_NUM_INTEROP_THREADS": "1"},
    )
    assert out["intra_op_parallelism_threads"] == {"value": 2, "source": "api"}
    assert out["inter_op_parallelism_threads"] == {
        "value": 1,
        "source": "env:LOOM_NUM_INTEROP_THREADS",
    }
    assert out["spin_wait_us"]["source"] == "auto"
    assert out["intra_op_cpu_affinity"] == {"cpus": [], "source": "auto"}
    assert out["inter_op_cpu_affinity"] == {"cpus": [], "source": "auto"}
    cpu = out["cpu"]
    for key in ("logical", "affinity", "affinity_cpus", "cgroup_quota", "physical_cores",
                "usable", "notes"):
        assert key in cpu, key
    assert cpu["affinity"] == len(cpu["affinity_cpus"])
    assert 1 <= cpu["usable"] <= cpu["affinity"] <= cpu["logical"]
    assert out["runtime_started"] is False
    assert out["threads"] == []


def test_cpu_affinity_setting_is_reported():
    out = run_json(
        """
        import json, loom
        t = loom.config.threading
        t.set_intra_op_cpu_affinity([0])
        print(json.dumps([t.get_intra_op_cpu_affinity(), t.describe()["intra_op_cpu_affinity"]]))
        """
    )
    assert out == [[0], {"cpus": [0], "source": "api"}]


def test_cpu_affinity_outside_the_mask_raises_value_error():
    result = run_python(
        """
        import loom
        try:
            loom.config.threading.set_intra_op_cpu_affinity([100000])
        except ValueError as e:
            print(e)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "100000" in result.stdout


def test_cpu_allotment_bounds_automatic_values_and_is_shown_by_describe():
    out = run_json(
        """
import json, warnings
import loom
t = loom.config.threading
t.set_cpu_allotment(1, "dask")
t.set_inter_op_parallelism_threads(2)
d = t.describe()
errors = []
for bad in ((-1, "dask"), (1, "two words"), (1, ""), ("1", "dask"), (1.5, "dask")):
    try:
        t.set_cpu_allotment(*bad)
        errors.append("accepted")
    except (ValueError, TypeError) as e:
        errors.append("ValueError" if isinstance(e, ValueError) else "TypeError")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loom.start_runtime()
try:
    t.set_cpu_allotment(2, "dask")
    errors.append("changed after start")
except RuntimeError as e:
    errors.append(str(e))
print(json.dumps({"allotment": d["cpu"]["allotment"], "get": t.get_cpu_allotment(),
                  "intra": d["intra_op_parallelism_threads"],
                  "inter": d["inter_op_parallelism_threads"], "budget": d["cpu_budget"],
                  "errors": errors, "warnings": [str(w.message) for w in caught]}))
"""
    )
    assert out["allotment"] == {"cpus": 1, "granted_by": "dask"}
    assert out["get"] == 1
    assert out["intra"] == {"value": 1, "source": "auto:dask"}
    assert out["inter"] == {"value": 2, "source": "api"}
    assert out["budget"]["value"] == 1 and out["budget"]["source"] == "auto:dask"
    assert out["errors"] == [
        "ValueError", "ValueError", "ValueError", "TypeError", "TypeError",
        "The CPU allotment cannot be modified after initialization.",
    ]
    assert any(
        "inter_op_parallelism_threads=2 (api) exceeds the 1 CPU(s) of the allotment granted by "
        "dask" in w
        for w in out["warnings"]
    ), out["warnings"]
