import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing
import enum

from . import (
    config as config,
    data as data,
    errors as errors,
    ops as ops
)


def start_runtime() -> None:
    """
    Starts the runtime now: freezes the configuration and creates the thread pools (the first session or op does it otherwise).
    """

def runtime_started() -> bool: ...

class GraphOptimizationLevel(enum.Enum):
    """
    ONNX Runtime's levels: DISABLE_ALL = Loom level 0 (run as given), BASIC = 1 (constant folding, dead nodes), EXTENDED = 2 (also BatchNorm folding, bias/activation and transformer fusions), ALL = 2 and the channel-blocked (NCHWc) layout.
    """

    ORT_DISABLE_ALL = 0

    ORT_ENABLE_BASIC = 1

    ORT_ENABLE_EXTENDED = 2

    ORT_ENABLE_ALL = 99

class ExecutionMode(enum.Enum):
    """
    ORT_SEQUENTIAL: one node at a time, on the thread calling run(). ORT_PARALLEL (Loom's default): independent nodes side by side, within the inter-op setting.
    """

    ORT_SEQUENTIAL = 0

    ORT_PARALLEL = 1

class ExecutionOrder(enum.Enum):
    """
    Accepted for ONNX Runtime's code; Loom runs a node as soon as its inputs are ready whatever the order.
    """

    DEFAULT = 0

    PRIORITY_BASED = 1

    MEMORY_EFFICIENT = 2

class SessionOptions:
    """
    Per-session settings, as onnxruntime.SessionOptions. A thread count above 0 (or use_per_session_threads = True) gives the session private pools; 0 uses the global pools (loom.config.threading). Fields Loom cannot apply are accepted and warn once when set away from ONNX Runtime's default (docs/python.md has the table).
    """

    def __init__(self) -> None: ...

    @property
    def intra_op_num_threads(self) -> int:
        """
        Threads one op of the session may use (the calling thread included); 0 = the global setting.
        """

    @intra_op_num_threads.setter
    def intra_op_num_threads(self, arg: int, /) -> None: ...

    @property
    def inter_op_num_threads(self) -> int:
        """
        Nodes of one run that may run at once (ORT_PARALLEL); 0 = the global setting.
        """

    @inter_op_num_threads.setter
    def inter_op_num_threads(self, arg: int, /) -> None: ...

    @property
    def max_memory_bytes(self) -> int:
        """
        Loom's own: the most bytes one run's tensors may hold at once; a run that would hold more raises loom.errors.RuntimeError before allocating. 0 (default): only the process's memory cap (LOOM_MAX_MEMORY, else the cgroup limit or physical memory).
        """

    @max_memory_bytes.setter
    def max_memory_bytes(self, arg: int, /) -> None: ...

    @property
    def graph_optimization_level(self) -> GraphOptimizationLevel: ...

    @graph_optimization_level.setter
    def graph_optimization_level(self, arg: GraphOptimizationLevel, /) -> None: ...

    @property
    def execution_mode(self) -> ExecutionMode:
        """
        ORT_PARALLEL (Loom's default; ONNX Runtime's is ORT_SEQUENTIAL) or ORT_SEQUENTIAL: one node at a time on the calling thread, no inter-op pool.
        """

    @execution_mode.setter
    def execution_mode(self, arg: ExecutionMode, /) -> None: ...

    @property
    def execution_order(self) -> ExecutionOrder: ...

    @execution_order.setter
    def execution_order(self, arg: ExecutionOrder, /) -> None: ...

    @property
    def use_per_session_threads(self) -> bool:
        """
        True: private pools even when both counts are 0 (then sized by the global settings). Loom's default (False) shares the global pools.
        """

    @use_per_session_threads.setter
    def use_per_session_threads(self, arg: bool, /) -> None: ...

    @property
    def enable_profiling(self) -> bool:
        """
        Trace every run (nodes and intra-op helpers' share of them) until InferenceSession.end_profiling() writes the trace.
        """

    @enable_profiling.setter
    def enable_profiling(self, arg: bool, /) -> None: ...

    @property
    def profile_file_prefix(self) -> str:
        """
        The profile file is <prefix>_<date>_<time>.json, relative to the working directory.
        """

    @profile_file_prefix.setter
    def profile_file_prefix(self, arg: str, /) -> None: ...

    @property
    def log_severity_level(self) -> int:
        """
        3 (error) or 4 (fatal): the warnings Loom would raise while creating the session (unavailable providers, options it does not apply) are not raised; -1 to 2: they are.
        """

    @log_severity_level.setter
    def log_severity_level(self, arg: int, /) -> None: ...

    @property
    def log_verbosity_level(self) -> int: ...

    @log_verbosity_level.setter
    def log_verbosity_level(self, arg: int, /) -> None: ...

    @property
    def logid(self) -> str: ...

    @logid.setter
    def logid(self, arg: str, /) -> None: ...

    @property
    def optimized_model_filepath(self) -> str:
        """
        When set, creating a session writes the graph it runs (after optimization) there as ONNX; Loom's own nodes (fusions, the blocked layout) are in the domain 'ai.loom', which Loom reads back.
        """

    @optimized_model_filepath.setter
    def optimized_model_filepath(self, arg: str, /) -> None: ...

    @property
    def enable_cpu_mem_arena(self) -> bool: ...

    @enable_cpu_mem_arena.setter
    def enable_cpu_mem_arena(self, arg: bool, /) -> None: ...

    @property
    def enable_mem_pattern(self) -> bool: ...

    @enable_mem_pattern.setter
    def enable_mem_pattern(self, arg: bool, /) -> None: ...

    @property
    def enable_mem_reuse(self) -> bool: ...

    @enable_mem_reuse.setter
    def enable_mem_reuse(self, arg: bool, /) -> None: ...

    @property
    def use_deterministic_compute(self) -> bool: ...

    @use_deterministic_compute.setter
    def use_deterministic_compute(self, arg: bool, /) -> None: ...

    def add_session_config_entry(self, key: str, value: str) -> None: ...

    def get_session_config_entry(self, key: str) -> str: ...

    def add_free_dimension_override_by_name(self, dim_name: str, dim_value: int) -> None:
        """
        Fixes the inputs' dimensions named dim_name (their dim_param) to dim_value: feeds of another size are refused, and the optimizer may use the size.
        """

    def add_free_dimension_override_by_denotation(self, dim_denotation: str, dim_value: int) -> None: ...

    def has_providers(self) -> bool: ...

    def __repr__(self) -> str: ...

    def add_initializer(self, *args, **kwargs) -> None: ...

    def add_external_initializers(self, *args, **kwargs) -> None: ...

    def register_custom_ops_library(self, *args, **kwargs) -> None: ...

    def add_provider(self, *args, **kwargs) -> None: ...

    def add_provider_for_devices(self, *args, **kwargs) -> None: ...

