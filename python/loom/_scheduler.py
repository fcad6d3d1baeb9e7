"""Loom's automatic thread settings inside a cluster scheduler's worker.

A scheduler such as Ray assigns each worker a share of a machine's CPUs
without enforcing it (no affinity mask, no cgroup quota), so what the
operating system shows Loom is the whole host. `follow_scheduler_allotment`
tells Loom the share (loom.config.threading.set_cpu_allotment) so automatic
pool sizes and the CPU budget stay within it. It is called when `loom` is
imported and again by loom.ray's predictor; it changes nothing outside a Ray
worker, when an allotment is already set, or once the runtime has started.
"""

import math
import sys

from loom import _loom


def ray_assigned_cpus():
    """The CPUs Ray assigned to this worker process, rounded up; None when
    this process is not a Ray worker (the driver keeps the host's CPUs) or Ray
    assigned no CPU (an actor with the default num_cpus=0 while it runs)."""
    ray = sys.modules.get("ray")  # never import Ray: only a Ray worker has it loaded
    if ray is None:
        return None
    try:
        if not ray.is_initialized():
            return None
        context = ray.get_runtime_context()
        if context.worker.mode != ray.WORKER_MODE:
            return None
        cpus = context.get_assigned_resources().get("CPU")
    except Exception:  # an unfamiliar Ray version: Loom's own defaults then
        return None
    if not cpus or cpus <= 0:
        return None
    return max(1, math.ceil(cpus - 1e-9))


def follow_scheduler_allotment():
    """Sets the allotment from Ray if this is a Ray worker; returns the
    allotment in force (0 = none)."""
    cpus = ray_assigned_cpus()  # first: outside Ray, touch nothing
    if cpus is None or _loom.runtime_started():
        return 0
    threading = _loom.config.threading
    try:
        current = threading.get_cpu_allotment()
    except Exception:  # an invalid LOOM_ variable: the runtime says so when it starts
        current = 0
    if current:
        return current
    try:
        threading.set_cpu_allotment(cpus, "ray")
    except RuntimeError:  # a private session fixed the CPU budget first
        return 0
    return cpus
