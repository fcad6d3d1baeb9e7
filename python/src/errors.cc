// loom::Error and its kinds as Python exceptions. Each also derives from the
// built-in exception a Python user would catch for it (TensorFlow's habit):
//   InvalidArgumentError  -> ValueError     (a bad count, shape, dtype, file)
//   RuntimeError          -> RuntimeError   (a change after the runtime started)
//   CancelledError, DeadlineExceededError (-> TimeoutError)
// The message is the C++ one, unchanged.
#include "loom/errors.h"

#include <exception>
#include <typeinfo>

#include "bridge.h"

namespace loom::python {
namespace {

PyObject* NewError(const char* name, const char* doc, std::initializer_list<PyObject*> bases) {
  nb::object base_tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(bases.size())));
  Py_ssize_t i = 0;
  for (PyObject* base : bases) {
    Py_INCREF(base);
    PyTuple_SET_ITEM(base_tuple.ptr(), i++, base);
  }
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, base_tuple.ptr(), nullptr);
  if (type == nullptr) throw nb::python_error();
  return type;  // one reference, kept for the life of the process
}

struct ErrorTypes {
  PyObject* error;
  PyObject* invalid_argument;
  PyObject* runtime;
  PyObject* cancelled;
  PyObject* deadline_exceeded;
};
ErrorTypes types;

}  // namespace

void BindErrors(nb::module_& m) {
  nb::module_ errors = m.def_submodule("errors", "Exceptions raised by Loom.");
  types.error =
      NewError("loom.errors.Error", "Base class of every error Loom raises.", {PyExc_Exception});
  types.invalid_argument = NewError(
      "loom.errors.InvalidArgumentError",
      "A value that can never be valid: a negative thread count, a wrong shape or dtype, a "
      "malformed model, an unparsable environment variable.",
      {types.error, PyExc_ValueError});
  types.runtime = NewError("loom.errors.RuntimeError",
                           "A valid call in the wrong state, such as changing a thread count "
                           "after the runtime started.",
                           {types.error, PyExc_RuntimeError});
  types.cancelled = NewError("loom.errors.CancelledError", "A run was cancelled.", {types.error});
  types.deadline_exceeded =
      NewError("loom.errors.DeadlineExceededError", "A run passed its deadline.",
               {types.error, PyExc_TimeoutError});
  errors.attr("Error") = nb::handle(types.error);
  errors.attr("InvalidArgumentError") = nb::handle(types.invalid_argument);
  errors.attr("RuntimeError") = nb::handle(types.runtime);
  errors.attr("CancelledError") = nb::handle(types.cancelled);
  errors.attr("DeadlineExceededError") = nb::handle(types.deadline_exceeded);

  // Exceptions not caught here (std::bad_alloc, nb::python_error, ...) keep
  // nanobind's own translation.
  nb::register_exception_translator([](const std::exception_ptr& thrown, void*) {
    // Empty: not a C++ exception but the forced unwind of a thread that
    // Python ends with pthread_exit during finalization (gil.h), caught by
    // nanobind; rethrowing it would crash. The thread, without the GIL,
    // parks instead while the process exits.
    if (!thrown) ParkForever();
    try {
      std::rethrow_exception(thrown);
    } catch (const InvalidArgumentError& e) {
      PyErr_SetString(types.invalid_argument, e.what());
    } catch (const RuntimeError& e) {
      PyErr_SetString(types.runtime, e.what());
    } catch (const CancelledError& e) {
      PyErr_SetString(types.cancelled, e.what());
    } catch (const DeadlineExceededError& e) {
      PyErr_SetString(types.deadline_exceeded, e.what());
    } catch (const Error& e) {
      PyErr_SetString(types.error, e.what());
    } catch (const std::bad_cast&) {
      // A conversion no binding checked for: never Python's "RuntimeError:
      // std::bad_cast". Bindings name the argument where they can.
      PyErr_SetString(PyExc_TypeError,
                      "a value passed to Loom has a type this call does not take (help() on "
                      "the function shows the types)");
    }
  });
}

}  // namespace loom::python
