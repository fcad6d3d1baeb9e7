// What every binding file shares: NumPy arrays <-> loom::Tensor, Loom's
// warnings surfaced as Python warnings, and the GIL released around work.
#pragma once

#include <nanobind/nanobind.h>
// Every file sees the same casters: a caster missing in one translation unit
// makes its nb::cast<std::string> a different (throwing) instantiation, and
// the linker may keep that one for all.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gil.h"
#include "loom/tensor.h"
#include "loom/warnings.h"

namespace loom::python {

namespace nb = nanobind;

// A tensor over `array`'s memory when it is a C-contiguous, element-aligned
// NumPy array of a Loom dtype (no copy; the array is kept alive); otherwise
// over a C-ordered copy. Anything else NumPy can turn into an array (lists,
// scalars) is converted first. `what` names the argument in errors
// ("matmul: argument 'a'"). bfloat16 (an ml_dtypes array) is refused with a
// clear InvalidArgumentError: Loom does not depend on ml_dtypes. Text (a
// NumPy str or bytes array, or an object array of str and bytes, as ONNX
// Runtime takes it) becomes a string tensor, copied: str as UTF-8, bytes as
// they are; any other object is an InvalidArgumentError naming it.
Tensor TensorFromPython(nb::handle array, const std::string& what);

// The numpy module, imported once (an import per call costs ~1 µs).
nb::handle NumPy();

// As TensorFromPython, except that a Python int, float or bool takes
// `like`'s dtype, as NumPy treats Python scalars (NEP 50): add(x_f32, 2.0)
// stays float32. A float next to an integer tensor stays float64.
Tensor TensorFromPythonLike(nb::handle value, const Tensor& like, const std::string& what);

bool IsPythonScalar(nb::handle value);

// A reference to a Python object that C++ may copy and drop on any thread
// without the GIL: copies share one reference, and the last release takes
// the GIL. (Borrowed NumPy memory and loom.data's Python callables.)
using SharedPyObject = std::shared_ptr<nb::object>;
SharedPyObject SharePyObject(nb::handle object);

// A NumPy array that owns `tensor`'s storage (no copy). A bfloat16 tensor
// (NumPy has no such dtype) is an InvalidArgumentError naming `what`
// ("output 'y'"). A string tensor becomes an object array of str, as ONNX
// Runtime returns it (bytes that are not UTF-8 decode with
// surrogateescape, so they round-trip through .encode(errors=...)).
nb::object ArrayFromTensor(Tensor tensor, const std::string& what = "the result");

// Results never alias arguments: an output sharing storage with an input
// (Reshape, Identity) is copied, so a returned array is always new memory,
// as with ONNX Runtime, and never writes through to a read-only input.
Tensor Unaliased(Tensor output, const std::vector<const Tensor*>& inputs);

// Raises each warning with warnings.warn (UserWarning), pointing at the
// caller's line; throws nb::python_error if a warning filter made it an error.
void RaiseAsPythonWarnings(const std::vector<std::string>& warnings);

// Runs `work` without the GIL, collecting the Loom warnings it raises on
// this thread, then raises them as Python warnings.
template <typename Work>
auto RunReleased(Work&& work) {
  std::vector<std::string> warnings;
  auto result = [&] {
    WarningCapture capture;
    ReleaseGil release;
    auto value = work();
    warnings = capture.take();
    return value;
  }();
  RaiseAsPythonWarnings(warnings);
  return result;
}

// The same with the GIL held (quick calls such as configuration setters).
template <typename Work>
void RunWithWarnings(Work&& work) {
  WarningCapture capture;
  work();
  RaiseAsPythonWarnings(capture.take());
}

// A setting's argument checked as Python passes it, `setting` naming it in
// errors (python/src/arguments.cc). IntArgument: an int or anything with
// __index__ (numpy.int64), never a bool, str or float (TypeError); outside
// the C++ int range is a ValueError. BoolArgument: a bool or numpy.bool_.
// StrArgument: a str.
int IntArgument(nb::handle value, const char* setting);
int64_t Int64Argument(nb::handle value, const char* setting);
bool BoolArgument(nb::handle value, const char* setting);
std::string StrArgument(nb::handle value, const char* setting);

// warnings.warn(message) the first time `key` is seen in this process.
void WarnOnce(const std::string& key, const std::string& message);

void BindErrors(nb::module_& m);
void BindConfig(nb::module_& m);
void BindSession(nb::module_& m);
void BindOps(nb::module_& m);
void BindData(nb::module_& m);

// Closes every open loom.data iterator (the exit hook's middle step; gil.h).
void CloseAllIterators();

}  // namespace loom::python
