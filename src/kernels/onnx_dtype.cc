#include "kernels/onnx_dtype.h"

#include <array>
#include <string_view>

namespace loom::kernels {
namespace {

struct OnnxDataTypeEntry {
  DType dtype;
  int64_t onnx;
  std::string_view onnx_name;  // TensorProto.DataType's enumerator
};

// In ONNX number order (SupportedOnnxDataTypes lists them so).
constexpr std::array<OnnxDataTypeEntry, kNumDTypes> kOnnxDataTypes = {{
    {DType::kFloat32, 1, "FLOAT"},
    {DType::kUInt8, 2, "UINT8"},
    {DType::kInt8, 3, "INT8"},
    {DType::kUInt16, 4, "UINT16"},
    {DType::kInt16, 5, "INT16"},
    {DType::kInt32, 6, "INT32"},
    {DType::kInt64, 7, "INT64"},
    {DType::kString, 8, "STRING"},
    {DType::kBool, 9, "BOOL"},
    {DType::kFloat16, 10, "FLOAT16"},
    {DType::kFloat64, 11, "DOUBLE"},
    {DType::kUInt32, 12, "UINT32"},
    {DType::kUInt64, 13, "UINT64"},
    {DType::kBFloat16, 16, "BFLOAT16"},
}};

}  // namespace

int64_t OnnxDataType(DType dtype) {
  for (const auto& entry : kOnnxDataTypes) {
    if (entry.dtype == dtype) return entry.onnx;
  }
  return 0;  // unreachable: every DType has an entry (onnx_dtype_test checks)
}

std::optional<DType> DTypeFromOnnxDataType(int64_t code) {
  for (const auto& entry : kOnnxDataTypes) {
    if (entry.onnx == code) return entry.dtype;
  }
  return std::nullopt;
}

std::string SupportedOnnxDataTypes() {
  std::string out;
  for (const auto& entry : kOnnxDataTypes) {
    if (!out.empty()) out += ", ";
    out += std::to_string(entry.onnx) + " " + std::string(entry.onnx_name);
  }
  return out;
}

}  // namespace loom::kernels
