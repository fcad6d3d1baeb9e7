"""loom.ray on a local Ray cluster of two simulated nodes (1 and 2 CPUs).

Inside each Ray worker Loom's automatic settings must follow the CPUs Ray
assigned (not the host's), the kernel's thread list (/proc/self/task) must
show exactly the Loom threads that implies, explicit settings must win and
warn when they exceed the allotment, and a Ray Data pipeline through the
shared ResNet-18 must give exactly what one in-process session gives.
Expected values come from an in-process loom.InferenceSession run on the
same batches (Loom's kernels give the same bits at any thread count, which
the kernel tests check) and from the stored PyTorch output.
"""

import os
import sys

import numpy as np
import pytest

from conftest import MODELS_DIR
import onnx_models

ray = pytest.importorskip(
    "ray", reason="Ray is not installed: scripts/install_deps.sh installs it (ray[data]==2.60.0)"
)
pytest.importorskip("ray.data", reason="Ray Data is not installed (ray[data])")

import loom  # noqa: E402
import loom.ray  # noqa: E402

RESNET = MODELS_DIR / "resnet18.onnx"


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    # Workers must see this checkout's loom exactly as the driver does, and no
    # thread variable of the developer's shell.
    env_vars = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for name in list(os.environ):
        if name.startswith(("LOOM_", "TF_")) or name in ("OMP_NUM_THREADS", "KMP_BLOCKTIME"):
            env_vars[name] = ""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=2)
    c.wait_for_nodes()
    ray.init(
        address=c.address,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": env_vars},
    )
    yield c
    loom.ray.clear_actor_reports()
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="module")
def demo():
    """A small CNN (Conv, MaxPool, Gemm, Softmax) on x [N, 3, 16, 16], as bytes."""
    return onnx_models.cnn().SerializeToString()


@ray.remote
class Worker:
    """A plain actor: loads a model, runs it once, reports what Loom did."""

    def run(self, model, feed_shape, settings=None):
        import warnings

        import numpy as np

        import loom
        import loom.ray

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for name, value in (settings or {}).items():
                getattr(loom.config.threading, name)(value)
            session = loom.InferenceSession(model)
            feed = np.ones(feed_shape, dtype=np.float32)
            session.run(None, {session.get_inputs()[0].name: feed})
        report = loom.ray.actor_report()
        report["warnings"] = [str(w.message) for w in caught]
        return report


def demo_input_shape(model):
    session = loom.InferenceSession(model)
    return [d if isinstance(d, int) else 1 for d in session.get_inputs()[0].shape]


@pytest.mark.parametrize("cpus", [1, 2])
def test_automatic_settings_and_threads_follow_the_cpus_ray_assigned(cluster, demo, cpus):
    r = ray.get(Worker.options(num_cpus=cpus).remote().run.remote(demo, demo_input_shape(demo)))
    assert r["assigned_cpus"] == cpus
    assert r["allotment"] == {"cpus": cpus, "granted_by": "ray"}
    usable = r["usable_cpus"]
    assert 1 <= usable <= cpus
    settings = r["settings"]
    for key in (
        "intra_op_parallelism_threads",
        "inter_op_parallelism_threads",
        "data_pipeline_threads",
    ):
        assert settings[key] == {"value": usable, "source": "auto:ray"}, key
    assert settings["cpu_budget"]["value"] == usable
    assert settings["cpu_budget"]["source"] == "auto:ray"
    # The kernel's list: the caller is one thread of each pool, so a run adds
    # usable - 1 intra-op and usable - 1 inter-op workers, and describe() says so.
    expected = sorted(
        [f"loom-intra-{i}" for i in range(usable - 1)]
        + [f"loom-inter-{i}" for i in range(usable - 1)]
    )
    assert r["loom_threads"] == expected
    assert r["described_threads"] == expected
    assert r["warnings"] == []


def test_explicit_settings_win_and_warn_naming_both_numbers(cluster, demo):
    # A variable from the runtime_env outranks the allotment.
    env_actor = Worker.options(
        num_cpus=1, runtime_env={"env_vars": {"LOOM_NUM_INTRAOP_THREADS": "2"}}
    ).remote()
    r = ray.get(env_actor.run.remote(demo, demo_input_shape(demo)))
    intra = r["settings"]["intra_op_parallelism_threads"]
    assert intra == {"value": 2, "source": "env:LOOM_NUM_INTRAOP_THREADS"}
    assert r["settings"]["inter_op_parallelism_threads"]["source"] == "auto:ray"
    assert r["loom_threads"] == ["loom-intra-0"]
    assert any(
        "intra_op_parallelism_threads=2 (env:LOOM_NUM_INTRAOP_THREADS) exceeds the 1 CPU(s) of "
        "the allotment granted by ray (1 assigned" in w
        for w in r["warnings"]
    ), r["warnings"]

    # So does a call in the actor's own code.
    api_actor = Worker.options(num_cpus=1).remote()
    r = ray.get(
        api_actor.run.remote(
            demo, demo_input_shape(demo), {"set_inter_op_parallelism_threads": 3}
        )
    )
    assert r["settings"]["inter_op_parallelism_threads"] == {"value": 3, "source": "api"}
    assert r["loom_threads"] == ["loom-inter-0", "loom-inter-1"]
    assert any("inter_op_parallelism_threads=3 (api) exceeds" in w for w in r["warnings"])


