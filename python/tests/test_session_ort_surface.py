"""ONNX Runtime's Python surface, name by name: every public name of
SessionOptions, RunOptions, InferenceSession, IOBinding, OrtValue and
ModelMetadata either works in Loom, is accepted with one warning saying it
has no effect, or is refused with NotImplementedError saying why. The
tables below are the contract (docs/python.md shows the same); where
onnxruntime is installed, a test checks that they cover every name it has."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest

import loom
from conftest import make_model

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

# ONNX Runtime 1.30's public names, by what Loom does with them.
SESSION_OPTIONS = {
    "works": [
        "intra_op_num_threads", "inter_op_num_threads", "graph_optimization_level",
        "execution_mode", "use_per_session_threads", "enable_profiling", "profile_file_prefix",
        "log_severity_level", "add_session_config_entry", "get_session_config_entry",
        "add_free_dimension_override_by_name", "has_providers", "optimized_model_filepath",
    ],
    "no_effect": [
        "execution_order", "log_verbosity_level", "logid",
        "enable_cpu_mem_arena", "enable_mem_pattern", "enable_mem_reuse",
        "use_deterministic_compute", "add_free_dimension_override_by_denotation",
    ],
    "refused": [
        "add_initializer", "add_external_initializers", "register_custom_ops_library",
        "add_provider", "add_provider_for_devices",
    ],
    # Not in Loom at all (AttributeError): device and provider plumbing.
    "absent": [
        "add_external_initializers_from_files_in_memory", "set_load_cancellation_flag",
        "set_provider_selection_policy", "set_provider_selection_policy_delegate",
    ],
}
RUN_OPTIONS = {
    "works": ["terminate", "only_execute_path_to_fetches", "add_run_config_entry",
              "get_run_config_entry"],
    "no_effect": ["log_severity_level", "log_verbosity_level", "logid"],
    "refused": [],
    "absent": ["add_active_adapter"],
}
INFERENCE_SESSION = {
    "works": [
        "run", "get_inputs", "get_outputs", "get_modelmeta", "get_overridable_initializers",
        "get_providers", "get_provider_options", "set_providers", "get_session_options",
        "end_profiling", "get_profiling_start_time_ns", "io_binding", "run_with_iobinding",
        "run_with_ort_values", "disable_fallback", "enable_fallback",
    ],
    "no_effect": [],
    "refused": [],
    "absent": [
        "run_async", "run_with_ortvaluevector", "create_ortvalue_from_shape_and_type",
        "get_input_epdevices", "get_input_memory_infos", "get_output_memory_infos",
        "get_provider_graph_assignment_info", "get_tuning_results", "set_tuning_results",
        "release_captured_graph", "set_ep_dynamic_options",
    ],
}
IO_BINDING = {
    "works": [
        "bind_cpu_input", "bind_input", "bind_ortvalue_input", "bind_output",
        "bind_ortvalue_output", "clear_binding_inputs", "clear_binding_outputs",
        "copy_outputs_to_cpu", "get_outputs", "synchronize_inputs", "synchronize_outputs",
    ],
    "no_effect": [],
    "refused": [],
    "absent": ["get_outputs_as_ortvaluevector"],
}
ORT_VALUE = {
    "works": [
        "ortvalue_from_numpy", "ortvalue_from_shape_and_type", "numpy", "shape", "data_type",
        "element_type", "device_name", "data_ptr", "tensor_size_in_bytes", "has_value",
        "is_tensor", "is_sparse_tensor", "is_tensor_sequence", "update_inplace",
    ],
    "no_effect": [],
    "refused": [],
    "absent": ["as_sparse_tensor", "from_dlpack", "ort_value_from_sparse_tensor",
               "ortvalue_from_numpy_with_onnx_type"],
}
MODEL_METADATA = {
    "works": ["custom_metadata_map", "description", "domain", "graph_description",
              "graph_name", "producer_name", "version"],
    "no_effect": [], "refused": [], "absent": [],
}
TABLES = {
    "SessionOptions": (loom.SessionOptions, SESSION_OPTIONS),
    "RunOptions": (loom.RunOptions, RUN_OPTIONS),
    "InferenceSession": (loom.InferenceSession, INFERENCE_SESSION),
    "IOBinding": (loom.IOBinding, IO_BINDING),
    "OrtValue": (loom.OrtValue, ORT_VALUE),
    "ModelMetadata": (loom.ModelMetadata, MODEL_METADATA),
}


@pytest.mark.parametrize("class_name", sorted(TABLES))
def test_every_listed_name_exists_unless_absent(class_name):
    cls, table = TABLES[class_name]
    for kind in ("works", "no_effect", "refused"):
        for name in table[kind]:
            assert hasattr(cls, name), f"{class_name}.{name}"
    for name in table["absent"]:
        assert not hasattr(cls, name), f"{class_name}.{name} exists: move it to its table"


@pytest.mark.parametrize("class_name", sorted(TABLES))
def test_tables_cover_every_public_name_of_onnxruntime(class_name):
    ort = pytest.importorskip("onnxruntime")
    _, table = TABLES[class_name]
    listed = {name for names in table.values() for name in names}
    theirs = {name for name in dir(getattr(ort, class_name)) if not name.startswith("_")}
    assert theirs - listed == set(), f"ONNX Runtime names missing from the {class_name} table"


def relu_model(batch="batch", producer="loom-tests", props=None):
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 3])],
        name="relu_graph",
    )
    model.producer_name = producer
    model.producer_version = "1.0"
    model.domain = "ai.example"
    model.model_version = 7
    model.doc_string = "one Relu"
    model.graph.doc_string = "the graph's text"
    for key, value in (props or {}).items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    return model.SerializeToString()


def two_branch_model():
    """x -> 6 independent Relu/Neg/Abs nodes -> Sum: room for inter-op."""
    ops = ["Relu", "Neg", "Abs", "Relu", "Neg", "Abs"]
    nodes = [helper.make_node(op, ["x"], [f"b{i}"]) for i, op in enumerate(ops)]
    nodes.append(helper.make_node("Sum", [f"b{i}" for i in range(len(ops))], ["y"]))
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])],
    ).SerializeToString()


def run_python(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- SessionOptions ---------------------------------------------------------


def test_thread_counts_are_checked_when_set():
    so = loom.SessionOptions()
    with pytest.raises(ValueError, match="intra_op_num_threads"):
        so.intra_op_num_threads = -1
    with pytest.raises(ValueError, match="inter_op_num_threads"):
        so.inter_op_num_threads = 10**6
    with pytest.raises(TypeError, match="intra_op_num_threads"):
        so.intra_op_num_threads = "2"
    with pytest.raises(TypeError, match="enable_profiling"):
        so.enable_profiling = "yes"
    assert so.intra_op_num_threads == 0 and so.inter_op_num_threads == 0


def test_sequential_execution_mode_runs_one_node_at_a_time():
    so = loom.SessionOptions()
    assert so.execution_mode == loom.ExecutionMode.ORT_PARALLEL  # Loom's default
    so.execution_mode = loom.ExecutionMode.ORT_SEQUENTIAL
    so.inter_op_num_threads = 4
    so.intra_op_num_threads = 1
    so.enable_profiling = True
    so.profile_file_prefix = "/tmp/loom_sequential_test"
    session = loom.InferenceSession(two_branch_model(), so)
    assert session.inter_op_num_threads == 1
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    for _ in range(10):
        (y,) = session.run(None, {"x": x})
    np.testing.assert_allclose(y, 2 * np.maximum(x, 0) - 2 * x + 2 * np.abs(x), rtol=1e-6)
    with open(session.end_profiling()) as f:
        events = [e for e in json.load(f) if e["ph"] == "X"]
    assert events and {e["args"]["thread"] for e in events} == {"caller"}


def test_use_per_session_threads_gives_private_pools_of_the_global_sizes():
    out = run_python(
        "import loom, json\n"
        "so = loom.SessionOptions(); so.use_per_session_threads = True\n"
        f"s = loom.InferenceSession({relu_model()!r}, so)\n"
        "owners = {t['owner'] for t in loom.config.threading.describe()['threads']}\n"
        "print(json.dumps({'started': loom.runtime_started(), 'owners': sorted(owners),\n"
        "  'intra': s.intra_op_num_threads,\n"
        "  'global': loom.config.threading.get_intra_op_parallelism_threads()}))\n"
    )
    result = json.loads(out)
    assert result["started"] is False
    assert all(owner.startswith("session ") for owner in result["owners"])
    assert result["intra"] == result["global"]


def test_log_severity_level_three_silences_creation_warnings():
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        loom.InferenceSession(relu_model(), providers=["CUDAExecutionProvider"])
    so = loom.SessionOptions()
    so.log_severity_level = 3
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loom.InferenceSession(relu_model(), so, providers=["CUDAExecutionProvider"])
    with pytest.raises(ValueError, match="log_severity_level"):
        so.log_severity_level = 5


def test_fields_loom_cannot_apply_warn_once_per_process():
    out = run_python(
        "import warnings, loom\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    for _ in range(3):\n"
        "        so = loom.SessionOptions()\n"
        "        so.enable_mem_reuse = False\n"
        "        so.enable_cpu_mem_arena = True\n"
        "        so.execution_order = loom.ExecutionOrder.PRIORITY_BASED\n"
        "        so.add_session_config_entry('session.use_env_allocators', '1')\n"
        "for w in caught: print(w.message)\n"
    )
    lines = out.strip().splitlines()
    assert len(lines) == 3, lines
    assert all("has no effect in Loom" in line for line in lines)
    assert any("enable_mem_reuse = False" in line for line in lines)
    assert any("session.use_env_allocators" in line for line in lines)


def cnn_model():
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    return make_model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("GlobalAveragePool", ["r"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8, 1, 1])],
        initializers=[w, b],
    ).SerializeToString()


@pytest.mark.parametrize("level", ["ORT_ENABLE_BASIC", "ORT_ENABLE_ALL"])
def test_optimized_model_filepath_writes_the_graph_loom_runs(tmp_path, level):
    path = tmp_path / "optimized.onnx"
    so = loom.SessionOptions()
    so.graph_optimization_level = getattr(loom.GraphOptimizationLevel, level)
    so.optimized_model_filepath = str(path)
    session = loom.InferenceSession(cnn_model(), so)
    x = np.random.default_rng(1).standard_normal((2, 3, 16, 16)).astype(np.float32)
    (expected,) = session.run(None, {"x": x})
    saved = onnx.load(str(path))
    domains = {node.domain for node in saved.graph.node}
    # Read back by Loom, run as written: the same numbers.
    plain = loom.SessionOptions()
    plain.graph_optimization_level = loom.GraphOptimizationLevel.ORT_DISABLE_ALL
    (again,) = loom.InferenceSession(str(path), plain).run(None, {"x": x})
    np.testing.assert_allclose(again, expected, rtol=1e-5, atol=1e-6)
    if level == "ORT_ENABLE_BASIC":
        # Only ONNX nodes: the file passes the checker and runs in ONNX Runtime.
        assert domains == {""}
        onnx.checker.check_model(saved)
        ort = pytest.importorskip("onnxruntime")
        (theirs,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
            None, {"x": x})
        np.testing.assert_allclose(theirs, expected, rtol=1e-5, atol=1e-6)
    else:
        assert "ai.loom" in domains  # the fused Conv and the blocked layout's nodes


def test_optimized_model_filepath_that_cannot_be_written_is_an_error():
    so = loom.SessionOptions()
    so.optimized_model_filepath = "/nonexistent-dir/opt.onnx"
    with pytest.raises(ValueError, match="/nonexistent-dir/opt.onnx"):
        loom.InferenceSession(relu_model(), so)


def test_session_config_entries_round_trip():
    so = loom.SessionOptions()
    with pytest.warns(UserWarning):
        so.add_session_config_entry("session.loom_test_key", "1")
    assert so.get_session_config_entry("session.loom_test_key") == "1"
    with pytest.raises(RuntimeError, match="does not have configuration with key: nope"):
        so.get_session_config_entry("nope")
    with pytest.raises(TypeError, match="value"):
        so.add_session_config_entry("k", 1)
    assert so.has_providers() is False


def test_free_dimension_override_fixes_the_input_size():
    so = loom.SessionOptions()
    so.add_free_dimension_override_by_name("batch", 2)
    session = loom.InferenceSession(relu_model(), so)
    assert session.get_inputs()[0].shape == [2, 3]
    (y,) = session.run(None, {"x": -np.ones((2, 3), np.float32)})
    assert y.shape == (2, 3) and not y.any()
    with pytest.raises(ValueError):
        session.run(None, {"x": np.ones((3, 3), np.float32)})
    other = loom.SessionOptions()
    other.add_free_dimension_override_by_name("sequence", 4)
    with pytest.warns(UserWarning, match="'sequence'"):
        loom.InferenceSession(relu_model(), other)
    with pytest.raises(ValueError, match="must be >= 0"):
        other.add_free_dimension_override_by_name("batch", -1)


def test_names_that_would_change_the_results_are_refused():
    so = loom.SessionOptions()
    with pytest.raises(NotImplementedError, match="initializers come from the model"):
        so.add_initializer("w", np.zeros(3, np.float32))
    with pytest.raises(NotImplementedError, match="custom-op"):
        so.register_custom_ops_library("libcustom.so")
    with pytest.raises(NotImplementedError, match="CPU runtime"):
        so.add_provider("CUDAExecutionProvider", {})


# --- RunOptions -------------------------------------------------------------


def test_run_options_fields():
    ro = loom.RunOptions()
    assert ro.only_execute_path_to_fetches is True
    with pytest.warns(UserWarning):
        ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    assert ro.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    with pytest.raises(RuntimeError, match="key: missing"):
        ro.get_run_config_entry("missing")
    with pytest.raises(TypeError, match="terminate"):
        ro.terminate = 1
    with pytest.raises(ValueError, match="log_severity_level"):
        ro.log_severity_level = 9


# --- InferenceSession -------------------------------------------------------


def test_model_metadata():
    session = loom.InferenceSession(relu_model(props={"author": "me", "license": "MIT"}))
    meta = session.get_modelmeta()
    assert meta.producer_name == "loom-tests"
    assert meta.graph_name == "relu_graph"
    assert meta.domain == "ai.example"
    assert meta.description == "one Relu"
    assert meta.graph_description == "the graph's text"
    assert meta.version == 7
    assert meta.custom_metadata_map == {"author": "me", "license": "MIT"}
    meta.custom_metadata_map["author"] = "changed"  # a copy
    assert session.get_modelmeta().custom_metadata_map["author"] == "me"


def test_model_metadata_matches_onnxruntime():
    ort = pytest.importorskip("onnxruntime")
    model = relu_model(props={"k": "v"})
    ours = loom.InferenceSession(model).get_modelmeta()
    theirs = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).get_modelmeta()
    for field in MODEL_METADATA["works"]:
        assert getattr(ours, field) == getattr(theirs, field), field


def test_overridable_initializers_are_inputs_with_defaults():
    bias = numpy_helper.from_array(np.array([1, 2, 3], np.float32), "bias")
    model = make_model(
        [helper.make_node("Add", ["x", "bias"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        initializers=[bias],
    ).SerializeToString()
    session = loom.InferenceSession(model)
    names = [arg.name for arg in session.get_overridable_initializers()]
    assert names == ["bias"]
    assert loom.InferenceSession(relu_model()).get_overridable_initializers() == []


def test_profiling_start_time_and_provider_calls():
    plain = loom.InferenceSession(relu_model())
    assert plain.get_profiling_start_time_ns() == 0
    so = loom.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = "/tmp/loom_start_time_test"
    before = time.time_ns()
    session = loom.InferenceSession(relu_model(), so)
    assert before <= session.get_profiling_start_time_ns() <= time.time_ns()
    session.end_profiling()
    assert session.get_provider_options() == {"CPUExecutionProvider": {}}
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        session.set_providers(["CUDAExecutionProvider"])
    session.set_providers(["CPUExecutionProvider"])
    session.disable_fallback()
    session.enable_fallback()


# --- IOBinding and OrtValue -------------------------------------------------


def test_io_binding_with_loom_allocated_outputs():
    session = loom.InferenceSession(relu_model())
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    binding = session.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_output("y")
    session.run_with_iobinding(binding)
    (value,) = binding.get_outputs()
    np.testing.assert_array_equal(value.numpy(), np.maximum(x, 0))
    copies = binding.copy_outputs_to_cpu()
    copies[0][0, 0] = 99
    assert value.numpy()[0, 0] == 0  # copy_outputs_to_cpu copies


def test_io_binding_writes_into_preallocated_buffers():
    session = loom.InferenceSession(relu_model())
    x = np.array([[-1, 2, -3]], np.float32)
    y = np.full((1, 3), 7, np.float32)
    binding = session.io_binding()
    binding.bind_input("x", "cpu", 0, np.float32, list(x.shape), x.ctypes.data)
    binding.bind_output("y", "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    session.run_with_iobinding(binding)
    np.testing.assert_array_equal(y, [[0, 2, 0]])
    # An OrtValue output is filled in place too.
    z = loom.OrtValue.ortvalue_from_shape_and_type([1, 3], np.float32)
    binding.bind_ortvalue_output("y", z)
    binding.bind_ortvalue_input("x", loom.OrtValue.ortvalue_from_numpy(-x))
    session.run_with_iobinding(binding)
    np.testing.assert_array_equal(z.numpy(), [[1, 0, 3]])
    assert binding.get_outputs()[0].numpy() is z.numpy()


def test_io_binding_errors():
    session = loom.InferenceSession(relu_model())
    binding = session.io_binding()
    binding.bind_cpu_input("x", np.ones((2, 3), np.float32))
    binding.bind_output("y", "cpu", 0, np.float32, [1, 3], np.empty((1, 3), np.float32).ctypes.data)
    with pytest.raises(ValueError, match=r"output 'y' is float32 \(2, 3\)"):
        session.run_with_iobinding(binding)
    with pytest.raises(ValueError, match="Loom runs on the CPU"):
        binding.bind_output("y", "cuda")
    with pytest.raises(ValueError, match="element_type and shape"):
        binding.bind_output("y", "cpu", 0, None, None, 1234)
    with pytest.raises(ValueError, match="at most 2\\^48 bytes"):
        binding.bind_input("x", "cpu", 0, np.float32, [2**30, 2**30], 1234)
    with pytest.raises(ValueError, match="negative dimension"):
        binding.bind_input("x", "cpu", 0, np.float32, [-1, 3], 1234)
    with pytest.raises(ValueError, match="valid address"):
        binding.bind_input("x", "cpu", 0, np.float32, [1, 3], 0)
    other = loom.InferenceSession(relu_model())
    with pytest.raises(ValueError, match="another InferenceSession"):
        other.run_with_iobinding(binding)
    binding.clear_binding_outputs()
    binding.clear_binding_inputs()
    with pytest.raises(ValueError, match="'x'"):
        session.run_with_iobinding(binding)


def test_ort_values_share_memory_and_describe_themselves():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    value = loom.OrtValue.ortvalue_from_numpy(a)
    a[0, 0] = 42
    assert value.numpy()[0, 0] == 42
    assert value.shape() == [2, 3]
    assert value.data_type() == "tensor(float)"
    assert value.element_type() == TensorProto.FLOAT
    assert value.device_name() == "cpu"
    assert value.data_ptr() == a.ctypes.data
    assert value.tensor_size_in_bytes() == 24
    assert loom.OrtValue.ortvalue_from_numpy(np.zeros(2, np.int64)).data_type() == "tensor(int64)"
    value.update_inplace(np.ones((2, 3), np.float32))
    assert a.sum() == 6
    with pytest.raises(ValueError, match="cuda"):
        loom.OrtValue.ortvalue_from_numpy(a, "cuda")


def test_run_with_ort_values_matches_onnxruntime():
    ort = pytest.importorskip("onnxruntime")
    model = relu_model()
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    ours = loom.InferenceSession(model).run_with_ort_values(
        None, {"x": loom.OrtValue.ortvalue_from_numpy(x)})
    theirs = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run_with_ort_values(
        None, {"x": ort.OrtValue.ortvalue_from_numpy(x)})
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    assert ours[0].data_type() == theirs[0].data_type()
    assert ours[0].element_type() == theirs[0].element_type()


def conv3x3_model(channels=16, size=12):
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((channels, channels, 3, 3)) * 0.1).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    graph = helper.make_graph(
        [node], "conv3x3",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString(), w


def test_winograd_config_entry_switches_the_3x3_algorithm():
    model, w = conv3x3_model()
    x = np.random.default_rng(4).standard_normal((1, 16, 12, 12)).astype(np.float32)
    # The direct sum in double, as the reference.
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = np.zeros((1, 16, 12, 12))
    for kh in range(3):
        for kw in range(3):
            expected += np.einsum("oc,nchw->nohw", w[:, :, kh, kw], xp[:, :, kh:kh + 12, kw:kw + 12])
    outputs = {}
    for value in (None, "1", "0"):
        so = loom.SessionOptions()
        if value is not None:
            so.add_session_config_entry("loom.conv.winograd", value)
            assert so.get_session_config_entry("loom.conv.winograd") == value
        (outputs[value],) = loom.InferenceSession(model, so).run(None, {"x": x})
        np.testing.assert_allclose(outputs[value], expected, rtol=1e-4, atol=1e-4)
    # '0' is the direct kernel: closer to the double-precision sum than
    # Winograd's transforms allow.
    assert np.abs(outputs["0"] - expected).max() <= np.abs(outputs["1"] - expected).max()
    np.testing.assert_array_equal(outputs[None], outputs["1"])
    assert not np.array_equal(outputs["0"], outputs["1"])  # another algorithm ran
    so = loom.SessionOptions()
    with pytest.raises(ValueError, match="loom.conv.winograd must be '0'"):
        so.add_session_config_entry("loom.conv.winograd", "off")
