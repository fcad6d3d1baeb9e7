// Tensors: a dtype, a shape and 64-byte aligned, shared storage.
//
//   loom::Tensor x(loom::DType::kFloat32, {2, 3});   // zero-filled
//   float* p = x.data<float>();                       // checks the dtype
//   loom::Tensor y = x.reshape({3, 2});               // same storage
//
// Sizes are checked before anything is allocated: a negative dimension, an
// element count or byte size that overflows int64, or more than
// kMaxTensorBytes throws loom::InvalidArgumentError naming the shape. A
// failed allocation throws loom::RuntimeError. Nothing here ever crashes on
// a bad size.
//
// Layout: dense, row-major (C order). Copying a Tensor copies a handle; the
// storage is shared (use clone() for a deep copy).
//
// Thread safety: a Tensor may be read from many threads at once; writing
// its elements while others read them is the caller's race to avoid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "loom/bfloat16.h"
#include "loom/float16.h"

namespace loom {

// Values are stable (new dtypes are appended): they index tables and travel
// in DTypeMask bits (kernels/registry.h).
enum class DType : uint8_t {
  kFloat32,
  kFloat64,
  kFloat16,
  kInt8,
  kUInt8,
  kInt32,
  kInt64,
  kBool,
  kUInt16,
  kUInt32,
  kUInt64,
  kInt16,
  kBFloat16,
  // One std::string per element (ONNX's STRING: UTF-8 text, compared as
  // bytes). A string tensor's storage holds std::string objects, so its raw
  // bytes are not its contents: code copies elements (data<std::string>()),
  // never bytes. Only the kernels whose registry rows list it accept it.
  kString,
};

// The number of dtypes: every DType is below it, for loops over all of them.
inline constexpr int kNumDTypes = static_cast<int>(DType::kString) + 1;

// Bytes per element: 4, 8, 2, 1, 1, 4, 8, 1, 2, 4, 8, 2, 2 in enum order
// (bool is one byte, 0 or 1), then sizeof(std::string) for kString (the
// characters live outside the tensor's storage).
size_t dtype_size(DType dtype);

// "float32", "float64", "float16", "int8", "uint8", "int32", "int64", "bool",
// "uint16", "uint32", "uint64", "int16", "bfloat16", "string".
std::string_view dtype_name(DType dtype);

// Whether elements are floating point: float32, float64, float16, bfloat16.
constexpr bool dtype_is_float(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

// The DType of a C++ element type; a compile error for any other type.
template <typename T>
constexpr DType dtype_of();

// The largest tensor Loom allocates: a guard against a typo in a shape
// becoming an out-of-memory kill (storage is zero-filled, so every page is
// touched). 2^40 bytes = 1 TiB.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar with one element
  Shape(std::initializer_list<int64_t> dims);
  // Throws loom::InvalidArgumentError if a dimension is negative or the
  // element count overflows int64.
  explicit Shape(std::vector<int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Dimension `axis`; negative axes count from the end (-1 is the last).
  // Throws loom::InvalidArgumentError when out of range.
  int64_t dim(int axis) const;
  int64_t num_elements() const { return num_elements_; }

  std::string to_string() const;  // "[2, 3]", "[]" for a scalar

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }

 private:
  std::vector<int64_t> dims_;
  int64_t num_elements_ = 1;
};

// NumPy / ONNX multidirectional broadcasting: shapes are aligned at the
// right; each pair of dimensions must be equal or one of them 1. Throws
// loom::InvalidArgumentError naming both shapes and the clashing axis.
Shape broadcast_shapes(const Shape& a, const Shape& b);

namespace detail {
class Storage;
}

class Tensor {
 public:
  // An empty float32 tensor of shape [0], with no storage.
  Tensor();
  // A zero-filled tensor. Throws as described at the top of this file.
  Tensor(DType dtype, Shape shape);

  // A tensor whose elements are unspecified (like numpy.empty): for code
  // that writes every element anyway, such as a kernel's output, and saves
  // the zero-fill pass. Sizes are checked as for the constructor. Sanitizer
  // builds fill it with NaN bytes so a missed element shows up in tests.
  static Tensor uninitialized(DType dtype, Shape shape);

  // A tensor over memory someone else owns (a NumPy array, a mapped file),
  // without copying: `data` holds the elements densely in row-major order
  // and stays valid while `owner` (any shared object; its last reference is
  // dropped when the last Tensor sharing this storage dies) is alive. `data`
  // must be aligned to the element size, not to 64 bytes. Kernels only read
  // their inputs, so a borrowed input is never written. Throws
  // loom::InvalidArgumentError for a null `data` with elements, a
  // misaligned `data`, a bad size (as for the constructor), or kString
  // (its elements are objects Loom constructs; copy strings in instead).
  static Tensor from_external(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner);

  // A tensor holding a copy of `values`; its shape's element count must
  // equal values.size().
  template <typename T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t nbytes() const { return static_cast<size_t>(num_elements()) * dtype_size(dtype_); }

  // The first element, 64-byte aligned (for tensors Loom allocated; see
  // from_external); null when num_elements() is 0.
  void* raw_data();
  const void* raw_data() const;

  // Typed access. Throws loom::InvalidArgumentError if T is not the dtype.
  template <typename T>
  T* data() {
    check_dtype(dtype_of<T>());
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    check_dtype(dtype_of<T>());
    return static_cast<const T*>(raw_data());
  }

  // The same elements viewed with another shape (no copy). Throws
  // loom::InvalidArgumentError if the element counts differ.
  Tensor reshape(Shape shape) const;

  // A deep copy with its own storage.
  Tensor clone() const;

  bool shares_storage_with(const Tensor& other) const;

 private:
  void check_dtype(DType requested) const;

  DType dtype_;
  Shape shape_;
  std::shared_ptr<detail::Storage> storage_;
};

// ---- implementation details of the templates above ----

template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::kFloat32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::kFloat64;
  else if constexpr (std::is_same_v<T, Float16>)
    return DType::kFloat16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::kInt8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::kUInt8;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::kInt64;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::kBool;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DType::kUInt16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DType::kUInt32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return DType::kUInt64;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::kInt16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return DType::kBFloat16;
  else if constexpr (std::is_same_v<T, std::string>)
    return DType::kString;
  else
    static_assert(sizeof(T) == 0, "not a Loom element type");
}

namespace detail {
// Throws loom::InvalidArgumentError naming both counts when they differ.
void check_element_count(const Shape& shape, size_t values);
}  // namespace detail

template <typename T>
Tensor Tensor::from_vector(Shape shape, const std::vector<T>& values) {
  detail::check_element_count(shape, values.size());
  Tensor tensor(dtype_of<T>(), std::move(shape));
  T* out = tensor.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace loom
