"""InferenceSession against ONNX Runtime: the same outputs and the same
get_inputs()/get_outputs() metadata, on the shared exported models and on
small models built here."""

import types

import numpy as np
import pytest

import loom
from conftest import assert_close, shared_model
import onnx_models

ort = pytest.importorskip("onnxruntime")

SHARED_MODELS = ["mlp", "mobilenet_v2", "resnet18"]


def ort_session(path_or_bytes):
    return ort.InferenceSession(path_or_bytes, providers=["CPUExecutionProvider"])


def node_args(session):
    """get_inputs() and get_outputs() as comparable lists."""
    return [
        [(arg.name, arg.shape, arg.type) for arg in session.get_inputs()],
        [(arg.name, arg.shape, arg.type) for arg in session.get_outputs()],
    ]


@pytest.fixture(scope="module", params=SHARED_MODELS)
def shared(request):
    path, x, y, input_name = shared_model(request.param)
    return types.SimpleNamespace(path=str(path), x=x, y=y, input_name=input_name,
                                 session=loom.InferenceSession(str(path)))


def test_shared_model_matches_pytorch_and_ort(shared):
    (out,) = shared.session.run(None, {shared.input_name: shared.x})
    assert_close(out, shared.y)
    (reference,) = ort_session(shared.path).run(None, {shared.input_name: shared.x})
    assert_close(out, reference)


def test_shared_model_batch_of_four(shared):
    x = shared.x
    # Each tiled copy gets a different scale so that mixing up batch rows shows.
    scales = np.array([1.0, 0.5, -1.0, 2.0], np.float32).reshape((4,) + (1,) * (x.ndim - 1))
    batch = (np.tile(x, (4,) + (1,) * (x.ndim - 1)) * scales).astype(np.float32)
    (out,) = shared.session.run(None, {shared.input_name: batch})
    (reference,) = ort_session(shared.path).run(None, {shared.input_name: batch})
    assert out.shape[0] == 4
    assert_close(out, reference)
    # Row 0 is the stored input itself.
    assert_close(out[:1], shared.y)


def test_shared_model_metadata_matches_ort(shared):
    assert node_args(shared.session) == node_args(ort_session(shared.path))
    assert shared.session.get_inputs()[0].name == shared.input_name


@pytest.mark.parametrize("model_name", sorted(onnx_models.BUILT))
@pytest.mark.parametrize("batch", [1, 3])
def test_built_model_matches_ort(model_name, batch, rng):
    build, feed = onnx_models.BUILT[model_name]
    model_bytes = build().SerializeToString()
    inputs = feed(rng, batch)
    outputs = loom.InferenceSession(model_bytes).run(None, inputs)
    references = ort_session(model_bytes).run(None, inputs)
    assert len(outputs) == len(references)
    for out, reference in zip(outputs, references):
        assert_close(out, reference)


@pytest.mark.parametrize("model_name", sorted(onnx_models.BUILT))
def test_built_model_metadata_matches_ort(model_name):
    model_bytes = onnx_models.BUILT[model_name][0]().SerializeToString()
    assert node_args(loom.InferenceSession(model_bytes)) == node_args(ort_session(model_bytes))


def test_symbolic_and_unnamed_dims_are_shown_as_ort_shows_them():
    session = loom.InferenceSession(onnx_models.unnamed_dims().SerializeToString())
    assert session.get_inputs()[0].shape == [None, 5]
    assert loom.InferenceSession(onnx_models.cnn().SerializeToString()).get_inputs()[0].shape == [
        "N", 3, 16, 16]


def test_int64_chain_values(rng):
    """The int64 outputs checked against NumPy too, not only against ORT."""
    x = rng.standard_normal((3, 4, 6)).astype(np.float32)
    rows = np.array([2, 0, 2, 1], np.int64)
    session = loom.InferenceSession(onnx_models.int64_chain().SerializeToString())
    flat, shape, picked = session.run(None, {"x": x, "rows": rows})
    np.testing.assert_array_equal(flat, x.reshape(3, 24))
    assert shape.dtype == np.int64
    np.testing.assert_array_equal(shape, [3, 4, 6])
    np.testing.assert_array_equal(picked, x[rows])


def test_cnn_probabilities_sum_to_one(rng):
    session = loom.InferenceSession(onnx_models.cnn().SerializeToString())
    x = rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
    (probs,) = session.run(None, {"x": x})
    np.testing.assert_allclose(probs.sum(axis=1), np.ones(3), rtol=1e-5)
