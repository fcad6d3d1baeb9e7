"""Builds a Keras functional model from an export_models.py spec and its weights.

TensorFlow runs the same architecture with the same weights as the ONNX file,
converted from it by export_models.py (there is no maintained ONNX importer for
TensorFlow): the comparison is of runtimes, not of models.

The model is NHWC, TensorFlow's native CPU layout (its CPU kernels have no NCHW
convolution), so an NCHW input is transposed once by the caller, outside any
timed loop, and a 4-D output goes back with `to_onnx_layout`. Per ONNX op:

  Conv              explicit ZeroPadding2D (ONNX/PyTorch pads, which may differ
                    from TF's 'same'), then Conv2D(padding='valid'), or
                    DepthwiseConv2D when group == input channels; kernels go
                    from OIHW to HWIO (Conv2D) or HW,C,multiplier (depthwise)
  Relu              ReLU
  Clip(0, hi)       ReLU(max_value=hi); other bounds: keras.ops.clip
  MaxPool           pad with -inf, then MaxPool2D(padding='valid'). TF's 'same'
                    is not equal: for 112x112, kernel 3, stride 2 it pads
                    0 before / 1 after, ONNX pads 1 / 1, so windows shift by one
  Add               Add
  GlobalAveragePool GlobalAveragePooling2D(keepdims=True): [N, 1, 1, C]
  Flatten           Reshape to [N, C]: equal to ONNX's NCHW flatten only because
                    H = W = 1, which is asserted
  Gemm              Dense, kernel = alpha * (B^T if transB else B), bias = beta * C
  Softmax           Softmax on the last axis of a 2-D tensor
"""
import os

os.environ["KERAS_BACKEND"] = "tensorflow"  # Keras 3 reads it once, at import

import keras  # noqa: E402  (after KERAS_BACKEND)
import numpy as np  # noqa: E402


class UnsupportedSpec(Exception):
    """The spec holds something this builder cannot express faithfully."""


class NegInfPadding2D(keras.layers.Layer):
    """Pads H and W of an NHWC tensor with -inf, so padded cells never win a max."""

    def __init__(self, pads_tlbr, **kwargs):
        super().__init__(**kwargs)
        top, left, bottom, right = pads_tlbr
        self.pad_width = [[0, 0], [top, bottom], [left, right], [0, 0]]

    def call(self, x):
        return keras.ops.pad(x, self.pad_width, mode="constant", constant_values=-np.inf)


class ClipLayer(keras.layers.Layer):
    """Clip with a lower bound other than 0 (ReLU covers the 0 case)."""

    def __init__(self, low, high, **kwargs):
        super().__init__(**kwargs)
        self.low = -np.inf if low is None else low
        self.high = np.inf if high is None else high

    def call(self, x):
        return keras.ops.clip(x, self.low, self.high)


def layer_name(node, suffix=""):
    # Keras names may not hold '/' or ':'; ONNX names do.
    base = "".join(c if c.isalnum() or c in "._-" else "_" for c in node["name"]).strip("_")
    return (base or node["op"]) + suffix


def apply(layer, x, weights=None):
    """Calls the layer (which builds it), then loads the weights."""
    y = layer(x)
    if weights is not None:
        layer.set_weights([np.asarray(w, dtype=np.float32) for w in weights])
    return y


def zero_pad(node, x, pads):
    top, left, bottom, right = pads
    if not any(pads):
        return x
    return keras.layers.ZeroPadding2D(((top, bottom), (left, right)), name=layer_name(node, "_pad"))(x)


def build_conv(node, x, weights):
    attrs = node["attrs"]
    w = weights[node["inputs"][1]]  # OIHW
    bias = weights[node["inputs"][2]] if attrs["has_bias"] else None
    x = zero_pad(node, x, attrs["pads"])
    common = dict(kernel_size=tuple(attrs["kernel_shape"]), strides=tuple(attrs["strides"]),
                  dilation_rate=tuple(attrs["dilations"]), padding="valid",
                  use_bias=bias is not None, name=layer_name(node))
    channels, group = attrs["in_channels"], attrs["group"]
    if group == 1:
        kernel = w.transpose(2, 3, 1, 0)  # OIHW -> HWIO
        layer = keras.layers.Conv2D(filters=attrs["out_channels"], **common)
    elif group == channels:
        # ONNX output channel c * m + k reads input channel c (m = multiplier).
        multiplier = attrs["out_channels"] // channels
        kernel = w.reshape(channels, multiplier, *w.shape[2:]).transpose(2, 3, 0, 1)
        layer = keras.layers.DepthwiseConv2D(depth_multiplier=multiplier, **common)
    else:
        raise UnsupportedSpec(f"{node['name']}: grouped conv with group={group} (not 1, not depthwise)")
    return apply(layer, x, [kernel] + ([bias] if bias is not None else []))


