"""Eager operators on NumPy arrays (defined by the extension; see loom._loom.ops).

Arguments are read in place when C-contiguous; the GIL is released while a
kernel runs; results are new arrays. The first call starts the runtime."""

from loom._loom.ops import *  # noqa: F401,F403
from loom._loom.ops import run, supported_ops  # noqa: F401
