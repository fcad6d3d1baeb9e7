#include "onnx_import/value_types.h"

#include <optional>

#include "kernels/onnx_dtype.h"
#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

void CollectParams(const onnx::TypeProto& type, std::set<std::string>& used) {
  if (type.has_sequence_type()) return CollectParams(type.sequence_type().elem_type(), used);
  if (type.has_optional_type()) return CollectParams(type.optional_type().elem_type(), used);
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return;
  for (const onnx::TensorShapeProto_Dimension& dim : type.tensor_type().shape().dim()) {
    if (dim.has_dim_param()) used.insert(dim.dim_param());
  }
}

void CollectParams(const onnx::ValueInfoProto& info, std::set<std::string>& used) {
  CollectParams(info.type(), used);
}

}  // namespace

SymbolTable::SymbolTable(const onnx::GraphProto& graph) {
  for (const auto& info : graph.input()) CollectParams(info, used_);
  for (const auto& info : graph.output()) CollectParams(info, used_);
  for (const auto& info : graph.value_info()) CollectParams(info, used_);
}

std::string SymbolTable::Fresh() {
  std::string symbol;
  do {
    symbol = "unk__" + std::to_string(next_++);
  } while (used_.count(symbol));
  used_.insert(symbol);
  return symbol;
}

namespace {

// A tensor TypeProto's dtype and shape; `kind` as given.
TensorType ConvertTensor(const onnx::TypeProto_Tensor& tensor, ValueKind kind, bool is_input,
                         SymbolTable& symbols, const std::string& what) {
  const TensorType placeholder{DType::kFloat32, std::nullopt, kind};
  if (!is_input && tensor.elem_type() == onnx::TensorProto::UNDEFINED) return placeholder;
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(tensor.elem_type());
  if (!dtype) {
    const int32_t code = tensor.elem_type();
    const std::string name =
        onnx::TensorProto_DataType_IsValid(code)
            ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(code))
            : "data type " + std::to_string(code);
    throw InvalidArgumentError(
        what + " has element type " + name +
        ", which Loom does not support (supported: " + kernels::SupportedOnnxDataTypes() + ")");
  }
  TensorType type{*dtype, std::nullopt, kind};
  if (!tensor.has_shape()) return type;  // rank unknown
  SymbolicShape shape;
  for (const onnx::TensorShapeProto_Dimension& dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) {
        throw InvalidArgumentError(what + " has a negative dimension " +
                                   std::to_string(dim.dim_value()));
      }
      shape.emplace_back(dim.dim_value());
    } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
      shape.emplace_back(dim.dim_param());
    } else {
      shape.push_back(Dim::Invented(symbols.Fresh()));
    }
  }
  type.shape = std::move(shape);
  return type;
}

[[noreturn]] void Unsupported(const std::string& what, const std::string& type) {
  throw InvalidArgumentError(what + " is " + type +
                             ", which Loom does not support (it runs tensors, sequences of "
                             "tensors, and optionals of either)");
}

}  // namespace

TensorType ConvertTypeProto(const onnx::TypeProto& type, bool is_input, SymbolTable& symbols,
                            const std::string& what) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return ConvertTensor(type.tensor_type(), ValueKind::kTensor, is_input, symbols, what);
    case onnx::TypeProto::kSequenceType: {
      const onnx::TypeProto& element = type.sequence_type().elem_type();
      if (element.value_case() == onnx::TypeProto::VALUE_NOT_SET && !is_input) {
        return TensorType{DType::kFloat32, std::nullopt, ValueKind::kSequence};
      }
      if (!element.has_tensor_type()) Unsupported(what, "a sequence of non-tensors");
      return ConvertTensor(element.tensor_type(), ValueKind::kSequence, is_input, symbols, what);
    }
    case onnx::TypeProto::kOptionalType: {
      const onnx::TypeProto& held = type.optional_type().elem_type();
      if (held.has_tensor_type()) {
        return ConvertTensor(held.tensor_type(), ValueKind::kOptionalTensor, is_input, symbols,
                             what);
      }
      if (held.has_sequence_type() && held.sequence_type().elem_type().has_tensor_type()) {
        return ConvertTensor(held.sequence_type().elem_type().tensor_type(),
                             ValueKind::kOptionalSequence, is_input, symbols, what);
      }
      Unsupported(what, "an optional of something other than a tensor or a sequence of tensors");
    }
    case onnx::TypeProto::kMapType:
      Unsupported(what, "a map");
    case onnx::TypeProto::kSparseTensorType:
      Unsupported(what, "a sparse tensor");
    default:
      if (is_input) throw InvalidArgumentError(what + " has no type");
      return TensorType{DType::kFloat32, std::nullopt};
  }
}

TensorType ConvertValueType(const onnx::ValueInfoProto& info, bool is_input, SymbolTable& symbols,
                            const std::string& what) {
  if (!info.has_type()) {
    if (is_input) throw InvalidArgumentError(what + " has no type");
    return TensorType{DType::kFloat32, std::nullopt};
  }
  return ConvertTypeProto(info.type(), is_input, symbols, what);
}

}  // namespace loom::onnx_import
