"""Input pipelines with tf.data's names, on Loom's governed "loom-data-*" pool.

    ds = (loom.data.Dataset.range(1000)
          .map(decode, num_parallel_calls=loom.data.AUTOTUNE)
          .batch(32)
          .prefetch(loom.data.AUTOTUNE))
    for batch in ds:
        ...

Elements are NumPy arrays, or tuples of arrays. The pool's size is
loom.config.threading.set_data_pipeline_threads(n) / LOOM_NUM_DATA_THREADS.
Everything runs in C++ (see docs/data.md); this module only names it and
holds the Options, which are plain data.
"""

from loom._loom.data import AUTOTUNE, Dataset, Iterator, list_files  # noqa: F401
from loom._loom.data import _close_all_iterators as _loom_close_all  # noqa: F401


class AutotuneOptions:
    """cpu_budget: threads that may compute this pipeline's work at once
    (pool threads and the consumer together); None = the data pool's size.
    AUTOTUNE never chooses more."""

    def __init__(self):
        self.cpu_budget = None


class ThreadingOptions:
    """max_intra_op_parallelism: threads one op called inside a map or filter
    function may use; None = 1 (the pool already runs elements side by side),
    0 = no cap."""

    def __init__(self):
        self.max_intra_op_parallelism = None


class Options:
    """Pipeline options, as tf.data.Options: ds.with_options(options)."""

    def __init__(self):
        self.autotune = AutotuneOptions()
        self.threading = ThreadingOptions()


def TextLineDataset(filenames):  # noqa: N802 (tf.data's name)
    """One element per line of the files, as uint8 arrays (Dataset.read_lines)."""
    return Dataset.read_lines(filenames)


__all__ = [
    "AUTOTUNE",
    "AutotuneOptions",
    "Dataset",
    "Iterator",
    "Options",
    "TextLineDataset",
    "ThreadingOptions",
    "list_files",
]
