#include "kernels/onnx_dtype.h"

#include <array>

namespace loom::kernels {
namespace {

struct OnnxDataTypeEntry {
  DType dtype;
  int64_t onnx;
};

constexpr std::array<OnnxDataTypeEntry, 8> kOnnxDataTypes = {{
    {DType::kFloat32, 1},
    {DType::kUInt8, 2},
    {DType::kInt8, 3},
    {DType::kInt32, 6},
    {DType::kInt64, 7},
    {DType::kBool, 9},
    {DType::kFloat16, 10},
    {DType::kFloat64, 11},
}};

}  // namespace

int64_t OnnxDataType(DType dtype) {
  for (const auto& entry : kOnnxDataTypes) {
    if (entry.dtype == dtype) return entry.onnx;
  }
  return 0;  // unreachable: every DType has an entry
}

std::optional<DType> DTypeFromOnnxDataType(int64_t code) {
  for (const auto& entry : kOnnxDataTypes) {
    if (entry.onnx == code) return entry.dtype;
  }
  return std::nullopt;
}

}  // namespace loom::kernels
