// The `loom._loom` extension module; the `loom` package re-exports it.
#include "bridge.h"
#include "io_binding.h"
#include "session_options.h"

NB_MODULE(_loom, m) {
  m.doc() = "Loom: a CPU tensor runtime whose thread settings do exactly what they say.";
  m.attr("__version__") = LOOM_VERSION;
  loom::python::BindErrors(m);
  loom::python::BindConfig(m);
  loom::python::BindSessionOptions(m);
  loom::python::BindIoBinding(m);
  loom::python::BindSession(m);
  loom::python::BindOps(m);
  loom::python::BindData(m);
  // Registered with atexit by loom/__init__.py: see gil.h.
  m.def("_exit_hook", [] {
    loom::python::BeginPythonExit();
    loom::python::CloseAllIterators();
    loom::python::WaitForThreadsInPython();
  });
  // A Dataset at module level whose map function is a module-level lambda
  // forms a cycle Python's GC cannot see (dataset -> C++ node -> function
  // -> module globals -> dataset), so it lives until exit, where nanobind
  // would report it as a leak on every such script. Objects dropped before
  // exit are freed normally (python/tests/test_data_lifetime.py).
  nanobind::set_leak_warnings(false);
}
