// The `loom._loom` extension module; the `loom` package re-exports it.
#include "bridge.h"

NB_MODULE(_loom, m) {
  m.doc() = "Loom: a CPU tensor runtime whose thread settings do exactly what they say.";
  m.attr("__version__") = LOOM_VERSION;
  loom::python::BindErrors(m);
  loom::python::BindConfig(m);
  loom::python::BindSession(m);
  loom::python::BindOps(m);
}