class RunOptions:
    """
    Per-run settings, as onnxruntime.RunOptions: setting terminate = True (from any thread) stops the runs given these options before their next node, raising loom.errors.CancelledError; set it back to False to run again. timeout_seconds (Loom's own) stops a run that takes longer, raising loom.errors.DeadlineExceededError (a TimeoutError).
    """

    def __init__(self) -> None: ...

    @property
    def terminate(self) -> bool: ...

    @terminate.setter
    def terminate(self, arg: bool, /) -> None: ...

    @property
    def timeout_seconds(self) -> float: ...

    @timeout_seconds.setter
    def timeout_seconds(self, arg: float, /) -> None: ...

    @property
    def only_execute_path_to_fetches(self) -> bool:
        """
        Always True in Loom: a run executes only the nodes its fetched outputs need.
        """

    @property
    def log_severity_level(self) -> int: ...

    @log_severity_level.setter
    def log_severity_level(self, arg: int, /) -> None: ...

    @property
    def log_verbosity_level(self) -> int: ...

    @log_verbosity_level.setter
    def log_verbosity_level(self, arg: int, /) -> None: ...

    @property
    def logid(self) -> str: ...

    @logid.setter
    def logid(self, arg: str, /) -> None: ...

    def add_run_config_entry(self, key: str, value: str) -> None: ...

    def get_run_config_entry(self, key: str) -> str: ...

    def __repr__(self) -> str: ...

class OrtValue:
    """
    A tensor as ONNX Runtime's OrtValue: on the CPU, a NumPy array whose memory it shares.
    """

    @staticmethod
    def ortvalue_from_numpy(numpy_obj: numpy.ndarray, device_type: str = 'cpu', device_id: int = 0) -> OrtValue: ...

    @staticmethod
    def ortvalue_from_shape_and_type(shape: Sequence[int], element_type: numpy.typing.DTypeLike, device_type: str = 'cpu', device_id: int = 0) -> OrtValue: ...

    def numpy(self) -> numpy.ndarray:
        """The array (shared memory, not a copy)."""

    def shape(self) -> list: ...

    def data_type(self) -> str: ...

    def element_type(self) -> int: ...

    def device_name(self) -> str: ...

    def data_ptr(self) -> int: ...

    def tensor_size_in_bytes(self) -> int: ...

    def has_value(self) -> bool: ...

    def is_tensor(self) -> bool: ...

    def is_sparse_tensor(self) -> bool: ...

    def is_tensor_sequence(self) -> bool: ...

    def update_inplace(self, np_arr: numpy.typing.ArrayLike) -> None: ...

    def __repr__(self) -> str: ...

