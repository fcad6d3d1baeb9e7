// GIL hand-offs that survive interpreter exit.
//
// Once finalization has begun, CPython 3.11 ends any other thread that asks
// for the GIL with pthread_exit. Its forced unwind aborts the process
// ("terminate called without an active exception") when it crosses a
// noexcept frame: the destructor that takes the GIL back after a Loom call
// is one, a Loom worker's loop another. So no Loom frame may ask for the
// GIL once finalization can begin, and every one of Loom's hand-offs goes
// through this file instead of nanobind's gil_scoped_* guards.
//
// A Python thread must not be ended inside a Loom binding either: code that
// runs there with the GIL held (NumPy conversions, an import, a warning)
// may let the GIL go and ask for it back, and nanobind turns the forced
// unwind into a crash. So a binding that lets go of the GIL holds a
// LoomCall for its whole call (nb::call_guard<LoomCall>()), which counts the
// thread while it holds the GIL inside Loom.
//
// The exit hook (loom/__init__.py registers it with atexit; atexit
// functions run before finalization) calls BeginPythonExit(), closes open
// pipelines, then WaitForThreadsInPython(): with the GIL let go, until no
// counted thread is left. From BeginPythonExit() on:
//  - a thread entering a Loom binding (LoomCall) or coming back from a Loom
//    call without the GIL (ReleaseGil) parks without the GIL: it never
//    returns to Python, and the process exits around it with its own status;
//    the thread running the hook, and a thread inside a Python function that
//    Loom called (AcquireGil), go on as usual;
//  - a Loom thread about to run a Python function (AcquireGil) gets a
//    RuntimeError instead, which fails that pipeline element;
//  - a Loom thread dropping the last reference to a Python object
//    (CleanupGil) leaves it to the exiting process.
// Threads count themselves in before they read the flag; the hook raises
// the flag before it reads the count (sequentially consistent, both sides),
// so a thread either sees the flag or is waited for. Counted: a thread in a
// LoomCall while it holds the GIL; a thread between deciding to take the
// GIL back and having it (ReleaseGil outside a LoomCall); a Loom thread in a
// Python function (AcquireGil) or dropping a reference (CleanupGil). The
// wait ends when those have taken the GIL (which the hook let go of) and
// left: a Python function that never returns delays the exit, as a running
// task does concurrent.futures' exit (a message on stderr says so after
// 5 s).
#pragma once

#include <Python.h>

namespace loom::python {

// For a binding's whole call: nb::call_guard<LoomCall>() on its def.
class LoomCall {
 public:
  LoomCall();
  ~LoomCall();
  LoomCall(const LoomCall&) = delete;
  LoomCall& operator=(const LoomCall&) = delete;

 private:
  bool counted_ = false;
};

// Lets go of the GIL for the scope (a Loom call from Python).
class ReleaseGil {
 public:
  ReleaseGil();
  ~ReleaseGil();
  ReleaseGil(const ReleaseGil&) = delete;
  ReleaseGil& operator=(const ReleaseGil&) = delete;

 private:
  PyThreadState* state_;
};

// Holds the GIL for the scope on a thread about to run Python code (a
// pipeline's map function, a generator). Throws RuntimeError once the exit
// hook has begun.
class AcquireGil {
 public:
  AcquireGil();
  ~AcquireGil();
  AcquireGil(const AcquireGil&) = delete;
  AcquireGil& operator=(const AcquireGil&) = delete;

 private:
  PyGILState_STATE state_;
};

// Holds the GIL for the scope unless the exit hook has begun (held() then
// false): for dropping Python references from destructors, which cannot
// throw.
class CleanupGil {
 public:
  CleanupGil();
  ~CleanupGil();
  CleanupGil(const CleanupGil&) = delete;
  CleanupGil& operator=(const CleanupGil&) = delete;

  bool held() const { return held_; }

 private:
  bool held_ = false;
  PyGILState_STATE state_{};
};

// Never returns: the calling thread, which must not hold the GIL, sleeps
// while the process exits around it.
[[noreturn]] void ParkForever();

// The exit hook's two halves; called with the GIL held, on the thread
// running atexit functions.
void BeginPythonExit();
void WaitForThreadsInPython();

}  // namespace loom::python
