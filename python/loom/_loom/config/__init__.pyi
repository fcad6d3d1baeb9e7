import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing
from . import threading as threading
