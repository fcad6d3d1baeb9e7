"""ONNX Runtime's profiling API: SessionOptions.enable_profiling and
InferenceSession.end_profiling(), which writes the runs as a Chrome trace
(ORT's format: a JSON array, node events with args.op_name). Loom's trace
also shows each intra-op helper's share of a node on the helper's thread."""

import json
import os

import numpy as np
import pytest

import loom
from conftest import make_model, usable_cpus

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def two_matmuls(rng, n=256):
    w1 = numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="first"),
        # Not an activation, which would be fused into the MatMul.
        helper.make_node("Transpose", ["h"], ["r"], name="flip"),
        helper.make_node("MatMul", ["r", "w2"], ["y"], name="second"),
    ]
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
        [w1, w2],
    )


def profiled_session(rng, tmp_path, intra):
    so = loom.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    so.intra_op_num_threads = intra
    so.inter_op_num_threads = 1
    return loom.InferenceSession(two_matmuls(rng).SerializeToString(), so)


def test_end_profiling_writes_every_run_in_onnx_runtimes_format(rng, tmp_path):
    session = profiled_session(rng, tmp_path, intra=1)
    x = rng.standard_normal((256, 256)).astype(np.float32)
    for _ in range(3):
        session.run(None, {"x": x})
    path = session.end_profiling()
    assert os.path.dirname(path) == str(tmp_path)
    assert os.path.basename(path).startswith("prof_") and path.endswith(".json")
    with open(path) as f:
        events = json.load(f)
    assert isinstance(events, list)
    nodes = [e for e in events if e["ph"] == "X"]
    # Three runs of three nodes, none skipped, in order within each run.
    assert sorted(e["name"] for e in nodes) == sorted(["first", "flip", "second"] * 3)
    assert {e["args"]["op_name"] for e in nodes} == {"MatMul", "Transpose"}
    for e in nodes:
        assert e["cat"] == "Node"
        assert e["dur"] >= 0 and e["ts"] >= 0
        assert e["pid"] == os.getpid()
        assert e["args"]["role"] == "node"
    runs = sorted(nodes, key=lambda e: e["ts"])
    assert [e["name"] for e in runs] == ["first", "flip", "second"] * 3
    # Thread names as metadata events, as in Chrome traces.
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in events)
    # Profiling ends with end_profiling(): later runs add nothing, and a
    # second call has nothing to write.
    session.run(None, {"x": x})
    assert session.end_profiling() == ""


def test_profiling_is_off_by_default(rng, tmp_path):
    session = loom.InferenceSession(two_matmuls(rng).SerializeToString())
    session.run(None, {"x": np.ones((256, 256), np.float32)})
    assert session.end_profiling() == ""
    assert loom.SessionOptions().enable_profiling is False


@pytest.mark.skipif(usable_cpus() < 2, reason="needs two CPUs for an intra-op helper")
def test_profile_shows_the_intra_op_helpers_share(rng, tmp_path):
    session = profiled_session(rng, tmp_path, intra=2)
    # This session's one intra-op worker: the newest session's (the test
    # process may hold others).
    private = [t for t in loom.config.threading.describe()["threads"] if t["owner"] != "global"]
    newest = max(int(t["owner"].split()[1]) for t in private)
    (helper_thread,) = [
        t for t in private if t["owner"] == f"session {newest}" and t["pool"] == "intra_op"
    ]
    x = rng.standard_normal((256, 256)).astype(np.float32)
    # A helper may find every shard taken on a busy machine: a few runs.
    for _ in range(20):
        session.run(None, {"x": x})
    with open(session.end_profiling()) as f:
        events = json.load(f)
    helpers = [e for e in events if e["ph"] == "X" and e["args"]["role"] == "intra-op helper"]
    assert helpers, "no helper took part in 20 runs"
    for e in helpers:
        assert e["tid"] == helper_thread["tid"]
        assert e["args"]["thread"] == helper_thread["name"]
        assert e["name"] in ("first", "second", "flip")


def test_an_unwritable_profile_path_is_a_clear_error(rng, tmp_path):
    so = loom.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "no" / "such" / "dir" / "prof")
    session = loom.InferenceSession(two_matmuls(rng).SerializeToString(), so)
    session.run(None, {"x": np.ones((256, 256), np.float32)})
    with pytest.raises(FileNotFoundError):
        session.end_profiling()
