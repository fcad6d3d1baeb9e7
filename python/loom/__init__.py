"""Loom: a CPU tensor runtime whose thread settings do exactly what they say.

    import loom
    loom.config.threading.set_intra_op_parallelism_threads(4)
    sess = loom.InferenceSession("model.onnx")          # onnxruntime's API
    (y,) = sess.run(None, {sess.get_inputs()[0].name: x})
    z = loom.ops.relu(loom.ops.matmul(a, b))             # eager, on NumPy arrays

Everything that computes is C++ (the `loom._loom` extension); this package
names it, and loom.data adds tf.data's element structures (dicts, tuples,
strings) in Python.
"""

import atexit as _atexit

from loom import _loom, _scheduler, config, data, errors, ops
from loom._loom import (
    ExecutionMode,
    ExecutionOrder,
    GraphOptimizationLevel,
    InferenceSession,
    IOBinding,
    ModelMetadata,
    NodeArg,
    OrtValue,
    RunOptions,
    SessionOptions,
    __version__,
    get_available_providers,
    get_device,
    runtime_started,
    start_runtime,
)

__all__ = [
    "ExecutionMode",
    "ExecutionOrder",
    "GraphOptimizationLevel",
    "IOBinding",
    "InferenceSession",
    "ModelMetadata",
    "NodeArg",
    "OrtValue",
    "RunOptions",
    "SessionOptions",
    "__version__",
    "config",
    "data",
    "errors",
    "get_available_providers",
    "get_device",
    "ops",
    "runtime_started",
    "start_runtime",
]

# Before the interpreter goes away: threads coming back from Loom calls stop
# short of Python (which would end them with pthread_exit, aborting the
# process inside C++), and open pipelines stop (python/src/gil.h).
_atexit.register(_loom._exit_hook)

# Inside a Ray worker, automatic thread counts follow the CPUs Ray assigned it
# (loom/_scheduler.py); elsewhere this does nothing.
_scheduler.follow_scheduler_allotment()
