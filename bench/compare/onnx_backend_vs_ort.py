"""Runs every case of the ONNX backend test data through loom.InferenceSession
and onnxruntime.InferenceSession with the same loader and the same
comparison, and prints each runtime's pass count (the numbers the
conformance issue is judged by).

usage: python3 bench/compare/onnx_backend_vs_ort.py [DATA_DIR] [--json OUT] [--filter SUBSTRING]
DATA_DIR defaults to the backend data inside the installed onnx package.
A case passes when every data set's outputs match: dtype and shape equal,
|a - e| <= atol + rtol * |e| (rtol 1e-3, atol 1e-7, the suite's defaults),
NaN equal to NaN; any load or run error is a non-pass."""
import argparse
import glob
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

import loom

RTOL, ATOL = 1e-3, 1e-7


def load_value(path, type_proto):
    data = open(path, "rb").read()
    kind = type_proto.WhichOneof("value") if type_proto is not None else "tensor_type"
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    return numpy_helper.to_array(proto)


def close(actual, expected):
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            close(a, e) for a, e in zip(actual, expected))
    if expected is None:
        return actual is None
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    if expected.dtype.kind in "fc":
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(e)
        with np.errstate(invalid="ignore"):  # inf - inf: compared by a == e below
            ok = np.abs(a - e) <= ATOL + RTOL * np.abs(e)
        return bool(np.all(ok | both_nan | (a == e)))
    return bool(np.array_equal(actual, expected))


def run_case(case_dir, make_session):
    model_path = os.path.join(case_dir, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    outputs = list(model.graph.output)
    session = make_session(model_path)
    for data_dir in sorted(glob.glob(os.path.join(case_dir, "test_data_set_*"))):
        feeds = {}
        for k, info in enumerate(inputs):
            path = os.path.join(data_dir, f"input_{k}.pb")
            if os.path.exists(path):
                feeds[info.name] = load_value(path, info.type)
        expected = [load_value(os.path.join(data_dir, f"output_{k}.pb"), info.type)
                    for k, info in enumerate(outputs)]
        got = session.run(None, feeds)
        if len(got) != len(expected) or not all(close(a, e) for a, e in zip(got, expected)):
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=os.path.join(
        os.path.dirname(onnx.__file__), "backend", "test", "data"))
    ap.add_argument("--json")
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    runtimes = {
        "loom": lambda p: loom.InferenceSession(p, intra_op_num_threads=1, inter_op_num_threads=1),
        "onnxruntime": lambda p: ort.InferenceSession(p, providers=["CPUExecutionProvider"]),
    }
    ort.set_default_logger_severity(4)
    cases = sorted(os.path.relpath(p, a.data) for suite in ("node", "pytorch-converted", "pytorch-operator", "simple")
                   for p in glob.glob(os.path.join(a.data, suite, "*"))
                   if os.path.exists(os.path.join(p, "model.onnx")) and a.filter in p)
    results = {name: {} for name in runtimes}
    for case in cases:
        for name, make in runtimes.items():
            try:
                results[name][case] = run_case(os.path.join(a.data, case), make)
            except Exception:  # noqa: BLE001 - any failure is a non-pass
                results[name][case] = False
    for name in runtimes:
        print(f"{name:12s} passes {sum(results[name].values())} of {len(cases)} cases")
    only = lambda x, y: sorted(c for c in cases if results[x][c] and not results[y][c])
    print(f"passed by ONNX Runtime only: {len(only('onnxruntime', 'loom'))}; "
          f"by Loom only: {len(only('loom', 'onnxruntime'))} {only('loom', 'onnxruntime')[:10]}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"onnx": onnx.__version__, "onnxruntime": ort.__version__,
                       "cases": len(cases), "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
