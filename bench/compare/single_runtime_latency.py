"""Latency of one runtime alone in this process: a session at the given
intra-op threads (inter 1), 5 warm-up runs, then the median of N runs, in
ms. Run it once per runtime, alternating processes, where two runtimes in
one process would disturb each other's timings (their pool threads spin
after a run and take the other's cores; on 2 vCPUs that ruins intra-2
cells of an in-process interleaved comparison).

    python3 bench/compare/single_runtime_latency.py {loom|ort} MODEL.onnx INPUT.npy INTRA [RUNS]

INPUT.npy feeds the model's first input."""
import sys

import numpy as np
from session_timing import median_run_seconds


def main():
    if len(sys.argv) not in (5, 6) or sys.argv[1] not in ("loom", "ort"):
        sys.exit(__doc__)
    runtime, model, data, intra = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    runs = int(sys.argv[5]) if len(sys.argv) == 6 else 60
    x = np.load(data)
    if runtime == "loom":
        import loom
        options = loom.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = intra, 1
        session = loom.InferenceSession(model, options)
    else:
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = intra, 1
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {session.get_inputs()[0].name: x}
    print(f"{1e3 * median_run_seconds(session, feeds, runs, warmup=5):.2f}")


if __name__ == "__main__":
    main()
