#include "onnx_import/value_types.h"

#include <optional>

#include "kernels/onnx_dtype.h"
#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

void CollectParams(const onnx::ValueInfoProto& info, std::set<std::string>& used) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
  for (const onnx::TensorShapeProto_Dimension& dim : info.type().tensor_type().shape().dim()) {
    if (dim.has_dim_param()) used.insert(dim.dim_param());
  }
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

TensorType ConvertValueType(const onnx::ValueInfoProto& info, bool is_input, SymbolTable& symbols,
                            const std::string& what) {
  const TensorType placeholder{DType::kFloat32, std::nullopt};
  if (!info.has_type()) {
    if (is_input) throw InvalidArgumentError(what + " has no type");
    return placeholder;
  }
  if (!info.type().has_tensor_type()) {
    throw InvalidArgumentError(what +
                               " is not a tensor (sequences, maps, optionals and sparse "
                               "tensors are not supported)");
  }
  const onnx::TypeProto_Tensor& tensor = info.type().tensor_type();
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
  TensorType type{*dtype, std::nullopt};
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

}  // namespace loom::onnx_import
