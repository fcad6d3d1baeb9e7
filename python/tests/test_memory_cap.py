"""The memory cap (issue 21): a model whose tensors would not fit fails with
a clear error before allocating, never an out-of-memory kill. The process's
cap comes from LOOM_MAX_MEMORY (else the cgroup limit, else physical
memory); SessionOptions.max_memory_bytes caps one session's runs."""

import numpy as np
import pytest

import loom
from conftest import make_model, run_python

onnx = pytest.importorskip("onnx")
helper = onnx.helper


def expand_model(rows, cols):
    """y = Expand(x[1], [rows, cols]): a float32 output of rows x cols."""
    shape = onnx.numpy_helper.from_array(np.array([rows, cols], np.int64), "shape")
    return make_model(
        [helper.make_node("Expand", ["x", "shape"], ["y"])],
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [rows, cols])],
        initializers=[shape]).SerializeToString()


def fed_expand_model():
    """y = Expand(x[1], shape) with the shape fed at run time: the output's
    size is unknown until then."""
    return make_model(
        [helper.make_node("Expand", ["x", "shape"], ["y"])],
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1]),
         helper.make_tensor_value_info("shape", onnx.TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["r", "c"])]).SerializeToString()


def test_session_max_memory_bytes_caps_each_run():
    so = loom.SessionOptions()
    assert so.max_memory_bytes == 0
    so.max_memory_bytes = 1 << 20
    assert "max_memory_bytes=1048576" in repr(so)
    x = np.ones(1, np.float32)
    small = loom.InferenceSession(expand_model(16, 1024), so)  # 64 KiB
    assert small.run(None, {"x": x})[0].shape == (16, 1024)
    # A static 4 MiB value: refused when the session is made.
    with pytest.raises(loom.errors.RuntimeError,
                       match=r"value 'y' \(output of node '.*', Expand\) is float32\[1024, 1024\]: "
                             r"4194304 bytes, above the session's max_memory_bytes of 1048576"):
        loom.InferenceSession(expand_model(1024, 1024), so)
    # A size known only at run time: refused by the run's allocator.
    fed = loom.InferenceSession(fed_expand_model(), so)
    assert fed.run(None, {"x": x, "shape": np.array([16, 1024])})[0].shape == (16, 1024)
    with pytest.raises(loom.errors.RuntimeError,
                       match="above the session's max_memory_bytes of 1048576"):
        fed.run(None, {"x": x, "shape": np.array([1024, 1024])})
    assert fed.get_session_options().max_memory_bytes == 1 << 20


@pytest.mark.parametrize("value, error", [(-1, ValueError), ("1", TypeError),
                                          (True, TypeError), (1.5, TypeError),
                                          (2**70, ValueError)])
def test_session_max_memory_bytes_refuses_bad_values(value, error):
    so = loom.SessionOptions()
    with pytest.raises(error, match="max_memory_bytes"):
        so.max_memory_bytes = value


def test_an_absurd_tensor_is_an_error_not_an_out_of_memory_kill(tmp_path):
    # 100,000 x 100,000 float32 = 40 GB: far above the cap, refused before
    # allocating (when the session is made if the shape is static, by the
    # allocator if it is fed); the process goes on and exits normally.
    static = tmp_path / "huge.onnx"
    static.write_bytes(expand_model(100_000, 100_000))
    fed = tmp_path / "fed.onnx"
    fed.write_bytes(fed_expand_model())
    result = run_python(f"""
        import numpy as np, loom
        try:
            loom.InferenceSession({str(static)!r})
        except loom.errors.RuntimeError as error:
            print("refused at creation:", error)
        sess = loom.InferenceSession({str(fed)!r})
        try:
            sess.run(None, {{"x": np.ones(1, np.float32), "shape": np.array([100_000, 100_000])}})
        except loom.errors.RuntimeError as error:
            print("refused at run:", error)
        print("still here")
        """, env={"LOOM_MAX_MEMORY": "256M"})
    assert result.returncode == 0, result.stderr
    assert ("refused at creation: Session: value 'y' (output of node 'Expand_0', Expand) is "
            "float32[100000, 100000]: 40000000000 bytes, above the memory cap of 268435456 bytes "
            "(LOOM_MAX_MEMORY=256M") in result.stdout
    assert "refused at run: node" in result.stdout
    assert "cannot allocate a tensor of 37.25 GiB" in result.stdout
    assert "above the memory cap of 256.0 MiB (LOOM_MAX_MEMORY=256M" in result.stdout
    assert "still here" in result.stdout


def test_garbage_in_loom_max_memory_is_a_clear_error():
    result = run_python("""
        import numpy as np, loom
        try:
            loom.ops.relu(np.ones(4, np.float32))
        except loom.errors.InvalidArgumentError as error:
            print("refused:", error)
        """, env={"LOOM_MAX_MEMORY": "plenty"})
    assert result.returncode == 0, result.stderr
    assert "refused: " in result.stdout
    assert "LOOM_MAX_MEMORY='plenty' is not a memory size" in result.stdout
