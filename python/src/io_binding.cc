// IOBinding and OrtValue (io_binding.h).
#include "io_binding.h"

#include <cstdint>
#include <string>

namespace loom::python {
namespace {

// ONNX's TensorProto element types by NumPy dtype name, with ONNX
// Runtime's type strings.
struct ElementType {
  const char* numpy;
  int onnx;
  const char* ort;
};
constexpr ElementType kElementTypes[] = {
    {"float32", 1, "tensor(float)"},    {"uint8", 2, "tensor(uint8)"},
    {"int8", 3, "tensor(int8)"},        {"uint16", 4, "tensor(uint16)"},
    {"int16", 5, "tensor(int16)"},      {"int32", 6, "tensor(int32)"},
    {"int64", 7, "tensor(int64)"},      {"bool", 9, "tensor(bool)"},
    {"float16", 10, "tensor(float16)"}, {"float64", 11, "tensor(double)"},
    {"uint32", 12, "tensor(uint32)"},   {"uint64", 13, "tensor(uint64)"},
};

const ElementType& ElementTypeOf(const OrtValue& value) {
  const std::string name = nb::cast<std::string>(value.array.attr("dtype").attr("name"));
  for (const ElementType& type : kElementTypes) {
    if (name == type.numpy) return type;
  }
  throw nb::type_error(("OrtValue: Loom has no element type for NumPy dtype " + name).c_str());
}

void CheckCpu(nb::handle device_type, const char* what) {
  const std::string device = nb::cast<std::string>(nb::repr(device_type));
  std::string lower;
  for (char c : device) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != "'cpu'") {
    throw nb::value_error((std::string(what) + ": device_type " + device +
                           " is not available; Loom runs on the CPU ('cpu')")
                              .c_str());
  }
}

// `shape` as a tuple (any sequence of ints).
nb::object ShapeTuple(nb::handle shape, const char* what) {
  PyObject* tuple = PySequence_Tuple(shape.ptr());
  if (tuple == nullptr) {
    PyErr_Clear();
    throw nb::type_error((std::string(what) + ": shape must be a sequence of ints, got " +
                          nb::cast<std::string>(nb::repr(shape)))
                             .c_str());
  }
  return nb::steal(tuple);
}

nb::object AsArray(nb::handle value, const char* what) {
  OrtValue* ort_value = nullptr;
  if (nb::try_cast(value, ort_value) && ort_value != nullptr) return ort_value->array;
  if (nb::isinstance(value, NumPy().attr("ndarray"))) return nb::borrow(value);
  throw nb::type_error((std::string(what) + ": expected a numpy.ndarray or loom.OrtValue, got " +
                        nb::cast<std::string>(nb::repr(value.type())))
                           .c_str());
}

// An array over `buffer_ptr`'s memory (the caller keeps it alive, as with
// ONNX Runtime).
nb::object ArrayAt(nb::handle element_type, nb::handle shape, nb::handle buffer_ptr,
                   const char* what) {
  nb::handle numpy = NumPy();
  nb::object dtype = numpy.attr("dtype")(element_type);
  nb::object dims = ShapeTuple(shape, what);
  // Python's exact product: a size NumPy's int64 product would wrap is
  // refused, as are negative dims; the memory itself is the caller's.
  for (nb::handle dim : dims) {
    if (nb::cast<int64_t>(dim) < 0) {
      throw nb::value_error((std::string(what) + ": negative dimension in shape " +
                             nb::cast<std::string>(nb::repr(dims)))
                                .c_str());
    }
  }
  nb::object bytes = nb::module_::import_("math").attr("prod")(dims) * dtype.attr("itemsize");
  const uintptr_t address = nb::cast<uintptr_t>(buffer_ptr);
  if (address == 0 || bytes > nb::int_(int64_t{1} << 48)) {
    throw nb::value_error((std::string(what) + ": buffer_ptr must be a valid address and the "
                                               "shape at most 2^48 bytes")
                              .c_str());
  }
  nb::module_ ctypes = nb::module_::import_("ctypes");
  nb::object raw = (ctypes.attr("c_char") * bytes).attr("from_address")(address);
  return numpy.attr("frombuffer")(raw, nb::arg("dtype") = dtype).attr("reshape")(dims);
}

// Binds `name` in `list`, replacing an earlier binding of the same name.
void Rebind(std::vector<std::pair<std::string, nb::object>>& list, const std::string& name,
            nb::object value) {
  for (auto& [bound, old] : list) {
    if (bound == name) {
      old = std::move(value);
      return;
    }
  }
  list.emplace_back(name, std::move(value));
}

}  // namespace

