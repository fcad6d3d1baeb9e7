"""Thread settings with the names of tf.config.threading (see docs/threading.md).

0 means automatic. LOOM_NUM_INTRAOP_THREADS / TF_NUM_INTRAOP_THREADS (and the
inter-op, spin, CPU-list and LOOM_CPU_BUDGET variables) outrank these calls,
which then warn. set_cpu_budget(n) bounds the whole process: at most n threads
run Loom work at once, whoever started them (0 = the usable CPUs; never
called and no LOOM_CPU_BUDGET: no budget). set_cpu_allotment(n, "ray") says a
scheduler assigned this process n CPUs: automatic values and the budget stay
within them (loom.ray does it inside Ray workers).
A negative count raises ValueError; changing a value after the runtime has
started raises RuntimeError; setting the value already in force is fine."""

from loom._loom.config.threading import (  # noqa: F401
    describe,
    get_cpu_allotment,
    get_cpu_budget,
    get_data_pipeline_threads,
    get_inter_op_cpu_affinity,
    get_inter_op_parallelism_threads,
    get_intra_op_cpu_affinity,
    get_intra_op_parallelism_threads,
    get_spin_wait_us,
    set_cpu_allotment,
    set_cpu_budget,
    set_data_pipeline_threads,
    set_inter_op_cpu_affinity,
    set_inter_op_parallelism_threads,
    set_intra_op_cpu_affinity,
    set_intra_op_parallelism_threads,
    set_spin_wait_us,
)