def make_images(batch):
    """Images from ids alone, so the driver can rebuild any of them."""
    ids = batch["id"]
    images = np.stack(
        [np.random.default_rng(int(i)).standard_normal((3, 224, 224), dtype=np.float32)
         for i in ids]
    )
    return {"id": ids, "image": images}


@pytest.mark.skipif(not RESNET.exists(), reason=f"shared model {RESNET} is not present")
def test_ray_data_pipeline_matches_one_in_process_session(cluster):
    loom.ray.clear_actor_reports()
    # Blocks of 16 ids and batches of 16, so each actor's batches are the
    # reference's: a batch of 16 and one of 1 may differ in the last bit
    # (a different GEMM path for the classifier), threads never do.
    n, batch = 192, 16
    ds = ray.data.range(n, override_num_blocks=n // batch).map_batches(
        make_images, batch_size=batch
    )
    out = ds.map_batches(
        loom.ray.Predictor,
        fn_constructor_kwargs={"model": str(RESNET)},
        concurrency=2,
        num_cpus=1,
        batch_size=batch,
    )
    rows = out.take_all()
    assert sorted(int(r["id"]) for r in rows) == list(range(n))
    output_name = loom.InferenceSession(str(RESNET)).get_outputs()[0].name
    got = {int(r["id"]): np.asarray(r[output_name]) for r in rows}

    reference = loom.InferenceSession(str(RESNET))
    input_name = reference.get_inputs()[0].name
    for start in range(0, n, batch):
        ids = np.arange(start, start + batch)
        (expected,) = reference.run(None, {input_name: make_images({"id": ids})["image"]})
        for i in ids:
            np.testing.assert_array_equal(got[i], expected[i - start], err_msg=f"image {i}")

    # The stored PyTorch output checks the reference itself.
    stored_input = np.load(MODELS_DIR / "resnet18.input.npy")
    (mine,) = reference.run(None, {input_name: stored_input})
    np.testing.assert_allclose(mine, np.load(MODELS_DIR / "resnet18.output.npy"), atol=1e-3)

    reports = loom.ray.actor_reports()
    assert len(reports) == 2
    assert sum(r["items"] for r in reports) == n
    for r in reports:
        assert r["assigned_cpus"] == 1
        assert r["allotment"] == {"cpus": 1, "granted_by": "ray"}
        assert r["settings"]["intra_op_parallelism_threads"] == {"value": 1, "source": "auto:ray"}
        assert r["loom_threads"] == [] == r["described_threads"]
        assert r["items_per_second"] > 0
    import io

    table = io.StringIO()
    loom.ray.print_actor_table(reports, file=table)
    lines = table.getvalue().splitlines()
    assert len(lines) == 3 and "items/s" in lines[0]


class TestPredictorColumns:
    """The predictor's column handling, in this process (no cluster)."""

    @pytest.fixture
    def predictor(self, demo):
        return loom.ray.Predictor(demo, report=False)

    def test_one_input_model_reads_the_only_unkept_column_and_keeps_the_rest(self, predictor, demo):
        shape = demo_input_shape(demo)
        x = np.random.default_rng(0).standard_normal([3] + shape[1:], dtype=np.float32)
        out = predictor({"id": np.arange(3), "pixels": x})
        session = loom.InferenceSession(demo)
        (expected,) = session.run(None, {session.get_inputs()[0].name: x})
        np.testing.assert_array_equal(out[session.get_outputs()[0].name], expected)
        np.testing.assert_array_equal(out["id"], np.arange(3))

    def test_pandas_batches_of_arrays_are_stacked(self, predictor, demo):
        pd = pytest.importorskip("pandas")
        shape = demo_input_shape(demo)
        x = np.random.default_rng(1).standard_normal([2] + shape[1:], dtype=np.float32)
        frame = pd.DataFrame({"id": [7, 8], "pixels": list(x)})
        out = predictor(frame)
        session = loom.InferenceSession(demo)
        (expected,) = session.run(None, {session.get_inputs()[0].name: x})
        np.testing.assert_array_equal(out[session.get_outputs()[0].name], expected)
        np.testing.assert_array_equal(out["id"], [7, 8])

    def test_ambiguous_or_wrong_columns_are_clear_errors(self, predictor, demo):
        shape = demo_input_shape(demo)
        x = np.zeros([1] + shape[1:], dtype=np.float32)
        with pytest.raises(ValueError, match="no column for model input"):
            predictor({"a": x, "b": x})
        input_name = loom.InferenceSession(demo).get_inputs()[0].name
        with pytest.raises(ValueError, match="which the batch does not have"):
            loom.ray.Predictor(demo, input_columns={input_name: "nope"}, report=False)({"a": x})
        with pytest.raises(ValueError, match="which the model does not have"):
            loom.ray.Predictor(demo, input_columns={"nope": "a"}, report=False)
        with pytest.raises(TypeError, match="dict of NumPy arrays or a pandas DataFrame"):
            predictor([x])


def test_outside_a_ray_worker_there_is_no_allotment():
    # This process is Ray's driver: it keeps the host's CPUs.
    assert loom.config.threading.get_cpu_allotment() == 0
    assert loom._scheduler.ray_assigned_cpus() is None