void IoBinding::BindInput(const std::string& name, nb::object array) {
  Rebind(inputs_, name, std::move(array));
}

void IoBinding::BindOutput(const std::string& name, nb::object buffer) {
  Rebind(outputs_, name, std::move(buffer));
}

void IoBinding::Run(nb::handle session, nb::handle run_options) {
  if (!session.is(session_)) {
    throw nb::value_error("run_with_iobinding: this IOBinding belongs to another InferenceSession");
  }
  nb::dict feeds;
  for (const auto& [name, array] : inputs_) feeds[name.c_str()] = array;
  nb::object names = nb::none();
  if (!outputs_.empty()) {
    nb::list list;
    for (const auto& [name, buffer] : outputs_) list.append(name);
    names = list;
  }
  nb::list results = nb::borrow<nb::list>(session.attr("run")(names, feeds, run_options));
  if (outputs_.empty()) {
    for (nb::handle output : session.attr("get_outputs")()) {
      outputs_.emplace_back(nb::cast<std::string>(output.attr("name")), nb::none());
    }
  }
  std::vector<nb::object> filled;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const auto& [name, buffer] = outputs_[i];
    nb::object result = results[i];
    if (buffer.is_none()) {
      filled.push_back(result);
      continue;
    }
    const bool same_shape = buffer.attr("shape").equal(result.attr("shape"));
    const bool same_type = buffer.attr("dtype").equal(result.attr("dtype"));
    if (!same_shape || !same_type) {
      throw nb::value_error(("run_with_iobinding: output '" + name + "' is " +
                             nb::cast<std::string>(result.attr("dtype").attr("name")) + " " +
                             nb::cast<std::string>(nb::repr(result.attr("shape"))) +
                             "; the buffer bound for it is " +
                             nb::cast<std::string>(buffer.attr("dtype").attr("name")) + " " +
                             nb::cast<std::string>(nb::repr(buffer.attr("shape"))))
                                .c_str());
    }
    NumPy().attr("copyto")(buffer, result);
    filled.push_back(buffer);
  }
  results_ = std::move(filled);
}

std::vector<OrtValue> IoBinding::Outputs() const {
  std::vector<OrtValue> values;
  for (const nb::object& array : results_) values.push_back(OrtValue{array});
  return values;
}

nb::list IoBinding::CopyOutputsToCpu() const {
  nb::list arrays;
  for (const nb::object& array : results_) arrays.append(array.attr("copy")());
  return arrays;
}

nb::list RunWithOrtValues(nb::handle session, nb::handle output_names, nb::handle inputs,
                          nb::handle run_options) {
  if (!nb::isinstance<nb::dict>(inputs)) {
    throw nb::type_error("run_with_ort_values: inputs must be a dict {input name: OrtValue}");
  }
  nb::dict feeds;
  for (auto [name, value] : nb::borrow<nb::dict>(inputs)) {
    feeds[name] = AsArray(value, "run_with_ort_values");
  }
  nb::list values;
  for (nb::handle array : session.attr("run")(output_names, feeds, run_options)) {
    values.append(nb::cast(OrtValue{nb::borrow(array)}));
  }
  return values;
}

