// Dispatch on a runtime DType to code templated on the element type:
//
//   VisitDType(t.dtype(), [&](auto tag) { using T = decltype(tag); ... });
#pragma once

#include <cstdint>

#include "loom/bfloat16.h"
#include "loom/errors.h"
#include "loom/float16.h"
#include "loom/tensor.h"

namespace loom::kernels {

// Calls fn(T{}) with T the C++ element type of `dtype`; returns its result.
// kString is not visited (numeric code would not compile for it, and bytes
// copied as another type would be wrong): it throws InvalidArgumentError;
// kernels that take strings test for it first.
template <typename Fn>
decltype(auto) VisitDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      return fn(float{});
    case DType::kFloat64:
      return fn(double{});
    case DType::kFloat16:
      return fn(Float16{});
    case DType::kInt8:
      return fn(int8_t{});
    case DType::kUInt8:
      return fn(uint8_t{});
    case DType::kInt32:
      return fn(int32_t{});
    case DType::kInt64:
      return fn(int64_t{});
    case DType::kBool:
      return fn(bool{});
    case DType::kUInt16:
      return fn(uint16_t{});
    case DType::kUInt32:
      return fn(uint32_t{});
    case DType::kUInt64:
      return fn(uint64_t{});
    case DType::kInt16:
      return fn(int16_t{});
    case DType::kBFloat16:
      return fn(BFloat16{});
    case DType::kString:
      break;
  }
  if (dtype == DType::kString) {
    throw InvalidArgumentError("no kernel path for dtype string here");
  }
  return fn(float{});  // unreachable: every DType is listed above
}

}  // namespace loom::kernels
