// Arguments checked as Python passes them (bridge.h): nanobind would convert
// a float to an int or report "invoked with: int", never naming the setting.
#include <limits>
#include <set>
#include <string>

#include "bridge.h"

namespace loom::python {
namespace {

std::string Described(nb::handle value) {
  return nb::cast<std::string>(nb::repr(value.type())) + " " +
         nb::cast<std::string>(nb::repr(value));
}

}  // namespace

namespace {

[[noreturn]] void OutOfRange(nb::handle value, const char* setting) {
  throw nb::value_error(
      (std::string(setting) + " = " + nb::cast<std::string>(nb::repr(value)) + " is out of range")
          .c_str());
}

}  // namespace

int64_t Int64Argument(nb::handle value, const char* setting) {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    throw nb::type_error(
        (std::string(setting) + ": expected an int, got " + Described(value)).c_str());
  }
  nb::object index = nb::steal(PyNumber_Index(value.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0) OutOfRange(value, setting);
  return number;
}

int IntArgument(nb::handle value, const char* setting) {
  const int64_t number = Int64Argument(value, setting);
  if (number < std::numeric_limits<int>::min() || number > std::numeric_limits<int>::max()) {
    OutOfRange(value, setting);
  }
  return static_cast<int>(number);
}

bool BoolArgument(nb::handle value, const char* setting) {
  bool result = false;
  if (PyBool_Check(value.ptr())) return value.ptr() == Py_True;
  // numpy.bool_ is not a bool subclass; nanobind's caster takes it.
  if (nb::type_name(value.type()).c_str() == std::string("numpy.bool") ||
      nb::type_name(value.type()).c_str() == std::string("numpy.bool_")) {
    if (nb::try_cast(value, result)) return result;
  }
  throw nb::type_error(
      (std::string(setting) + ": expected a bool, got " + Described(value)).c_str());
}

std::string StrArgument(nb::handle value, const char* setting) {
  if (!nb::isinstance<nb::str>(value)) {
    throw nb::type_error(
        (std::string(setting) + ": expected a str, got " + Described(value)).c_str());
  }
  return nb::cast<std::string>(value);
}

void WarnOnce(const std::string& key, const std::string& message) {
  static std::set<std::string> seen;  // read and written under the GIL
  if (seen.insert(key).second) RaiseAsPythonWarnings({message});
}

}  // namespace loom::python