void BindIoBinding(nb::module_& m) {
  nb::class_<OrtValue>(m, "OrtValue",
                       "A tensor as ONNX Runtime's OrtValue: on the CPU, a NumPy array whose "
                       "memory it shares.")
      .def_static(
          "ortvalue_from_numpy",
          [](nb::handle array, nb::handle device_type, int) {
            CheckCpu(device_type, "OrtValue.ortvalue_from_numpy");
            return OrtValue{AsArray(array, "OrtValue.ortvalue_from_numpy")};
          },
          nb::arg("numpy_obj"), nb::arg("device_type") = "cpu", nb::arg("device_id") = 0)
      .def_static(
          "ortvalue_from_shape_and_type",
          [](nb::handle shape, nb::handle element_type, nb::handle device_type, int) {
            CheckCpu(device_type, "OrtValue.ortvalue_from_shape_and_type");
            return OrtValue{NumPy().attr("zeros")(
                ShapeTuple(shape, "OrtValue.ortvalue_from_shape_and_type"), element_type)};
          },
          nb::arg("shape"), nb::arg("element_type"), nb::arg("device_type") = "cpu",
          nb::arg("device_id") = 0)
      .def(
          "numpy", [](const OrtValue& value) { return value.array; },
          "The array (shared memory, not a copy).")
      .def("shape",
           [](const OrtValue& value) {
             return nb::steal<nb::list>(PySequence_List(value.array.attr("shape").ptr()));
           })
      .def("data_type", [](const OrtValue& value) { return ElementTypeOf(value).ort; })
      .def("element_type", [](const OrtValue& value) { return ElementTypeOf(value).onnx; })
      .def("device_name", [](const OrtValue&) { return "cpu"; })
      .def("data_ptr",
           [](const OrtValue& value) -> nb::object {
             return value.array.attr("ctypes").attr("data");
           })
      .def("tensor_size_in_bytes",
           [](const OrtValue& value) -> nb::object { return value.array.attr("nbytes"); })
      .def("has_value", [](const OrtValue&) { return true; })
      .def("is_tensor", [](const OrtValue&) { return true; })
      .def("is_sparse_tensor", [](const OrtValue&) { return false; })
      .def("is_tensor_sequence", [](const OrtValue&) { return false; })
      .def(
          "update_inplace",
          [](OrtValue& value, nb::handle array) { NumPy().attr("copyto")(value.array, array); },
          nb::arg("np_arr"))
      .def("__repr__", [](const OrtValue& value) {
        return "OrtValue(" + nb::cast<std::string>(nb::repr(value.array)) + ")";
      });

  nb::class_<IoBinding>(m, "IOBinding",
                        "Inputs and outputs bound ahead of run_with_iobinding, as ONNX "
                        "Runtime's; see InferenceSession.io_binding().")
      .def(
          "bind_cpu_input",
          [](IoBinding& binding, const std::string& name, nb::handle array) {
            binding.BindInput(name, AsArray(array, "IOBinding.bind_cpu_input"));
          },
          nb::arg("name"), nb::arg("arr_on_cpu"))
      .def(
          "bind_input",
          [](IoBinding& binding, const std::string& name, nb::handle device_type, int,
             nb::handle element_type, nb::handle shape, nb::handle buffer_ptr) {
            CheckCpu(device_type, "IOBinding.bind_input");
            binding.BindInput(name,
                              ArrayAt(element_type, shape, buffer_ptr, "IOBinding.bind_input"));
          },
          nb::arg("name"), nb::arg("device_type"), nb::arg("device_id"), nb::arg("element_type"),
          nb::arg("shape"), nb::arg("buffer_ptr"))
      .def(
          "bind_ortvalue_input",
          [](IoBinding& binding, const std::string& name, const OrtValue& value) {
            binding.BindInput(name, value.array);
          },
          nb::arg("name"), nb::arg("ortvalue"))
      .def(
          "bind_output",
          [](IoBinding& binding, const std::string& name, nb::handle device_type, int,
             nb::handle element_type, nb::handle shape, nb::handle buffer_ptr) {
            CheckCpu(device_type, "IOBinding.bind_output");
            if (buffer_ptr.is_none()) {
              binding.BindOutput(name, nb::none());
              return;
            }
            if (element_type.is_none() || shape.is_none()) {
              throw nb::value_error(
                  "IOBinding.bind_output: a buffer_ptr needs its element_type and shape");
            }
            binding.BindOutput(name,
                               ArrayAt(element_type, shape, buffer_ptr, "IOBinding.bind_output"));
          },
          nb::arg("name"), nb::arg("device_type") = "cpu", nb::arg("device_id") = 0,
          nb::arg("element_type").none() = nb::none(), nb::arg("shape").none() = nb::none(),
          nb::arg("buffer_ptr").none() = nb::none())
      .def(
          "bind_ortvalue_output",
          [](IoBinding& binding, const std::string& name, const OrtValue& value) {
            binding.BindOutput(name, value.array);
          },
          nb::arg("name"), nb::arg("ortvalue"))
      .def("get_outputs", &IoBinding::Outputs, "The last run's outputs as OrtValues.")
      .def("copy_outputs_to_cpu", &IoBinding::CopyOutputsToCpu,
           "The last run's outputs as new NumPy arrays.")
      .def("clear_binding_inputs", &IoBinding::ClearInputs)
      .def("clear_binding_outputs", &IoBinding::ClearOutputs)
      .def(
          "synchronize_inputs", [](IoBinding&) {}, "Nothing to wait for on the CPU.")
      .def(
          "synchronize_outputs", [](IoBinding&) {}, "Nothing to wait for on the CPU.");
}

}  // namespace loom::python
