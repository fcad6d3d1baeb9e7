import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing
from loom.data import Options


AUTOTUNE: int = -1

INFINITE_CARDINALITY: int = -1

UNKNOWN_CARDINALITY: int = -2

class Iterator:
    """One pass over a Dataset."""

    def __iter__(self) -> Iterator: ...

    def __next__(self) -> Any: ...

    def close(self) -> None:
        """
        Stops the workers and frees the buffers now; the iterator then ends (next() raises StopIteration), also for a thread waiting in next().
        """

    def stats(self) -> dict:
        """
        The asynchronous stages and what they chose: parallelism, buffer_size, produced.
        """

def list_files(pattern: str) -> list[str]:
    """
    The files matching a glob pattern, sorted (a list of str; Loom has no string tensors).
    """
