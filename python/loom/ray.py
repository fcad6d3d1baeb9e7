"""Batch inference on Ray, each worker's Loom threads matched to its CPU share.

    import ray, loom.ray
    ds = ray.data.from_items([{"id": i, "image": image} for i, image in ...])
    out = ds.map_batches(loom.ray.Predictor,
                         fn_constructor_kwargs={"model": "resnet18.onnx"},
                         concurrency=2, num_cpus=1, batch_size=16)
    rows = out.take_all()
    loom.ray.print_actor_table()   # actor, node, CPUs, Loom threads, CPU used, items/s

Inside a Ray worker `import loom` reads the CPUs Ray assigned (num_cpus) and
sets them as the CPU allotment: automatic intra-op, inter-op and data-pool
sizes and the CPU budget stay within it, with source "auto:ray" (see
docs/scale-out.md). Explicit settings (LOOM_* variables in the runtime_env,
loom.config.threading calls) still win, and warn when they exceed it.

Install with `pip install loom[ray]` (Ray Data, pinned).
"""

import os
import threading
import time

import numpy as np

import loom
from loom import _scheduler

__all__ = ["Predictor", "actor_report", "actor_reports", "clear_actor_reports", "print_actor_table"]

_REPORTS_NAME = "loom-actor-reports"
_REPORTS_NAMESPACE = "loom"


def _ray():
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError("loom.ray needs Ray: pip install 'loom[ray]'") from e
    return ray


def _loom_thread_names():
    """The names of this process's threads that Loom created, as the kernel
    lists them (/proc/self/task/*/comm)."""
    names = []
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return names
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:  # the thread ended meanwhile
            continue
        if name.startswith("loom-"):
            names.append(name)
    return sorted(names)


def actor_report():
    """This process as Loom sees it: the CPUs Ray assigned, the allotment,
    each setting with its source, the Loom threads the kernel lists and those
    describe() claims, and the CPU seconds the process used so far."""
    ray = _ray()
    described = loom.config.threading.describe()
    node = None
    assigned = None
    if ray.is_initialized():
        context = ray.get_runtime_context()
        node = context.get_node_id()
        try:
            assigned = context.get_assigned_resources().get("CPU")
        except Exception:  # the driver has no assignment
            assigned = None
    return {
        "pid": os.getpid(),
        "node": node,
        "assigned_cpus": assigned,
        "allotment": described["cpu"]["allotment"],
        "usable_cpus": described["cpu"]["usable"],
        "settings": {
            key: described[key]
            for key in (
                "intra_op_parallelism_threads",
                "inter_op_parallelism_threads",
                "data_pipeline_threads",
                "cpu_budget",
            )
        },
        "loom_threads": _loom_thread_names(),
        "described_threads": sorted(t["name"] for t in described["threads"]),
        "cpu_seconds": time.process_time(),
    }


def _reports_actor(create):
    ray = _ray()
    if create:

        @ray.remote(num_cpus=0)
        class _Reports:
            def __init__(self):
                self.reports = {}

            def put(self, key, report):
                self.reports[key] = report

            def all(self):
                return list(self.reports.values())

        return _Reports.options(
            name=_REPORTS_NAME,
            namespace=_REPORTS_NAMESPACE,
            get_if_exists=True,
            lifetime="detached",
        ).remote()
    try:
        return ray.get_actor(_REPORTS_NAME, namespace=_REPORTS_NAMESPACE)
    except ValueError:
        return None


def actor_reports():
    """The last report of every loom.ray.Predictor in this Ray cluster (one
    dict per actor: actor_report()'s fields plus items, busy_seconds and
    items_per_second), oldest actor first; [] before any has reported."""
    ray = _ray()
    reports = _reports_actor(create=False)
    if reports is None:
        return []
    return sorted(ray.get(reports.all.remote()), key=lambda r: r["started"])


def clear_actor_reports():
    """Forgets every report (ends the detached actor that holds them)."""
    ray = _ray()
    reports = _reports_actor(create=False)
    if reports is not None:
        ray.kill(reports)


def print_actor_table(reports=None, file=None):
    """Prints one line per actor: node, assigned CPUs, Loom settings and
    threads, CPU used and throughput."""
    reports = actor_reports() if reports is None else reports
    header = (
        f"{'actor pid':>9}  {'node':<8}  {'CPUs':>4}  {'intra':>5}  {'inter':>5}  {'budget':>6}  "
        f"{'loom threads':>12}  {'CPU s':>7}  {'CPU %':>5}  {'items':>6}  {'items/s':>8}"
    )
    lines = [header]
    for r in reports:
        settings = r["settings"]
        budget = settings["cpu_budget"]["value"]
        wall = max(r["wall_seconds"], 1e-9)
        lines.append(
            f"{r['pid']:>9}  {(r['node'] or '-')[:8]:<8}  {r['assigned_cpus'] or 0:>4g}  "
            f"{settings['intra_op_parallelism_threads']['value']:>5}  "
            f"{settings['inter_op_parallelism_threads']['value']:>5}  "
            f"{budget if budget < 4096 else 'none':>6}  {len(r['loom_threads']):>12}  "
            f"{r['cpu_seconds_used']:>7.2f}  {100 * r['cpu_seconds_used'] / wall:>5.0f}  "
            f"{r['items']:>6}  {r['items_per_second']:>8.1f}"
        )
    print("\n".join(lines), file=file)


