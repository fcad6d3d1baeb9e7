"""Exceptions raised by Loom (defined by the extension).

InvalidArgumentError is also a ValueError, RuntimeError also the built-in
RuntimeError, DeadlineExceededError also a TimeoutError."""

from loom._loom.errors import (  # noqa: F401
    CancelledError,
    DeadlineExceededError,
    Error,
    InvalidArgumentError,
    RuntimeError,
)
