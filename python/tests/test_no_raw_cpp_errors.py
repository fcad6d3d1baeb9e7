"""No raw C++ exception reaches Python: every public entry point, given
arguments of the wrong type or absurd values, raises a Python exception
whose message says what is wrong (never "std::bad_cast", never empty)."""

import numpy as np
import pytest

import loom
from conftest import make_model

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

ODD_VALUES = [None, "2", 1.5, True, -1, 10**20, object(), [1, "a"], {1: 2}, b"\x00", np.float32(1),
              np.ones((2, 2), np.float64)]


def model_bytes():
    return make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    ).SerializeToString()


def calls(value):
    """(name, thunk) for each entry point, with `value` where an argument goes."""
    session = loom.InferenceSession(model_bytes())
    so = loom.SessionOptions()
    ro = loom.RunOptions()
    x = np.ones(2, np.float32)
    yield "InferenceSession(path)", lambda: loom.InferenceSession(value)
    yield "InferenceSession(sess_options)", lambda: loom.InferenceSession(model_bytes(), value)
    yield "InferenceSession(providers)", lambda: loom.InferenceSession(model_bytes(), None, value)
    yield "run(output_names)", lambda: session.run(value, {"x": x})
    yield "run(feed)", lambda: session.run(None, value)
    yield "run(feed value)", lambda: session.run(None, {"x": value})
    yield "run(run_options)", lambda: session.run(None, {"x": x}, value)
    for field in ("intra_op_num_threads", "inter_op_num_threads", "log_severity_level",
                  "enable_profiling", "profile_file_prefix", "use_per_session_threads",
                  "execution_mode", "graph_optimization_level", "optimized_model_filepath"):
        yield f"SessionOptions.{field}", lambda f=field: setattr(so, f, value)
    yield "add_session_config_entry", lambda: so.add_session_config_entry("k", value)
    yield "add_free_dimension_override_by_name", \
        lambda: so.add_free_dimension_override_by_name("n", value)
    for field in ("terminate", "timeout_seconds", "log_severity_level", "logid"):
        yield f"RunOptions.{field}", lambda f=field: setattr(ro, f, value)
    yield "io_binding.bind_cpu_input", lambda: session.io_binding().bind_cpu_input("x", value)
    yield "io_binding.bind_output", lambda: session.io_binding().bind_output("y", value)
    yield "OrtValue.ortvalue_from_numpy", lambda: loom.OrtValue.ortvalue_from_numpy(value)
    yield "ops.run(op)", lambda: loom.ops.run(value, [x])
    yield "ops.run(inputs)", lambda: loom.ops.run("Relu", value)
    yield "ops.run(attributes)", lambda: loom.ops.run("Softmax", [x], value)
    yield "ops.run(attribute value)", lambda: loom.ops.run("Softmax", [x], {"axis": value})
    yield "ops.relu", lambda: loom.ops.relu(value)
    yield "ops.matmul", lambda: loom.ops.matmul(x.reshape(1, 2), value)
    yield "set_intra_op_cpu_affinity", \
        lambda: loom.config.threading.set_intra_op_cpu_affinity(value)
    yield "set_cpu_budget", lambda: loom.config.threading.set_cpu_budget(value)
    yield "Dataset.range", lambda: loom.data.Dataset.range(value)
    yield "Dataset.batch", lambda: loom.data.Dataset.range(4).batch(value)
    yield "Dataset.from_tensor_slices", lambda: loom.data.Dataset.from_tensor_slices(value)


@pytest.mark.parametrize("value", ODD_VALUES, ids=[repr(v)[:20] for v in ODD_VALUES])
def test_odd_arguments_raise_python_errors_that_say_what_is_wrong(value):
    raw = []
    for name, call in calls(value):
        try:
            call()
        except Exception as error:  # noqa: BLE001 (any type is fine, a raw C++ one is not)
            text = str(error)
            if "std::" in text or "bad_cast" in text or not text.strip():
                raw.append(f"{name}: {type(error).__name__}: {text!r}")
    assert raw == []