class Predictor:
    """A callable class for ray.data.Dataset.map_batches (actor pool): loads
    `model` into a loom.InferenceSession once per actor and runs each batch.

    model: a path or the bytes of an ONNX model.
    input_columns: {model input name: batch column}; by default each input
        reads the column of its own name, or, for a one-input model, the
        batch's only column of the input's rank (a batch of images [N, C, H,
        W] beside 1-D ids and labels) that is not in keep_columns.
    output_columns: {model output name: column}; by default the output names.
    keep_columns: batch columns copied to the result unchanged; by default
        every column the model does not read (ids, labels).
    sess_options, providers, **session_kwargs: as for loom.InferenceSession
        (intra_op_num_threads etc. win over the allotment, as everywhere).
    report: after each batch, send actor_report() and the throughput so far
        to the cluster-wide table (actor_reports(), print_actor_table());
        about a millisecond a batch.

    Batches may be dicts of NumPy arrays (Ray's default) or pandas
    DataFrames (a column of equally shaped arrays is stacked); the result is
    a dict of NumPy arrays.
    """

    def __init__(
        self,
        model,
        *,
        input_columns=None,
        output_columns=None,
        keep_columns=None,
        sess_options=None,
        providers=None,
        report=True,
        **session_kwargs,
    ):
        _scheduler.follow_scheduler_allotment()
        self.session = loom.InferenceSession(
            model, sess_options=sess_options, providers=providers, **session_kwargs
        )
        self._inputs = [i.name for i in self.session.get_inputs()]
        self._outputs = [o.name for o in self.session.get_outputs()]
        self._input_columns = dict(input_columns) if input_columns else None
        unknown = set(self._input_columns or {}) - set(self._inputs)
        if unknown:
            raise ValueError(
                f"loom.ray.Predictor: input_columns names {sorted(unknown)}, which the model "
                f"does not have (its inputs: {self._inputs})"
            )
        self._output_columns = {name: name for name in self._outputs}
        if output_columns:
            unknown = set(output_columns) - set(self._outputs)
            if unknown:
                raise ValueError(
                    f"loom.ray.Predictor: output_columns names {sorted(unknown)}, which the "
                    f"model does not have (its outputs: {self._outputs})"
                )
            self._output_columns.update(output_columns)
        self._keep_columns = None if keep_columns is None else list(keep_columns)
        self._report = report
        self._items = 0
        self._busy = 0.0
        self._started = time.time()
        self._cpu_at_start = time.process_time()
        self._lock = threading.Lock()
        self._key = f"{os.getpid()}-{id(self)}"
        self._reports = _reports_actor(create=True) if report else None

    def _columns(self, batch):
        if isinstance(batch, dict):
            return {name: np.asarray(value) for name, value in batch.items()}
        if hasattr(batch, "columns") and hasattr(batch, "__getitem__"):  # pandas
            columns = {}
            for name in batch.columns:
                values = batch[name].to_numpy()
                if values.dtype == object and len(values) and isinstance(values[0], np.ndarray):
                    values = np.stack(values)
                columns[name] = values
            return columns
        raise TypeError(
            "loom.ray.Predictor: a batch must be a dict of NumPy arrays or a pandas DataFrame, "
            f"got {type(batch).__name__} (map_batches' batch_format 'numpy' or 'pandas')"
        )

    def _feeds(self, columns):
        if self._input_columns is not None:
            mapping = dict(self._input_columns)
        else:
            mapping = {name: name for name in self._inputs if name in columns}
            missing = [name for name in self._inputs if name not in mapping]
            if missing and len(self._inputs) == 1:
                # The one column shaped like the input (ids and labels are 1-D).
                rank = len(self.session.get_inputs()[0].shape)
                candidates = [
                    c
                    for c, values in columns.items()
                    if c not in (self._keep_columns or []) and values.ndim == rank
                ]
                if len(candidates) == 1:
                    mapping[self._inputs[0]] = candidates[0]
        for name in self._inputs:
            if name not in mapping:
                raise ValueError(
                    f"loom.ray.Predictor: no column for model input '{name}' (batch columns: "
                    f"{sorted(columns)}); pass input_columns={{'{name}': 'COLUMN'}}"
                )
            if mapping[name] not in columns:
                raise ValueError(
                    f"loom.ray.Predictor: input_columns maps '{name}' to column "
                    f"'{mapping[name]}', which the batch does not have (columns: {sorted(columns)})"
                )
        return {name: columns[column] for name, column in mapping.items()}, set(mapping.values())

    def __call__(self, batch):
        columns = self._columns(batch)
        feeds, used = self._feeds(columns)
        start = time.perf_counter()
        results = self.session.run(None, feeds)
        busy = time.perf_counter() - start
        keep = self._keep_columns
        if keep is None:
            keep = [c for c in columns if c not in used]
        out = {c: columns[c] for c in keep}
        for name, value in zip(self._outputs, results):
            out[self._output_columns[name]] = value
        items = len(next(iter(feeds.values()))) if feeds else 0
        with self._lock:
            self._items += items
            self._busy += busy
        if self._reports is not None:
            self._reports.put.remote(self._key, self.report())
        return out

    def report(self):
        """actor_report() plus this predictor's items, busy time (inside
        run), wall time since it was created and throughput."""
        r = actor_report()
        with self._lock:
            items, busy = self._items, self._busy
        wall = time.time() - self._started
        r.update(
            started=self._started,
            items=items,
            busy_seconds=busy,
            wall_seconds=wall,
            cpu_seconds_used=r["cpu_seconds"] - self._cpu_at_start,
            items_per_second=items / busy if busy > 0 else 0.0,
        )
        return r
