"""A process that exits while daemon threads are inside Loom (issue 21).

CPython 3.11 ends a daemon thread that takes the GIL back during
finalization with pthread_exit; inside a C++ call that released the GIL the
forced unwind used to abort the process ("terminate called without an active
exception", exit 134). Loom's exit hook now keeps such threads off the GIL
(python/src/gil.h). Here each scenario runs 50 times, each time in a fresh
process forked from a driver that imported loom without starting its
runtime: the child starts daemon threads inside `InferenceSession.run`,
eager ops and a `loom.data` pipeline whose map is a Python function, waits
until every one has finished a call, and ends by the end of the script,
`sys.exit`, an uncaught exception or a signal handler. It must end with the
script's own status and no abort message, every time.
"""

import json
import signal

import pytest

from conftest import run_python
from onnx_models import cnn

REPETITIONS = 50

DRIVER = r"""
import json, os, sys
import loom
assert not loom.runtime_started()  # forking is safe: no thread yet
MODEL = {model!r}
SCENARIOS = {scenarios!r}
REPETITIONS = {repetitions}
results = []
child = None
for scenario, exit_mode in SCENARIOS:
    for _ in range(REPETITIONS):
        err_path = f"{{os.environ['TMP_DIR']}}/err-{{os.getpid()}}"
        pid = os.fork()
        if pid == 0:
            fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 2)
            child = (scenario, exit_mode)
            break
        _, status = os.waitpid(pid, 0)
        with open(err_path) as f:
            err = f.read()
        results.append([scenario, exit_mode, os.waitstatus_to_exitcode(status), err])
    if child:
        break

if not child:
    print(json.dumps(results))
    sys.exit(0)

# ---- the child: daemon threads inside Loom, then the chosen exit ----
import signal, threading, time
import numpy as np
from loom.data import Dataset

scenario, exit_mode = child
inside = []

def started():
    event = threading.Event()
    inside.append(event)
    return event

def run_forever(sess, event):
    x = np.ones((1, 3, 16, 16), np.float32)
    while True:
        sess.run(None, {{"x": x}})
        event.set()

def eager_forever(event):
    a = np.full((96, 96), 0.5, np.float32)
    while True:
        loom.ops.relu(loom.ops.matmul(a, a))
        event.set()

def square(x):
    return np.full((64,), float(x) ** 2, np.float32)

def iterate_forever(event):
    for _ in Dataset.range(10**9).map(square, num_parallel_calls=2).prefetch(2):
        event.set()

if scenario in ("run", "mixed"):
    sess = loom.InferenceSession(MODEL)
    for _ in range(2):
        threading.Thread(target=run_forever, args=(sess, started()), daemon=True).start()
if scenario in ("eager", "mixed"):
    threading.Thread(target=eager_forever, args=(started(),), daemon=True).start()
if scenario in ("data", "mixed"):
    threading.Thread(target=iterate_forever, args=(started(),), daemon=True).start()
for event in inside:
    event.wait(30)

if exit_mode == "sys.exit":
    sys.exit(3)
if exit_mode == "raise":
    raise RuntimeError("the script's own error")
if exit_mode == "signal":
    def on_term(signum, frame):
        sys.exit(5)
    signal.signal(signal.SIGTERM, on_term)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)
# "end": the end of the script
"""

EXPECTED_STATUS = {"end": 0, "sys.exit": 3, "raise": 1, "signal": 5}


def run_scenarios(tmp_path, scenarios):
    model = tmp_path / "cnn.onnx"
    model.write_bytes(cnn().SerializeToString())
    code = DRIVER.format(model=str(model), scenarios=scenarios, repetitions=REPETITIONS)
    result = run_python(code, env={"TMP_DIR": str(tmp_path), "OPENBLAS_NUM_THREADS": "1"},
                        timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def check(results, scenarios):
    assert len(results) == len(scenarios) * REPETITIONS
    for scenario, exit_mode, status, err in results:
        assert status == EXPECTED_STATUS[exit_mode], (scenario, exit_mode, status, err)
        for word in ("terminate", "Fatal", "Aborted", "leaked", "Sanitizer"):
            assert word not in err, (scenario, exit_mode, err)
        if exit_mode == "raise":
            assert err.rstrip().endswith("RuntimeError: the script's own error"), err
        else:
            assert err == "", (scenario, exit_mode, err)


def test_daemon_threads_in_each_kind_of_call_at_the_end_of_the_script(tmp_path):
    scenarios = [("run", "end"), ("eager", "end"), ("data", "end")]
    check(run_scenarios(tmp_path, scenarios), scenarios)


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="needs SIGTERM")
def test_every_way_of_exiting_with_all_kinds_of_calls_in_flight(tmp_path):
    scenarios = [("mixed", mode) for mode in EXPECTED_STATUS]
    check(run_scenarios(tmp_path, scenarios), scenarios)
