// NumPy <-> loom::Tensor without copies where the memory allows it.
#include <nanobind/ndarray.h>

// Outputs become arrays through NumPy's C API (this file only): nanobind's
// export goes through numpy.array(...) on a buffer-protocol object, ~1 µs
// more per output.
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bridge.h"
#include "loom/errors.h"

namespace loom::python {
namespace {

std::optional<DType> LoomDType(nb::dlpack::dtype dtype) {
  using Code = nb::dlpack::dtype_code;
  if (dtype.lanes != 1) return std::nullopt;
  switch (static_cast<Code>(dtype.code)) {
    case Code::Float:
      if (dtype.bits == 32) return DType::kFloat32;
      if (dtype.bits == 64) return DType::kFloat64;
      if (dtype.bits == 16) return DType::kFloat16;
      return std::nullopt;
    case Code::Int:
      if (dtype.bits == 8) return DType::kInt8;
      if (dtype.bits == 16) return DType::kInt16;
      if (dtype.bits == 32) return DType::kInt32;
      if (dtype.bits == 64) return DType::kInt64;
      return std::nullopt;
    case Code::UInt:
      if (dtype.bits == 8) return DType::kUInt8;
      if (dtype.bits == 16) return DType::kUInt16;
      if (dtype.bits == 32) return DType::kUInt32;
      if (dtype.bits == 64) return DType::kUInt64;
      return std::nullopt;
    case Code::Bool:
      if (dtype.bits == 8) return DType::kBool;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Why bfloat16 stops at the NumPy boundary, for both directions' errors.
constexpr const char* kNoBFloat16 =
    "NumPy has no bfloat16 dtype and Loom does not depend on ml_dtypes; use float32 at the "
    "model's edges (a Cast to or from bfloat16 inside the model)";

bool IsCContiguous(const nb::ndarray<nb::ro>& array) {
  int64_t expected = 1;
  for (size_t axis = array.ndim(); axis-- > 0;) {
    const auto extent = static_cast<int64_t>(array.shape(axis));
    if (extent == 0) return true;
    if (extent != 1 && array.stride(axis) != expected) return false;
    expected *= extent;
  }
  return true;
}

}  // namespace

SharedPyObject SharePyObject(nb::handle object) {
  return SharedPyObject(new nb::object(nb::borrow(object)), [](nb::object* held) {
    CleanupGil gil;
    if (gil.held()) delete held;  // else left to the exiting process (gil.h)
  });
}

// Deliberately never released: a static nb::object would be decref'ed after
// the interpreter is gone, at process exit.
nb::handle NumPy() {
  static PyObject* numpy = nb::module_::import_("numpy").release().ptr();
  return numpy;
}

namespace {

// str(array.dtype). The attribute goes through nb::object first: nb::str
// built straight from the accessor borrows the dtype object as if it were a
// str (no str() call), and reading that as std::string throws std::bad_cast.
std::string DTypeText(nb::handle array) {
  nb::object dtype = array.attr("dtype");
  return nb::str(dtype).c_str();
}

// Text arrays ('U' str, 'S' bytes, 'O' objects) as a string tensor; nullopt
// for every other kind.
std::optional<Tensor> StringTensorFromPython(nb::handle array, const std::string& what) {
  nb::object dtype = array.attr("dtype");
  const std::string kind = nb::cast<std::string>(dtype.attr("kind"));
  if (kind != "U" && kind != "S" && kind != "O") return std::nullopt;
  std::vector<int64_t> dims;
  for (nb::handle extent : nb::cast<nb::tuple>(array.attr("shape"))) {
    dims.push_back(nb::cast<int64_t>(extent));
  }
  Tensor tensor(DType::kString, Shape(std::move(dims)));
  nb::list items = nb::cast<nb::list>(array.attr("ravel")().attr("tolist")());
  std::string* strings = tensor.data<std::string>();
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* item = items[i].ptr();
    if (PyUnicode_Check(item)) {
      Py_ssize_t size = 0;
      const char* text = PyUnicode_AsUTF8AndSize(item, &size);
      if (text == nullptr) throw nb::python_error();  // lone surrogates
      strings[i].assign(text, static_cast<size_t>(size));
    } else if (PyBytes_Check(item)) {
      strings[i].assign(PyBytes_AS_STRING(item), static_cast<size_t>(PyBytes_GET_SIZE(item)));
    } else {
      throw InvalidArgumentError(what + ": element " + std::to_string(i) +
                                 " of the object array is a " + Py_TYPE(item)->tp_name +
                                 ", not str or bytes (Loom reads object arrays as text)");
    }
  }
  return tensor;
}

}  // namespace

Tensor TensorFromPython(nb::handle object, const std::string& what) {
  nb::object array = nb::borrow(object);
  if (!nb::isinstance(array, NumPy().attr("ndarray"))) array = NumPy().attr("asarray")(array);
  if (std::optional<Tensor> text = StringTensorFromPython(array, what)) return *std::move(text);
  // str(dtype) runs NumPy's Python code (~7 µs a call, more than the rest
  // of a small run's conversions), so the dtype is named only on the way to
  // an error. An ml_dtypes bfloat16 array gets there: neither the buffer
  // protocol nor DLPack exports it.
  nb::ndarray<nb::ro> view;
  if (!nb::try_cast(array, view, /*convert=*/false)) {
    // Non-native byte order (">f4" read from a file, say): nanobind reads
    // only native arrays, so NumPy swaps a copy first.
    nb::object dtype = array.attr("dtype");
    if (!nb::cast<bool>(dtype.attr("isnative")) &&
        std::string_view("biuf").find(nb::cast<std::string>(dtype.attr("kind"))) !=
            std::string_view::npos) {
      array = array.attr("astype")(dtype.attr("newbyteorder")("="));
    }
    if (!nb::try_cast(array, view, /*convert=*/false)) {
      const std::string name = DTypeText(array);
      if (name == "bfloat16") {
        throw InvalidArgumentError(what + ": dtype bfloat16 is not supported here: " + kNoBFloat16);
      }
      throw InvalidArgumentError(what + ": cannot read a NumPy array of dtype " + name);
    }
  }
  const std::optional<DType> dtype = LoomDType(view.dtype());
  if (!dtype) {
    throw InvalidArgumentError(what + ": NumPy dtype " + DTypeText(array) +
                               " is not supported (Loom takes float32, float64, float16, int8, "
                               "int16, int32, int64, uint8, uint16, uint32, uint64 and bool)");
  }
  const auto address = reinterpret_cast<uintptr_t>(view.data());
  if (!IsCContiguous(view) || address % dtype_size(*dtype) != 0) {
    array = NumPy().attr("array")(array, nb::arg("order") = "C", nb::arg("copy") = true);
    view = nb::cast<nb::ndarray<nb::ro>>(array, /*convert=*/false);
  }
  std::vector<int64_t> dims(view.ndim());
  for (size_t axis = 0; axis < view.ndim(); ++axis)
    dims[axis] = static_cast<int64_t>(view.shape(axis));
  return Tensor::from_external(*dtype, Shape(std::move(dims)), const_cast<void*>(view.data()),
                               SharePyObject(array));
}

bool IsPythonScalar(nb::handle value) {
  return nb::isinstance<nb::bool_>(value) || nb::isinstance<nb::int_>(value) ||
         nb::isinstance<nb::float_>(value);
}

Tensor TensorFromPythonLike(nb::handle value, const Tensor& like, const std::string& what) {
  if (!IsPythonScalar(value) ||
      (nb::isinstance<nb::float_>(value) && !dtype_is_float(like.dtype()))) {
    return TensorFromPython(value, what);
  }
  nb::object scalar =
      NumPy().attr("asarray")(value, nb::arg("dtype") = std::string(dtype_name(like.dtype())));
  return TensorFromPython(scalar, what);
}

namespace {

// NumPy's type number for a Loom dtype (bfloat16 has none).
int NumPyType(DType dtype, const std::string& what) {
  switch (dtype) {
    case DType::kFloat32:
      return NPY_FLOAT32;
    case DType::kFloat64:
      return NPY_FLOAT64;
    case DType::kFloat16:
      return NPY_FLOAT16;
    case DType::kInt8:
      return NPY_INT8;
    case DType::kUInt8:
      return NPY_UINT8;
    case DType::kInt16:
      return NPY_INT16;
    case DType::kUInt16:
      return NPY_UINT16;
    case DType::kInt32:
      return NPY_INT32;
    case DType::kUInt32:
      return NPY_UINT32;
    case DType::kInt64:
      return NPY_INT64;
    case DType::kUInt64:
      return NPY_UINT64;
    case DType::kBool:
      return NPY_BOOL;
    case DType::kBFloat16:
      throw InvalidArgumentError(
          what + " has dtype bfloat16, which cannot become a NumPy array: " + kNoBFloat16);
    case DType::kString:
      return NPY_OBJECT;  // made by StringArray, not by PyArray_New over the storage
  }
  throw RuntimeError("unknown Loom dtype");
}

// NumPy's C API table, loaded once (under the GIL, which every caller holds).
void LoadNumPyApi() {
  static const bool loaded = [] {
    NumPy();  // imported the usual way first
    if (_import_array() < 0) throw nb::python_error();
    return true;
  }();
  (void)loaded;
}

// An object array of str holding copies of the tensor's strings.
nb::object StringArray(const Tensor& tensor) {
  const std::string* strings = tensor.data<std::string>();
  nb::list items;
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    PyObject* text = PyUnicode_DecodeUTF8(
        strings[i].data(), static_cast<Py_ssize_t>(strings[i].size()), "surrogateescape");
    if (text == nullptr) throw nb::python_error();
    items.append(nb::steal(text));
  }
  nb::object flat = NumPy().attr("empty")(items.size(), nb::arg("dtype") = "object");
  flat.attr("__setitem__")(nb::slice(nb::none(), nb::none(), nb::none()), items);
  nb::list shape;
  for (int64_t extent : tensor.shape().dims()) shape.append(extent);
  return flat.attr("reshape")(nb::tuple(shape));
}

}  // namespace

nb::object ArrayFromTensor(Tensor tensor, const std::string& what) {
  if (tensor.dtype() == DType::kString) return StringArray(tensor);
  const int type = NumPyType(tensor.dtype(), what);
  const std::vector<int64_t>& dims = tensor.shape().dims();
  if (dims.size() > NPY_MAXDIMS) {
    throw InvalidArgumentError(what + " has rank " + std::to_string(dims.size()) +
                               ", more than NumPy's " + std::to_string(NPY_MAXDIMS));
  }
  LoadNumPyApi();
  const int rank = static_cast<int>(dims.size());
  npy_intp shape[NPY_MAXDIMS];
  for (int axis = 0; axis < rank; ++axis) shape[axis] = static_cast<npy_intp>(dims[axis]);
  auto* holder = new Tensor(std::move(tensor));  // `dims` is gone from here on
  nb::capsule owner(holder, [](void* pointer) noexcept { delete static_cast<Tensor*>(pointer); });
  // NumPy wants a non-null pointer even for zero elements.
  static int64_t empty_data = 0;
  void* data = holder->raw_data() != nullptr ? holder->raw_data() : &empty_data;
  PyObject* array =
      PyArray_New(&PyArray_Type, rank, shape, type, nullptr, data, 0, NPY_ARRAY_CARRAY, nullptr);
  if (array == nullptr) throw nb::python_error();
  nb::object result = nb::steal(array);
  // The array keeps the tensor alive; SetBaseObject takes the reference.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), owner.release().ptr()) < 0) {
    throw nb::python_error();
  }
  return result;
}

Tensor Unaliased(Tensor output, const std::vector<const Tensor*>& inputs) {
  for (const Tensor* input : inputs) {
    if (input != nullptr && output.shares_storage_with(*input)) return output.clone();
  }
  return output;
}

void RaiseAsPythonWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1) != 0) throw nb::python_error();
  }
}

}  // namespace loom::python
