"""Builds a torch.nn.Module from an export_models.py spec and its weights.

PyTorch runs the same architecture with the same weights as the ONNX file
(the shared models were exported from PyTorch; the spec rebuilds them without
the torchvision classes, and without onnx, which Debian's torch lacks). NCHW,
PyTorch's native layout, so inputs and outputs need no conversion.

forward() walks the node list, one Python call per layer, as a hand-written
module's forward does, and drops each activation after its last reader (as
Python frees a hand-written forward's locals), so peak memory is comparable.

Runs under /usr/bin/python3 (Debian torch 1.13, numpy 1.24): no onnx, no
numpy-2-only calls.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class UnsupportedSpec(Exception):
    """The spec holds something this builder cannot express faithfully."""


def parameter(array):
    return nn.Parameter(torch.from_numpy(np.array(array, dtype=np.float32)), requires_grad=False)


def symmetric(pads_tlbr):
    """(pad_h, pad_w) when top == bottom and left == right, else None."""
    top, left, bottom, right = pads_tlbr
    return (top, left) if top == bottom and left == right else None


class PaddedConv(nn.Module):
    """nn.Conv2d; asymmetric ONNX pads (which Conv2d cannot take) go through F.pad first."""

    def __init__(self, attrs, weight, bias):
        super().__init__()
        pads = symmetric(attrs["pads"])
        self.pre_pad = None if pads is not None else self._f_pad_order(attrs["pads"])
        self.conv = nn.Conv2d(attrs["in_channels"], attrs["out_channels"], tuple(attrs["kernel_shape"]),
                              stride=tuple(attrs["strides"]), padding=pads or (0, 0),
                              dilation=tuple(attrs["dilations"]), groups=attrs["group"],
                              bias=bias is not None)
        self.conv.weight = parameter(weight)
        if bias is not None:
            self.conv.bias = parameter(bias)

    @staticmethod
    def _f_pad_order(pads_tlbr):
        top, left, bottom, right = pads_tlbr
        return (left, right, top, bottom)  # F.pad: last dim first

    def forward(self, x):
        if self.pre_pad is not None:
            x = F.pad(x, self.pre_pad)
        return self.conv(x)


class PaddedMaxPool(nn.Module):
    """nn.MaxPool2d; pads it cannot take (asymmetric, or over half the kernel) become -inf F.pad."""

    def __init__(self, attrs):
        super().__init__()
        kernel = tuple(attrs["kernel_shape"])
        pads = symmetric(attrs["pads"])
        if pads is not None and all(p <= k // 2 for p, k in zip(pads, kernel)):
            self.pre_pad = None
        else:
            top, left, bottom, right = attrs["pads"]
            self.pre_pad, pads = (left, right, top, bottom), (0, 0)
        self.pool = nn.MaxPool2d(kernel, stride=tuple(attrs["strides"]), padding=pads)

    def forward(self, x):
        if self.pre_pad is not None:
            x = F.pad(x, self.pre_pad, value=float("-inf"))
        return self.pool(x)


class Clip(nn.Module):
    def __init__(self, attrs):
        super().__init__()
        self.low, self.high = attrs["min"], attrs["max"]

    def forward(self, x):
        if self.low is not None and self.high is not None:
            return F.hardtanh(x, self.low, self.high)
        return torch.clamp(x, min=self.low, max=self.high)


class Flatten(nn.Module):
    def __init__(self, attrs):
        super().__init__()
        self.axis = attrs["axis"]

    def forward(self, x):
        return torch.flatten(x, self.axis)


class Softmax(nn.Module):
    def __init__(self, attrs):
        super().__init__()
        self.axis = attrs["axis"]

    def forward(self, x):
        return F.softmax(x, dim=self.axis)


class Relu(nn.Module):
    def forward(self, x):
        return F.relu(x)


class GlobalAveragePool(nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool2d(x, 1)


class Add(nn.Module):
    def forward(self, a, b):
        return a + b


def gemm(attrs, b, c):
    """Gemm as nn.Linear: weight [out, in] = alpha * (B if transB else B^T), bias = beta * C."""
    linear = nn.Linear(attrs["in_features"], attrs["out_features"], bias=attrs["has_c"])
    linear.weight = parameter(attrs["alpha"] * (b if attrs["transB"] else b.T))
    if attrs["has_c"]:
        linear.bias = parameter(attrs["beta"] * c.reshape(-1))
    return linear


def make_layer(node, weights):
    op, attrs, inputs = node["op"], node["attrs"], node["inputs"]
    if op == "Conv":
        return PaddedConv(attrs, weights[inputs[1]], weights[inputs[2]] if attrs["has_bias"] else None)
    if op == "Gemm":
        return gemm(attrs, weights[inputs[1]], weights[inputs[2]] if attrs["has_c"] else None)
    if op == "MaxPool":
        return PaddedMaxPool(attrs)
    if op in ("Clip", "Flatten", "Softmax"):
        return {"Clip": Clip, "Flatten": Flatten, "Softmax": Softmax}[op](attrs)
    if op in ("Relu", "GlobalAveragePool", "Add"):
        return {"Relu": Relu, "GlobalAveragePool": GlobalAveragePool, "Add": Add}[op]()
    raise UnsupportedSpec(f"{node['name']}: op {op} has no torch builder")


class SpecModule(nn.Module):
    """The spec's graph; forward(x) takes and returns the ONNX layout (NCHW or [N, F])."""

    def __init__(self, spec, weights):
        super().__init__()
        self.layers = nn.ModuleList(make_layer(node, weights) for node in spec["nodes"])
        self.input_name = spec["input"]["name"]
        self.output_name = spec["output"]["name"]
        # Each step: (layer, activation names it reads, name it writes, names read for the last time).
        last_reader = {}
        for index, node in enumerate(spec["nodes"]):
            for name in node["inputs"]:
                last_reader[name] = index
        self.steps = []
        for index, (layer, node) in enumerate(zip(self.layers, spec["nodes"])):
            reads = [n for n in node["inputs"] if n not in weights]  # weights live in the layer
            done = [n for n in set(reads) if last_reader[n] == index and n != self.output_name]
            self.steps.append((layer, reads, node["outputs"][0], done))

    def forward(self, x):
        values = {self.input_name: x}
        for layer, reads, write, done in self.steps:
            values[write] = layer(*[values[n] for n in reads])
            for name in done:
                del values[name]
        return values[self.output_name]


def build(spec, weights):
    """Returns the module in eval() mode, parameters frozen."""
    return SpecModule(spec, weights).eval()
