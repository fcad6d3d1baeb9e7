#include "loom/tensor.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "loom/errors.h"
#include "tensor/storage.h"

namespace loom {
namespace {

// Bytes for `count` elements of `dtype`, refusing overflow and anything
// above kMaxTensorBytes before a single byte is allocated.
size_t CheckedByteSize(DType dtype, const Shape& shape) {
  int64_t bytes = 0;
  const auto element = static_cast<int64_t>(dtype_size(dtype));
  if (__builtin_mul_overflow(shape.num_elements(), element, &bytes) || bytes > kMaxTensorBytes) {
    throw InvalidArgumentError("tensor of shape " + shape.to_string() + " and dtype " +
                               std::string(dtype_name(dtype)) + " would need " +
                               std::to_string(shape.num_elements()) + " x " +
                               std::to_string(element) + " bytes, more than the limit of " +
                               std::to_string(kMaxTensorBytes) + " bytes (kMaxTensorBytes)");
  }
  return static_cast<size_t>(bytes);
}

}  // namespace

namespace detail {

void check_element_count(const Shape& shape, size_t values) {
  if (static_cast<uint64_t>(shape.num_elements()) != values) {
    throw InvalidArgumentError("shape " + shape.to_string() + " holds " +
                               std::to_string(shape.num_elements()) + " elements but " +
                               std::to_string(values) + " values were given");
  }
}

}  // namespace detail

Tensor::Tensor() : dtype_(DType::kFloat32), shape_({0}) {}

namespace {

std::shared_ptr<detail::Storage> NewStorage(DType dtype, const Shape& shape,
                                            detail::Storage::Fill fill) {
  const size_t bytes = CheckedByteSize(dtype, shape);
  if (dtype == DType::kString) {
    return detail::Storage::Strings(static_cast<size_t>(shape.num_elements()));
  }
  return std::make_shared<detail::Storage>(bytes, fill);
}

}  // namespace

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  storage_ = NewStorage(dtype_, shape_, detail::Storage::kZeros);
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  Tensor tensor;
  tensor.dtype_ = dtype;
  tensor.shape_ = std::move(shape);
  tensor.storage_ = NewStorage(dtype, tensor.shape_, detail::Storage::kUninitialized);
  return tensor;
}

Tensor Tensor::from_external(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner) {
  Tensor tensor;
  tensor.dtype_ = dtype;
  tensor.shape_ = std::move(shape);
  const size_t bytes = CheckedByteSize(dtype, tensor.shape_);
  if (dtype == DType::kString) {
    throw InvalidArgumentError(
        "a string tensor cannot borrow external memory (its elements are std::string objects "
        "Loom constructs); make a Tensor and assign its strings");
  }
  if (bytes > 0 && data == nullptr) {
    throw InvalidArgumentError("external tensor of shape " + tensor.shape_.to_string() +
                               " has no data (null pointer)");
  }
  if (reinterpret_cast<uintptr_t>(data) % dtype_size(dtype) != 0) {
    throw InvalidArgumentError("external " + std::string(dtype_name(dtype)) + " data at " +
                               std::to_string(reinterpret_cast<uintptr_t>(data)) +
                               " is not aligned to its " + std::to_string(dtype_size(dtype)) +
                               "-byte elements");
  }
  tensor.storage_ = std::make_shared<detail::Storage>(data, bytes, std::move(owner));
  return tensor;
}

void* Tensor::raw_data() { return storage_ ? storage_->data() : nullptr; }

const void* Tensor::raw_data() const { return storage_ ? storage_->data() : nullptr; }

void Tensor::check_dtype(DType requested) const {
  if (requested != dtype_) {
    throw InvalidArgumentError("tensor of shape " + shape_.to_string() + " has dtype " +
                               std::string(dtype_name(dtype_)) + ", not the requested " +
                               std::string(dtype_name(requested)));
  }
}

Tensor Tensor::reshape(Shape shape) const {
  if (shape.num_elements() != num_elements()) {
    throw InvalidArgumentError("cannot reshape " + shape_.to_string() + " (" +
                               std::to_string(num_elements()) + " elements) to " +
                               shape.to_string() + " (" + std::to_string(shape.num_elements()) +
                               " elements)");
  }
  Tensor view = *this;
  view.shape_ = std::move(shape);
  return view;
}

Tensor Tensor::clone() const {
  Tensor copy = uninitialized(dtype_, shape_);
  if (dtype_ == DType::kString) {
    const std::string* from = data<std::string>();
    std::string* to = copy.data<std::string>();
    for (int64_t i = 0; i < num_elements(); ++i) to[i] = from[i];
  } else if (nbytes() > 0) {
    std::memcpy(copy.raw_data(), raw_data(), nbytes());
  }
  return copy;
}

bool Tensor::shares_storage_with(const Tensor& other) const {
  return storage_ != nullptr && storage_ == other.storage_;
}

}  // namespace loom
