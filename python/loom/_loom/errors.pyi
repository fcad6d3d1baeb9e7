import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing
from loom.errors import (
    CancelledError as CancelledError,
    DeadlineExceededError as DeadlineExceededError,
    Error as Error,
    InvalidArgumentError as InvalidArgumentError,
    RuntimeError as RuntimeError
)
