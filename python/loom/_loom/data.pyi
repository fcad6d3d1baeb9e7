import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing
from loom.data import Options


AUTOTUNE: int = -1

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

class Dataset:
    """An immutable input pipeline; iterate it with `for x in ds`."""

    @staticmethod
    def range(*args) -> Dataset:
        """int64 scalars, like Python's range()."""

    @staticmethod
    def from_tensor_slices(tensors: Any) -> Dataset:
        """Slices an array (or each array of a tuple) along its first axis."""

    @staticmethod
    def from_tensors(tensors: Any) -> Dataset:
        """One element."""

    @staticmethod
    def from_generator(generator: Callable[..., Iterable[Any]], args: tuple[Any, ...] | None = None) -> Dataset:
        """
        generator(*args) is called once per iteration and must return an iterable of arrays (or tuples of arrays). It runs under the GIL.
        """

    @staticmethod
    def read_files(paths: str | Sequence[str]) -> Dataset:
        """
        One element per file (a path list or a glob pattern): its bytes as a uint8 array.
        """

    @staticmethod
    def read_lines(paths: str | Sequence[str]) -> Dataset:
        """
        One element per line (bytes without the line ending, as a uint8 array), like tf.data.TextLineDataset.
        """

    def map(self, map_func: Callable[..., Any], num_parallel_calls: int | None = None, deterministic: bool | None = None) -> Dataset:
        """
        num_parallel_calls: None = on the consuming thread; N = up to N elements at once on the loom-data pool; AUTOTUNE = climb from 1 while throughput improves. Python functions hold the GIL: only the parts that release it (NumPy, loom.ops) run in parallel.
        """

    def filter(self, predicate: Callable[..., Any]) -> Dataset: ...

    def batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset: ...

    def shuffle(self, buffer_size: int, seed: int | None = None, reshuffle_each_iteration: bool = True) -> Dataset: ...

    def prefetch(self, buffer_size: int) -> Dataset: ...

    def take(self, count: int) -> Dataset: ...

    def skip(self, count: int) -> Dataset: ...

    def repeat(self, count: int | None = None) -> Dataset: ...

    def interleave(self, map_func: Callable[..., Any], cycle_length: int = 1, block_length: int = 1, num_parallel_calls: int | None = None) -> Dataset: ...

    def with_options(self, options: Options) -> Dataset:
        """
        Applies a loom.data.Options: autotune.cpu_budget (threads that may compute this pipeline at once; None = the data pool's size) and threading.max_intra_op_parallelism (threads an op inside a map function may use; default 1, 0 = no cap).
        """

    def __iter__(self) -> Iterator: ...

    def as_numpy_iterator(self) -> Iterator:
        """The same as iter(ds): elements are NumPy arrays."""

def list_files(pattern: str) -> list[str]:
    """
    The files matching a glob pattern, sorted (a list of str; Loom has no string tensors).
    """
