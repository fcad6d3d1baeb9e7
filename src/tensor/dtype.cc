#include <array>
#include <string>

#include "loom/errors.h"
#include "loom/tensor.h"

namespace loom {
namespace {

struct DTypeInfo {
  DType dtype;
  size_t size;
  std::string_view name;
};

// One row per DType, in enum order (checked below).
constexpr std::array<DTypeInfo, kNumDTypes> kDTypes = {{
    {DType::kFloat32, 4, "float32"},
    {DType::kFloat64, 8, "float64"},
    {DType::kFloat16, 2, "float16"},
    {DType::kInt8, 1, "int8"},
    {DType::kUInt8, 1, "uint8"},
    {DType::kInt32, 4, "int32"},
    {DType::kInt64, 8, "int64"},
    {DType::kBool, 1, "bool"},
    {DType::kUInt16, 2, "uint16"},
    {DType::kUInt32, 4, "uint32"},
    {DType::kUInt64, 8, "uint64"},
    {DType::kInt16, 2, "int16"},
    {DType::kBFloat16, 2, "bfloat16"},
    {DType::kString, sizeof(std::string), "string"},
}};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kDTypes.size(); ++i) {
    if (static_cast<size_t>(kDTypes[i].dtype) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "kDTypes rows must follow the DType enum");

const DTypeInfo& Info(DType dtype) {
  const auto index = static_cast<size_t>(dtype);
  if (index >= kDTypes.size()) {
    throw InvalidArgumentError("unknown dtype " + std::to_string(index));
  }
  return kDTypes[index];
}

}  // namespace

size_t dtype_size(DType dtype) { return Info(dtype).size; }

std::string_view dtype_name(DType dtype) { return Info(dtype).name; }

}  // namespace loom
