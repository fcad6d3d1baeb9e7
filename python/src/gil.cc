#include "gil.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "loom/errors.h"

namespace loom::python {
namespace {

// Raised once by the exit hook, never lowered.
std::atomic<bool> exiting{false};
// The threads gil.h counts; seq_cst with `exiting`: a Dekker pair.
std::atomic<int> in_python{0};
// The thread running the exit hook: it takes the GIL back as usual.
thread_local bool is_exit_thread = false;
// AcquireGil scopes open on this thread: a Loom call made from inside a
// Python function that Loom called returns to it, exit or not (the hook
// waits for that function).
thread_local int python_functions_running = 0;

// Counted LoomCalls open on this thread (gil.h).
thread_local int loom_calls = 0;

// Counts the calling thread in; false (counted out again) once exiting.
bool EnterPython() {
  in_python.fetch_add(1);
  if (!exiting.load()) return true;
  in_python.fetch_sub(1);
  return false;
}

void LeavePython() { in_python.fetch_sub(1); }

// The thread runs the exit hook, or a Python function that Loom called
// (which the hook waits for): it never parks.
bool Exempt() { return is_exit_thread || python_functions_running > 0; }

}  // namespace

void ParkForever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

LoomCall::LoomCall() {
  if (Exempt()) return;
  if (!EnterPython()) {
    PyEval_SaveThread();
    ParkForever();
  }
  counted_ = true;
  ++loom_calls;
}

LoomCall::~LoomCall() {
  if (!counted_) return;
  --loom_calls;
  LeavePython();
}

ReleaseGil::ReleaseGil() : state_(PyEval_SaveThread()) {
  // Without the GIL, the thread is no longer counted (its LoomCall's count
  // is handed back when the GIL is).
  if (!Exempt() && loom_calls > 0) LeavePython();
}

ReleaseGil::~ReleaseGil() {
  if (Exempt()) {
    PyEval_RestoreThread(state_);
    return;
  }
  if (!EnterPython()) ParkForever();
  PyEval_RestoreThread(state_);
  if (loom_calls == 0) LeavePython();  // else the LoomCall's count again
}

AcquireGil::AcquireGil() {
  if (!is_exit_thread && !EnterPython()) {
    throw RuntimeError("the Python interpreter is exiting: Loom no longer calls Python functions");
  }
  state_ = PyGILState_Ensure();
  ++python_functions_running;
}

AcquireGil::~AcquireGil() {
  --python_functions_running;
  PyGILState_Release(state_);
  if (!is_exit_thread) LeavePython();
}

CleanupGil::CleanupGil() {
  if (!EnterPython()) return;
  state_ = PyGILState_Ensure();
  held_ = true;
}

CleanupGil::~CleanupGil() {
  if (!held_) return;
  PyGILState_Release(state_);
  LeavePython();
}

void BeginPythonExit() {
  is_exit_thread = true;
  exiting.store(true);
}

void WaitForThreadsInPython() {
  PyThreadState* state = PyEval_SaveThread();
  const auto start = std::chrono::steady_clock::now();
  bool told = false;
  while (in_python.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!told && std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) {
      std::fprintf(stderr,
                   "loom: exit waits for Python functions that Loom threads are running "
                   "(a pipeline's map or generator) to return\n");
      told = true;
    }
  }
  PyEval_RestoreThread(state);
}

}  // namespace loom::python
