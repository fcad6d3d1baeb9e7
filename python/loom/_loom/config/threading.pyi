import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing


def set_intra_op_parallelism_threads(num_threads: int | None) -> None:
    """
    Threads one op may use: the calling thread plus num_threads - 1 'loom-intra-*' workers. 0 = automatic (usable CPUs). Raises ValueError for a negative count, RuntimeError for a change after the runtime started.
    """

def get_intra_op_parallelism_threads() -> int:
    """The intra-op thread count in force (never 0: automatic is resolved)."""

def set_inter_op_parallelism_threads(num_threads: int | None) -> None:
    """
    Nodes of one session run that may run at once: the thread calling run() plus num_threads - 1 'loom-inter-*' workers. 0 = automatic.
    """

def get_inter_op_parallelism_threads() -> int:
    """The inter-op thread count in force (never 0)."""

def set_data_pipeline_threads(num_threads: int | None) -> None:
    """
    Threads of the 'loom-data-*' pool that runs loom.data pipelines (created when the first pipeline starts iterating). 0 = automatic (usable CPUs). LOOM_NUM_DATA_THREADS outranks it.
    """

def get_data_pipeline_threads() -> int:
    """The data pool size in force (never 0)."""

def set_spin_wait_us(microseconds: int | None) -> None:
    """
    How long an idle worker spins before it blocks; 0 blocks at once (the good-neighbour setting).
    """

def get_spin_wait_us() -> int: ...

def set_cpu_budget(tokens: int | None) -> None:
    """
    The process's CPU budget: at most this many threads run Loom work at once (intra-op helpers, inter-op runners, data workers and the threads calling run() or an op, together). 0 = the usable CPUs; never called: no budget. LOOM_CPU_BUDGET outranks it.
    """

def get_cpu_budget() -> int:
    """The CPU budget in force (never 0)."""

def set_cpu_allotment(cpus: str | Sequence[int] | None, granted_by: str = 'api') -> None:
    """
    The CPUs a scheduler assigned to this process without enforcing them (a Ray actor's num_cpus, a Dask worker's nthreads): automatic values become min(usable CPUs, cpus) with source 'auto:<granted_by>', the automatic CPU budget becomes that number, and OMP_NUM_THREADS stops deciding the intra-op value. Explicit settings still win (warning when above it). 0 removes it. Inside Ray workers loom sets it itself (loom.ray).
    """

def get_cpu_allotment() -> int:
    """The allotment in force, 0 = none."""

def set_intra_op_cpu_affinity(cpus: str | Sequence[int] | None) -> None:
    """
    Pins intra-op worker i to cpus[i % len(cpus)]; [] = not pinned. cpus: a list of CPU numbers or a string like '0-3,6' (the CLI's and LOOM_INTRAOP_CPUS' syntax).
    """

def get_intra_op_cpu_affinity() -> list[int]: ...

def set_inter_op_cpu_affinity(cpus: str | Sequence[int] | None) -> None: ...

def get_inter_op_cpu_affinity() -> list[int]: ...

def describe() -> dict[str, Any]:
    """
    Every value in force with its source ('api', 'env:LOOM_NUM_INTRAOP_THREADS', 'env:OMP_NUM_THREADS', 'auto'), the CPUs Loom sees and the threads it created, as a dict.
    """
