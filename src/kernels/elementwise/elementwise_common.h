// Helpers shared by the elementwise kernels (elementwise_*.cc): dispatch on
// a dtype to a templated body, wrap-around integer arithmetic, float16 and
// bfloat16 conversion, and the parallel driver over a broadcast plan.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernels/dtype_visit.h"
#include "kernels/elementwise/elementwise_broadcast.h"
#include "kernels/half_float.h"
#include "kernels/op_kernel.h"
#include "loom/tensor.h"
#include "threading/parallel_for.h"

namespace loom::kernels::elementwise {

inline constexpr std::initializer_list<DType> kNumericDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
    DType::kInt8,    DType::kUInt8,   DType::kInt16,   DType::kUInt16,
    DType::kInt32,   DType::kUInt32,  DType::kInt64,   DType::kUInt64};
inline constexpr std::initializer_list<DType> kFloatDTypes = {DType::kFloat32, DType::kFloat64,
                                                              DType::kFloat16, DType::kBFloat16};

// Throws "<op>: inputs 'A' (float32) and 'B' (int64) must have the same dtype".
void CheckSameDType(std::string_view op, std::string_view name_a, const Tensor& a,
                    std::string_view name_b, const Tensor& b);

// A copy of `tensor` converted elementwise to `dtype` (static_cast rules,
// except float to integer, which truncates toward zero and saturates, NaN
// to 0; float16 and bfloat16 through float32, rounding to nearest even; to
// bool is != 0). Returns `tensor` itself when the dtype already matches.
Tensor ConvertTensor(const Tensor& tensor, DType dtype);

// Integer arithmetic that wraps around instead of overflowing (signed
// overflow is undefined behaviour in C++); plain arithmetic for floats.
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // uint8 * uint8 promotes to int; cast to the unsigned type of the
    // result width before multiplying so nothing overflows a signed int.
    using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<Wide>(static_cast<U>(a)) *
                          static_cast<Wide>(static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// Calls body(begin, end) over [0, n) through ParallelFor: the serial loop
// `body(0, n)`. cost_ns is the estimated time per element on one core; work
// under ~10 µs runs inline.
void ParallelElements(const KernelContext& ctx, int64_t n, double cost_ns,
                      const threading::RangeFn& body);

// Estimated ns per element, single core: memory-bound streaming ops move
// 8-12 bytes per element at ~10 GB/s; polynomial transcendentals add
// ~1 ns; std:: calls in scalar loops cost ~5-20 ns. Guesses, to be replaced
// by bench/kernels measurements.
inline constexpr double kCheapCostNs = 0.5;
inline constexpr double kDivideCostNs = 1.0;
inline constexpr double kTranscendentalCostNs = 2.0;
inline constexpr double kScalarCallCostNs = 10.0;

}  // namespace loom::kernels::elementwise
