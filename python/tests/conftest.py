"""Shared helpers for Loom's Python tests.

The runtime starts once per process and freezes the threading configuration,
so every test of configuration rules runs in a fresh interpreter
(run_python / run_json); the rest share this process's runtime (automatic
settings). Expected values come from NumPy, ONNX Runtime or the stored
PyTorch outputs, never from Loom.
"""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS_DIR = REPO_ROOT.parent / "shared" / "models"

# Variables Loom (or its aliases) reads; a child starts without any of them so
# that a developer's shell settings cannot change a test's outcome.
_LOOM_VARIABLE_PREFIXES = ("LOOM_", "TF_")
_LOOM_VARIABLES = ("OMP_NUM_THREADS", "KMP_BLOCKTIME")


def clean_env(**overrides):
    """os.environ without Loom's variables, plus `overrides`."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(_LOOM_VARIABLE_PREFIXES) and name not in _LOOM_VARIABLES
    }
    env.update(overrides)
    return env


def run_python(code, env=None, timeout=60):
    """Runs `python3 -c code` with clean_env(**env); returns the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=clean_env(**(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
    )


def run_json(code, env=None, timeout=60):
    """Runs `code` in a child that must exit 0 and print one JSON object as its
    last stdout line; returns that object."""
    result = run_python(code, env, timeout)
    assert result.returncode == 0, f"child failed ({result.returncode}):\n{result.stderr}"
    lines = result.stdout.strip().splitlines()
    assert lines, f"child printed nothing; stderr:\n{result.stderr}"
    return json.loads(lines[-1])


def tolerance(expected, rtol=1e-3, atol=1e-4):
    """(rtol, atol) with atol relative to the scale of `expected`: a logit of
    30 and one of 0.01 get the same absolute slack."""
    scale = float(np.max(np.abs(expected))) if np.size(expected) else 1.0
    return rtol, atol * max(scale, 1.0)


def assert_close(actual, expected, rtol=1e-3, atol=1e-4):
    """Same shape and dtype, and values within tolerance(expected)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    r, a = tolerance(expected, rtol, atol)
    np.testing.assert_allclose(actual, expected, rtol=r, atol=a)


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


def make_model(nodes, inputs, outputs, initializers=(), name="test"):
    """An ONNX model from helper parts, opset 17, IR version 8 (what ONNX
    Runtime 1.16+ and Loom both load)."""
    onnx = pytest.importorskip("onnx")
    graph = onnx.helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def shared_model(name):
    """(path, input, stored PyTorch output, input name) of a model in
    ../shared/models; skips when the folder or the model is absent."""
    path = MODELS_DIR / f"{name}.onnx"
    if not path.exists():
        pytest.skip(f"shared model {path} not present")
    x = np.load(MODELS_DIR / f"{name}.input.npy")
    y = np.load(MODELS_DIR / f"{name}.output.npy")
    input_name = (MODELS_DIR / f"{name}.input_name").read_text().strip()
    return path, x, y, input_name


def usable_cpus():
    return min(os.cpu_count() or 1, len(os.sched_getaffinity(0)))


# For tests whose child process builds a model with the onnx package.
needs_onnx = pytest.mark.skipif(importlib.util.find_spec("onnx") is None,
                                reason="the onnx package is not installed")

needs_two_cpus = pytest.mark.skipif(
    usable_cpus() < 2, reason="measuring parallel CPU use needs at least 2 usable CPUs"
)


# Python source for child interpreters: thread_names() lists [tid, comm] of
# every thread of the process, the kernel's view of the thread contract.
THREAD_NAMES_SOURCE = """
import os
def thread_names():
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(os.path.join("/proc/self/task", tid, "comm")) as f:
                names.append([int(tid), f.read().strip()])
        except FileNotFoundError:  # a thread that just exited
            pass
    return sorted(names)
"""


def drain_with_errors(iterator, error_type=Exception):
    """Everything the iterator yields, with ("error", exception) in the place
    of each element whose next() raised `error_type`; iteration goes on."""
    out = []
    while True:
        try:
            out.append(next(iterator))
        except StopIteration:
            return out
        except error_type as e:
            out.append(("error", e))
