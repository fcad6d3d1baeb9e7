"""loom.RunOptions: onnxruntime's `terminate` flag (cancel runs from another
thread) and Loom's `timeout_seconds` deadline, both checked before each node."""

import threading
import time

import numpy as np
import pytest

import loom
import onnx_models


@pytest.fixture(scope="module")
def long_chain():
    # 120 MatMul+Relu layers on [256, 256]: a few hundred ms on one thread,
    # far longer than it takes to cancel.
    model = onnx_models.matmul_chain(size=256, layers=120)
    return loom.InferenceSession(model.SerializeToString(), intra_op_num_threads=1,
                                 inter_op_num_threads=1)


@pytest.fixture
def x(rng):
    return rng.standard_normal((256, 256)).astype(np.float32)


def test_terminate_before_run_cancels_and_resetting_it_runs_again(long_chain, x):
    options = loom.RunOptions()
    assert options.terminate is False
    options.terminate = True
    assert options.terminate is True
    with pytest.raises(loom.errors.CancelledError, match="cancelled"):
        long_chain.run(None, {"x": x}, options)
    options.terminate = False
    (y,) = long_chain.run(None, {"x": x}, options)
    np.testing.assert_array_equal(y, long_chain.run(None, {"x": x})[0])


def test_terminate_from_another_thread_stops_a_running_run(long_chain, x):
    options = loom.RunOptions()
    about_to_run = threading.Event()

    def cancel():
        about_to_run.wait()
        time.sleep(0.02)  # usually lands mid-run; before the run would cancel it too
        options.terminate = True

    canceller = threading.Thread(target=cancel)
    canceller.start()
    start = time.perf_counter()
    about_to_run.set()
    with pytest.raises(loom.errors.CancelledError):
        long_chain.run(None, {"x": x}, options)
    cancelled_after = time.perf_counter() - start
    canceller.join()
    # The session is fine afterwards, and a full run takes clearly longer
    # than the cancelled one did.
    start = time.perf_counter()
    long_chain.run(None, {"x": x})
    assert cancelled_after < time.perf_counter() - start


def test_timeout_raises_deadline_exceeded_which_is_a_timeout_error(long_chain, x):
    options = loom.RunOptions()
    options.timeout_seconds = 0.005
    with pytest.raises(TimeoutError, match="deadline"):
        long_chain.run(None, {"x": x}, options)
    options.timeout_seconds = 0.0  # no deadline
    long_chain.run(None, {"x": x}, options)


def test_negative_or_endless_timeout_is_a_value_error_when_set():
    options = loom.RunOptions()
    for bad in (-1.0, float("nan"), float("inf"), 1e12):
        with pytest.raises(ValueError, match="timeout_seconds"):
            options.timeout_seconds = bad
    with pytest.raises(TypeError, match="timeout_seconds"):
        options.timeout_seconds = "5"
    assert options.timeout_seconds == 0.0


def test_unknown_run_options_attributes_are_refused_not_ignored():
    with pytest.raises(AttributeError):
        loom.RunOptions().timeout_secs = 3  # a misspelt field
