import os
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy
import numpy.typing
from collections.abc import Sequence


def run(op: str, inputs: Sequence[numpy.typing.ArrayLike | None], attributes: dict | None = None) -> list[numpy.ndarray]:
    """
    Runs any supported ONNX operator: run('Conv', [x, w, None], {'pads': [1, 1, 1, 1]}) -> list of arrays. None marks an absent optional input.
    """

def supported_ops() -> list[str]:
    """Every op name run() accepts, sorted."""

def kernel_isa() -> str:
    """
    The instruction set the kernels use ('avx2_fma', ...). Starts the runtime.
    """

def matmul(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """NumPy matmul semantics (batched, broadcast)."""

def gemm(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike, c: numpy.typing.ArrayLike | None = None, *, trans_a: bool = False, trans_b: bool = False, alpha: float = 1.0, beta: float = 1.0) -> numpy.ndarray:
    """alpha * op(a) @ op(b) + beta * c (ONNX Gemm)."""

def conv2d(x: numpy.typing.ArrayLike, w: numpy.typing.ArrayLike, bias: numpy.typing.ArrayLike | None = None, *, strides: Sequence[int] | None = None, pads: Sequence[int] | None = None, dilations: Sequence[int] | None = None, group: int = 1, auto_pad: str = 'NOTSET') -> numpy.ndarray:
    """
    2-D convolution, NCHW: x [N, C, H, W], w [M, C/group, kH, kW], bias [M]; pads are [top, left, bottom, right].
    """

def add(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """a + b, broadcasting like NumPy."""

def sub(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """a - b, broadcasting like NumPy."""

def mul(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """a * b, broadcasting like NumPy."""

def div(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """a / b, broadcasting like NumPy."""

def pow(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """a ** b, broadcasting like NumPy."""

def maximum(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """Elementwise max, broadcasting."""

def minimum(a: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike) -> numpy.ndarray:
    """Elementwise min, broadcasting."""

def relu(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """max(x, 0)."""

def sigmoid(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """1 / (1 + exp(-x))."""

def tanh(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """tanh(x)."""

def exp(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """exp(x)."""

def log(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """log(x)."""

def sqrt(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """sqrt(x)."""

def gelu(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """GELU (erf form)."""

def silu(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """x * sigmoid(x)."""

def leaky_relu(x: numpy.typing.ArrayLike, alpha: float = 0.009999999776482582) -> numpy.ndarray:
    """x if x >= 0 else alpha * x."""

def clip(x: numpy.typing.ArrayLike, min: float, max: float) -> numpy.ndarray:
    """min(max(x, min), max)."""

def max_pool(x: numpy.typing.ArrayLike, kernel_shape: Sequence[int], *, strides: Sequence[int] | None = None, pads: Sequence[int] | None = None, auto_pad: str = 'NOTSET', ceil_mode: bool = False, count_include_pad: bool = False) -> numpy.ndarray:
    """Max pooling, NCHW (ONNX MaxPool)."""

def average_pool(x: numpy.typing.ArrayLike, kernel_shape: Sequence[int], *, strides: Sequence[int] | None = None, pads: Sequence[int] | None = None, auto_pad: str = 'NOTSET', ceil_mode: bool = False, count_include_pad: bool = False) -> numpy.ndarray:
    """Average pooling, NCHW (ONNX AveragePool)."""

def global_average_pool(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """Mean over H, W: [N, C, 1, 1]."""

def global_max_pool(x: numpy.typing.ArrayLike) -> numpy.ndarray:
    """Max over H, W: [N, C, 1, 1]."""

def reduce_sum(x: numpy.typing.ArrayLike, axes: Sequence[int] | None = None, keepdims: bool = True) -> numpy.ndarray:
    """Sum over axes (None = all)."""

def reduce_mean(x: numpy.typing.ArrayLike, axes: Sequence[int] | None = None, keepdims: bool = True) -> numpy.ndarray:
    """Mean over axes (None = all)."""

def reduce_max(x: numpy.typing.ArrayLike, axes: Sequence[int] | None = None, keepdims: bool = True) -> numpy.ndarray:
    """Max over axes (None = all)."""

def reduce_min(x: numpy.typing.ArrayLike, axes: Sequence[int] | None = None, keepdims: bool = True) -> numpy.ndarray:
    """Min over axes (None = all)."""

def argmax(x: numpy.typing.ArrayLike, axis: int = 0, keepdims: bool = True) -> numpy.ndarray:
    """Index of the max (int64)."""

def softmax(x: numpy.typing.ArrayLike, axis: int = -1) -> numpy.ndarray:
    """Softmax along axis."""

def log_softmax(x: numpy.typing.ArrayLike, axis: int = -1) -> numpy.ndarray:
    """Log of the softmax along axis."""

def layer_norm(x: numpy.typing.ArrayLike, scale: numpy.typing.ArrayLike, bias: numpy.typing.ArrayLike | None = None, *, axis: int = -1, epsilon: float = 9.999999747378752e-06) -> numpy.ndarray:
    """Layer normalization from axis on."""

def reshape(x: numpy.typing.ArrayLike, shape: Sequence[int]) -> numpy.ndarray:
    """ONNX Reshape (0 copies a dim, -1 infers one); a new array."""

def transpose(x: numpy.typing.ArrayLike, perm: Sequence[int] | None = None) -> numpy.ndarray:
    """Permutes axes (None = reverse them)."""

def concat(tensors: Any, axis: int) -> numpy.ndarray:
    """Joins arrays along axis."""

def flatten(x: numpy.typing.ArrayLike, axis: int = 1) -> numpy.ndarray:
    """To 2-D: dims before axis, dims from axis."""

def cast(x: numpy.typing.ArrayLike, dtype: numpy.typing.ArrayLike) -> numpy.ndarray:
    """Converts elements to dtype (a NumPy dtype or its name)."""
