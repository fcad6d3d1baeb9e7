"""MaxRoiPool gives ONNX Runtime's results: random images and regions
(boxes partly outside the image, degenerate boxes, half-pixel coordinates
that exercise the rounding), several pooled shapes and scales."""
import numpy as np
import pytest

import loom

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

FLOAT = onnx.TensorProto.FLOAT


def max_roi_pool_model(pooled, scale):
    graph = helper.make_graph(
        [helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=pooled,
                          spatial_scale=scale)], "roi",
        [helper.make_tensor_value_info("x", FLOAT, [2, 3, 13, 17]),
         helper.make_tensor_value_info("rois", FLOAT, [None, 5])],
        [helper.make_tensor_value_info("y", FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


@pytest.mark.parametrize("pooled,scale", [([2, 2], 1.0), ([3, 5], 0.5), ([7, 7], 0.0625),
                                          ([1, 4], 1.25)])
def test_max_roi_pool_matches_onnxruntime(pooled, scale):
    rng = np.random.default_rng(sum(pooled))
    x = rng.standard_normal((2, 3, 13, 17)).astype(np.float32)
    n = 24
    corners = rng.uniform(-4, 24 / scale, size=(n, 4)).round(0) / 2  # many .5 values
    rois = np.concatenate([rng.integers(0, 2, size=(n, 1)), corners], axis=1).astype(np.float32)
    data = max_roi_pool_model(pooled, scale)
    got = loom.InferenceSession(data).run(None, {"x": x, "rois": rois})[0]
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(
        None, {"x": x, "rois": rois})[0]
    assert got.shape == want.shape == (n, 3, *pooled)
    np.testing.assert_array_equal(got, want)