def build_clip(node, x, weights):
    low, high = node["attrs"]["min"], node["attrs"]["max"]
    if low == 0.0:
        return keras.layers.ReLU(max_value=high, name=layer_name(node))(x)
    return ClipLayer(low, high, name=layer_name(node))(x)


def build_maxpool(node, x, weights):
    attrs = node["attrs"]
    if any(attrs["pads"]):
        x = NegInfPadding2D(attrs["pads"], name=layer_name(node, "_pad"))(x)
    return keras.layers.MaxPool2D(pool_size=tuple(attrs["kernel_shape"]), strides=tuple(attrs["strides"]),
                                  padding="valid", name=layer_name(node))(x)


def build_flatten(node, x, weights):
    if len(x.shape) == 2:
        return x
    if len(x.shape) != 4 or tuple(x.shape[1:3]) != (1, 1):
        # NHWC and NCHW flatten orders differ unless the spatial dims are 1.
        raise UnsupportedSpec(f"{node['name']}: Flatten of NHWC shape {tuple(x.shape)}; "
                              "only [N, 1, 1, C] flattens the same as ONNX's NCHW")
    return keras.layers.Reshape((x.shape[3],), name=layer_name(node))(x)


def build_gemm(node, x, weights):
    attrs = node["attrs"]
    b = weights[node["inputs"][1]]
    kernel = attrs["alpha"] * (b.T if attrs["transB"] else b)
    layer = keras.layers.Dense(attrs["out_features"], use_bias=attrs["has_c"], name=layer_name(node))
    bias = [attrs["beta"] * weights[node["inputs"][2]].reshape(-1)] if attrs["has_c"] else []
    return apply(layer, x, [kernel] + bias)


def build_softmax(node, x, weights):
    axis = node["attrs"]["axis"]
    if len(x.shape) != 2 or axis not in (-1, 1):
        # On a 4-D tensor the axis would have to be remapped from NCHW to NHWC.
        raise UnsupportedSpec(f"{node['name']}: Softmax only over the last axis of a 2-D tensor")
    return keras.layers.Softmax(axis=-1, name=layer_name(node))(x)


def unary(make):
    return lambda node, x, weights: make(node)(x)


# op -> builder(node, first input tensor, weights); Add is handled apart (two inputs).
BUILDERS = {
    "Conv": build_conv,
    "Relu": unary(lambda node: keras.layers.ReLU(name=layer_name(node))),
    "Clip": build_clip,
    "MaxPool": build_maxpool,
    "GlobalAveragePool": unary(lambda node: keras.layers.GlobalAveragePooling2D(
        keepdims=True, name=layer_name(node))),
    "Flatten": build_flatten,
    "Gemm": build_gemm,
    "Softmax": build_softmax,
}


def build(spec, weights):
    """Returns a keras.Model taking NHWC (or [N, F]) float32 and giving the spec's output."""
    input_shape = spec["input"]["shape"]
    if len(input_shape) == 4:
        _, c, h, w = input_shape
        keras_shape = (h, w, c)
    elif len(input_shape) == 2:
        keras_shape = (input_shape[1],)
    else:
        raise UnsupportedSpec(f"input of rank {len(input_shape)}: only 2-D or 4-D inputs")
    inputs = keras.Input(shape=keras_shape, dtype="float32", name="input")
    values = {spec["input"]["name"]: inputs}
    for node in spec["nodes"]:
        op = node["op"]
        if op == "Add":
            y = keras.layers.Add(name=layer_name(node))([values[n] for n in node["inputs"]])
        elif op in BUILDERS:
            y = BUILDERS[op](node, values[node["inputs"][0]], weights)
        else:
            raise UnsupportedSpec(f"{node['name']}: op {op} has no Keras builder")
        values[node["outputs"][0]] = y
    return keras.Model(inputs, values[spec["output"]["name"]], name=spec.get("model", "model"))


def to_keras_layout(x):
    """ONNX layout -> the model's: NCHW becomes NHWC; [N, F] stays."""
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if x.ndim == 4 else x


def to_onnx_layout(y):
    """The model's output layout -> ONNX's: NHWC becomes NCHW; [N, F] stays."""
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2)) if y.ndim == 4 else y
