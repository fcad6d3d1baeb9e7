"""Loom's configuration: `loom.config.threading`, named like tf.config.threading."""

from loom.config import threading

__all__ = ["threading"]
