"""The timing loop the comparison scripts share: `warmup` untimed runs, then
the median wall time of `runs` calls of session.run, in seconds. Works for
any session with ONNX Runtime's run(output_names, feeds) (Loom's and ORT's)."""
import statistics
import time


def median_run_seconds(session, feeds, runs, warmup=3):
    for _ in range(warmup):
        session.run(None, feeds)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
