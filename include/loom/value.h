// Value: what one graph value holds when a session runs — a tensor, a
// sequence of tensors (ONNX's sequence type), or nothing (an empty ONNX
// optional). An optional that holds something is simply the tensor or the
// sequence it holds: the graph's types (loom/graph.h, ValueKind) say which
// values are optional.
//
//   loom::Value x = tensor;                                  // a tensor
//   auto s = loom::Value::Sequence(DType::kFloat32, {a, b});  // seq(float32)
//   auto n = loom::Value::None();                             // empty optional
//
// A sequence's elements share a dtype (the sequence's, kept even when it is
// empty) and may differ in shape. Copying a Value copies tensor handles, not
// data (loom/tensor.h).
//
// Thread safety: a Value is a value; concurrent reads are safe.
#pragma once

#include <string>
#include <vector>

#include "loom/tensor.h"

namespace loom {

class Value {
 public:
  enum class Kind { kTensor, kSequence, kNone };

  // An empty tensor handle (nothing computed yet).
  Value() = default;
  Value(Tensor tensor) : tensor_(std::move(tensor)) {}  // NOLINT: a tensor is a value
  // Makes this value `tensor` (cheaper than assigning a new Value: the
  // executor stores every tensor output so).
  Value& operator=(Tensor tensor) {
    kind_ = Kind::kTensor;
    tensor_ = std::move(tensor);
    if (!elements_.empty()) elements_.clear();
    return *this;
  }

  // Throws loom::InvalidArgumentError when an element's dtype is not `dtype`.
  static Value Sequence(DType dtype, std::vector<Tensor> elements);
  static Value None();

  Kind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_none() const { return kind_ == Kind::kNone; }

  // The tensor; throws loom::InvalidArgumentError when this is not one.
  const Tensor& tensor() const;
  Tensor& tensor();
  // The tensor, or null when this is a sequence or none.
  const Tensor* tensor_if() const { return kind_ == Kind::kTensor ? &tensor_ : nullptr; }

  // A sequence's elements and their dtype; throw loom::InvalidArgumentError
  // when this is not a sequence.
  const std::vector<Tensor>& elements() const;
  std::vector<Tensor>& elements();
  DType element_dtype() const;

  // Bytes of tensor data this value holds (a sequence: all its elements).
  size_t nbytes() const;

  // "float32[2, 3]", "seq(float32, 3 elements)", "none": for messages.
  std::string describe() const;

 private:
  Kind kind_ = Kind::kTensor;
  Tensor tensor_;
  std::vector<Tensor> elements_;
  DType element_dtype_ = DType::kFloat32;
};

}  // namespace loom