class IOBinding:
    """
    Inputs and outputs bound ahead of run_with_iobinding, as ONNX Runtime's; see InferenceSession.io_binding().
    """

    def bind_cpu_input(self, name: str, arr_on_cpu: numpy.ndarray) -> None: ...

    def bind_input(self, name: str, device_type: str, device_id: int, element_type: numpy.typing.DTypeLike, shape: Sequence[int], buffer_ptr: int) -> None: ...

    def bind_ortvalue_input(self, name: str, ortvalue: OrtValue) -> None: ...

    def bind_output(self, name: str, device_type: str = 'cpu', device_id: int = 0, element_type: numpy.typing.DTypeLike | None = None, shape: Sequence[int] | None = None, buffer_ptr: int | None = None) -> None: ...

    def bind_ortvalue_output(self, name: str, ortvalue: OrtValue) -> None: ...

    def get_outputs(self) -> list[OrtValue]:
        """The last run's outputs as OrtValues."""

    def copy_outputs_to_cpu(self) -> list:
        """The last run's outputs as new NumPy arrays."""

    def clear_binding_inputs(self) -> None: ...

    def clear_binding_outputs(self) -> None: ...

    def synchronize_inputs(self) -> None:
        """Nothing to wait for on the CPU."""

    def synchronize_outputs(self) -> None:
        """Nothing to wait for on the CPU."""

class ModelMetadata:
    """What the model says about itself, as onnxruntime.ModelMetadata."""

    @property
    def producer_name(self) -> str: ...

    @property
    def graph_name(self) -> str: ...

    @property
    def domain(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def graph_description(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def custom_metadata_map(self) -> dict: ...

    def __repr__(self) -> str: ...

class NodeArg:
    """A graph input or output: name, shape, type."""

    @property
    def name(self) -> str: ...

    @property
    def shape(self) -> list[int | str | None] | None: ...

    @property
    def type(self) -> str: ...

    def __repr__(self) -> str: ...

def get_available_providers() -> list[str]:
    """As onnxruntime.get_available_providers(): Loom has the CPU only."""

def get_device() -> str:
    """As onnxruntime.get_device()."""

class InferenceSession:
    """
    Loads an ONNX model (a path, or the model's bytes) and runs it; the calling conventions of onnxruntime.InferenceSession. intra_op_num_threads / inter_op_num_threads (or a SessionOptions) above 0 give this session private thread pools; otherwise it shares the global pools. run() releases the GIL and may be called from many threads at once.
    """

    def __init__(self, path_or_bytes: str | os.PathLike[str] | bytes, sess_options: SessionOptions | None = None, providers: Sequence[str | tuple[str, Mapping[str, Any]]] | None = None, provider_options: Sequence[Mapping[str, Any]] | None = None, *, intra_op_num_threads: int | None = None, inter_op_num_threads: int | None = None) -> None: ...

    def run(self, output_names: Sequence[str] | None, input_feed: Mapping[str, numpy.typing.ArrayLike | None], run_options: RunOptions | None = None) -> list[numpy.ndarray | list[numpy.ndarray] | None]:
        """
        Runs the model: output_names (None = all outputs) and {input name: ndarray} -> list of ndarrays. As in ONNX Runtime, a sequence input takes a list of arrays and a sequence output is one; an optional input takes None (or is left out), an empty optional output is None.
        """

    def end_profiling(self) -> str:
        r"""
        Writes the runs' profile (SessionOptions.enable_profiling) as a Chrome/Perfetto trace, ONNX Runtime's format: a JSON array of events, node events with args.op_name; intra-op helpers' share of a node on the helper's thread. Returns the file's path, or \'\' when profiling is off.
        """

    def get_session_options(self) -> SessionOptions:
        """
        A copy of the options the session was created with, the thread counts as in force.
        """

    def __repr__(self) -> str: ...

    def get_inputs(self) -> list[NodeArg]: ...

    def get_modelmeta(self) -> ModelMetadata:
        """
        The model's producer, graph name, domain, descriptions, version and metadata_props, as onnxruntime.ModelMetadata.
        """

    def get_overridable_initializers(self) -> list[NodeArg]:
        """Inputs with a default value (an initializer also listed as an input)."""

    def get_profiling_start_time_ns(self) -> int:
        """
        When profiling started (ns since the Unix epoch); 0 when not profiling.
        """

    def get_provider_options(self) -> dict: ...

    def set_providers(self, providers: Sequence[str | tuple[str, Mapping[str, Any]]] | None = None, provider_options: Sequence[Mapping[str, Any]] | None = None) -> None:
        """
        Loom runs on the CPU whatever the providers; others warn, as at creation.
        """

    def disable_fallback(self) -> None:
        """Nothing to do: Loom has no other provider to fall back from."""

    def enable_fallback(self) -> None:
        """Nothing to do: Loom has no other provider to fall back from."""

    def io_binding(self) -> IOBinding:
        """An IOBinding for this session, as onnxruntime's."""

    def run_with_iobinding(self, iobinding: IOBinding, run_options: RunOptions | None = None) -> None: ...

    def run_with_ort_values(self, output_names: Sequence[str] | None, input_dict_ort_values: Mapping[str, OrtValue], run_options: RunOptions | None = None) -> list[OrtValue]: ...

    def get_outputs(self) -> list[NodeArg]: ...

    def get_providers(self) -> list[str]: ...

    @property
    def intra_op_num_threads(self) -> int:
        """Threads one op of this session may use."""

    @property
    def inter_op_num_threads(self) -> int:
        """Ops of one run that may run at once."""
