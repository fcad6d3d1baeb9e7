"""ONNX Runtime worker: times NAME.onnx through an InferenceSession, prints one JSON line.

Threads, when asked: SessionOptions.intra_op_num_threads / inter_op_num_threads,
and execution_mode ORT_PARALLEL only when inter > 1 (ORT's inter-op pool is
used by the parallel executor alone). Omitted: ORT's defaults (intra = the
physical cores, sequential execution). Full graph optimizations either way.

    .venv-compare/bin/python bench/compare/workers/ort_worker.py --spec-dir DIR --model resnet18 --batch 1
"""
import measure  # first: its import time is the process start for setup_s

import onnxruntime as ort


def session_options(args):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    calls = []
    if args.intra is not None:
        options.intra_op_num_threads = args.intra
        calls.append(f"intra_op_num_threads={args.intra}")
    if args.inter is not None:
        options.inter_op_num_threads = args.inter
        parallel = args.inter > 1
        options.execution_mode = (ort.ExecutionMode.ORT_PARALLEL if parallel
                                  else ort.ExecutionMode.ORT_SEQUENTIAL)
        calls.append(f"inter_op_num_threads={args.inter}")
        calls.append("execution_mode=" + ("ORT_PARALLEL" if parallel else "ORT_SEQUENTIAL"))
    settings = ("SessionOptions." + ", ".join(calls) if calls
                else "ORT defaults (no thread options set; sequential execution)")
    return options, settings


def main():
    args = measure.parse_args(__doc__.split("\n")[0])
    options, settings = session_options(args)
    session = ort.InferenceSession(measure.model_path(args, ".onnx"), options,
                                   providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: measure.batch_input(args)}
    output_names = [session.get_outputs()[0].name]

    timer = measure.Timer(args)
    outputs = timer.measure(lambda: session.run(output_names, feed))
    measure.report(args, timer, "onnxruntime " + ort.__version__, settings, lambda: outputs[0])


if __name__ == "__main__":
    main()
