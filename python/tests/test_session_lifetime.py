"""Lifetimes across the Python/C++ boundary: sessions deleted right after a
run, outputs that outlive their session, inputs dropped after a run."""

import gc
import pathlib
import subprocess

import numpy as np
import pytest

import loom
from conftest import run_python
import onnx_models

CREATE_RUN_DELETE = f"""
import sys
import numpy as np
import loom
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
import onnx_models
model = onnx_models.two_branch().SerializeToString()
x = np.random.default_rng(0).standard_normal((2, 32)).astype(np.float32)
for _ in range(300):
    session = loom.InferenceSession(model, intra_op_num_threads=1, inter_op_num_threads=2)
    session.run(None, {{"x": x}})
    del session
print("done")
"""


def test_deleting_a_session_right_after_a_run_does_not_deadlock():
    # A private inter-op worker may still hold the finished run's state, and
    # with it the last reference to the NumPy input, when the session is
    # destroyed; freeing that needs the GIL while the destructor joins the
    # worker. Before the fix this hung within a few hundred iterations.
    try:
        result = run_python(CREATE_RUN_DELETE, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("creating, running and deleting sessions hung (GIL deadlock)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"


def test_outputs_outlive_their_session(rng):
    x = rng.standard_normal((3, 32)).astype(np.float32)
    session = loom.InferenceSession(onnx_models.two_branch().SerializeToString(),
                                    intra_op_num_threads=1)
    (y,) = session.run(None, {"x": x})
    expected = y.copy()
    del session
    gc.collect()
    # Allocate and touch memory that could reuse a freed buffer.
    scratch = [np.full((3, 16), 7.0, np.float32) for _ in range(64)]
    np.testing.assert_array_equal(y, expected)
    assert scratch[0][0, 0] == 7.0


def test_inputs_may_be_dropped_after_run(rng):
    session = loom.InferenceSession(onnx_models.identity().SerializeToString())
    x = rng.standard_normal((3, 4)).astype(np.float32)
    expected = x.copy()
    (y,) = session.run(None, {"x": x})
    del x
    gc.collect()
    np.testing.assert_array_equal(y, expected)
