#include "loom/value.h"

#include "loom/errors.h"

namespace loom {
namespace {

const char* KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kTensor:
      return "a tensor";
    case Value::Kind::kSequence:
      return "a sequence";
    case Value::Kind::kNone:
      return "an empty optional";
  }
  return "a value";
}

}  // namespace

Value Value::Sequence(DType dtype, std::vector<Tensor> elements) {
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].dtype() != dtype) {
      throw InvalidArgumentError("sequence element " + std::to_string(i) + " is " +
                                 std::string(dtype_name(elements[i].dtype())) +
                                 ", the sequence holds " + std::string(dtype_name(dtype)));
    }
  }
  Value value;
  value.kind_ = Kind::kSequence;
  value.elements_ = std::move(elements);
  value.element_dtype_ = dtype;
  return value;
}

Value Value::None() {
  Value value;
  value.kind_ = Kind::kNone;
  return value;
}

const Tensor& Value::tensor() const {
  if (kind_ != Kind::kTensor) {
    throw InvalidArgumentError(std::string("expected a tensor, got ") + KindName(kind_));
  }
  return tensor_;
}

Tensor& Value::tensor() {
  if (kind_ != Kind::kTensor) {
    throw InvalidArgumentError(std::string("expected a tensor, got ") + KindName(kind_));
  }
  return tensor_;
}

const std::vector<Tensor>& Value::elements() const {
  if (kind_ != Kind::kSequence) {
    throw InvalidArgumentError(std::string("expected a sequence, got ") + KindName(kind_));
  }
  return elements_;
}

std::vector<Tensor>& Value::elements() {
  if (kind_ != Kind::kSequence) {
    throw InvalidArgumentError(std::string("expected a sequence, got ") + KindName(kind_));
  }
  return elements_;
}

DType Value::element_dtype() const {
  elements();  // throws unless a sequence
  return element_dtype_;
}

size_t Value::nbytes() const {
  if (kind_ == Kind::kTensor) return tensor_.nbytes();
  size_t total = 0;
  for (const Tensor& element : elements_) total += element.nbytes();
  return total;
}

std::string Value::describe() const {
  switch (kind_) {
    case Kind::kTensor:
      return std::string(dtype_name(tensor_.dtype())) + tensor_.shape().to_string();
    case Kind::kSequence:
      return "seq(" + std::string(dtype_name(element_dtype_)) + ", " +
             std::to_string(elements_.size()) + " element" + (elements_.size() == 1 ? "" : "s") +
             ")";
    case Kind::kNone:
      return "none";
  }
  return "?";
}

}  // namespace loom
