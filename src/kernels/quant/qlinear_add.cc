// LoomQLinearAdd (quant.h): the sum of two per-tensor quantized tensors,
// requantized, computed with the operations of the float path it replaces
// (DequantizeLinear x 2, Add, optional Relu, QuantizeLinear; quantize_linear.cc)
// in the same order and precision, so the fusion changes no bit:
// - x - zero_point is exact in int32 and in float32 (|x - zp| <= 255), and
//   the product with the scale rounds once, as DequantizeLinear's does;
// - the float32 sum rounds once, as Add's does; max(s, 0) is Relu's value
//   (a -0 or a NaN only ever meets the division below, which sends both to
//   the zero point as it would 0);
// - the sums go through QuantizeLinear's own span (quant::QuantizeSpan):
//   s / y_scale a float32 division, not a product with a reciprocal, then
//   quant::RoundSaturateFloat's rounding.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/quant/quant.h"
#include "kernels/quant/quant_common.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LoomQLinearAdd";

// The one value of a per-tensor scale or zero point; throws unless it has
// exactly one element.
const Tensor& CheckOneElement(const Tensor& t, std::string_view name) {
  if (t.num_elements() != 1) {
    ThrowKernelError(kOp, "input '" + std::string(name) +
                              "' must be a scalar or a one-element tensor (per tensor only), got "
                              "shape " +
                              t.shape().to_string());
  }
  return t;
}

// The scalar parameters, copied into locals by the loop (y's stores are
// char stores, which may alias any struct the loop reads through).
struct AddParams {
  float a_scale = 1, b_scale = 1, y_scale = 1;
  int32_t a_zero = 0, b_zero = 0, y_zero = 0;
  quant::IntRange range;
  bool avx512 = false;  // the AVX-512 spans (quant_common.h), same arithmetic
};

// y[i] for i < count, as the file comment says, in blocks of kBlock: the
// dequantized sums into a buffer in L1 (a plain loop GCC vectorizes), then
// QuantizeLinear's SSE2 span on them (GCC's own vectorization of
// RoundSaturateFloat's clamps ran at 1.15 ns an element, slower than the
// four unfused kernels).
template <typename A, typename B, typename Y, bool kRelu>
void AddSpan(const A* __restrict a, const B* __restrict b, Y* __restrict y, int64_t count,
             const AddParams& params) {
  constexpr int64_t kBlock = 256;  // 1 KiB of float32 sums
  alignas(64) float sums[kBlock];
  const float a_scale = params.a_scale, b_scale = params.b_scale;
  const int32_t a_zero = params.a_zero, b_zero = params.b_zero;
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t n = std::min(kBlock, count - start);
    if (params.avx512) {
      quant::DequantizeAddSpanAvx512(a + start, std::is_signed_v<A>, b + start, std::is_signed_v<B>,
                                     n, a_scale, a_zero, b_scale, b_zero, kRelu, sums);
      quant::QuantizeSpanAvx512(sums, y + start, n, params.y_scale, params.y_zero, params.range);
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      const float fa = static_cast<float>(static_cast<int32_t>(a[start + i]) - a_zero) * a_scale;
      const float fb = static_cast<float>(static_cast<int32_t>(b[start + i]) - b_zero) * b_scale;
      const float sum = fa + fb;
      if constexpr (kRelu) {
        sums[i] = sum < 0.0f ? 0.0f : sum;
      } else {
        sums[i] = sum;
      }
    }
    quant::QuantizeSpan(sums, y + start, n, params.y_scale, params.y_zero, params.range);
  }
}

// Calls fn(tag) with a value of the C++ type of an int8/uint8 dtype.
template <typename Fn>
void VisitInt8(DType dtype, Fn fn) {
  if (dtype == DType::kInt8) {
    fn(int8_t{});
  } else {
    fn(uint8_t{});
  }
}

}  // namespace

std::vector<Tensor> QLinearAddKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 8, 8);
  const Tensor& a = RequiredInput(kOp, inputs, 0, "a");
  const Tensor& a_scale = RequiredInput(kOp, inputs, 1, "a_scale");
  const Tensor& a_zp = RequiredInput(kOp, inputs, 2, "a_zero_point");
  const Tensor& b = RequiredInput(kOp, inputs, 3, "b");
  const Tensor& b_scale = RequiredInput(kOp, inputs, 4, "b_scale");
  const Tensor& b_zp = RequiredInput(kOp, inputs, 5, "b_zero_point");
  const Tensor& y_scale = RequiredInput(kOp, inputs, 6, "y_scale");
  const Tensor& y_zp = RequiredInput(kOp, inputs, 7, "y_zero_point");
  CheckDType(kOp, "a", a, {DType::kInt8, DType::kUInt8});
  CheckDType(kOp, "b", b, {DType::kInt8, DType::kUInt8});
  CheckDType(kOp, "a_zero_point", a_zp, {a.dtype()});
  CheckDType(kOp, "b_zero_point", b_zp, {b.dtype()});
  CheckDType(kOp, "y_zero_point", y_zp, {DType::kInt8, DType::kUInt8});
  CheckDType(kOp, "a_scale", a_scale, {DType::kFloat32});
  CheckDType(kOp, "b_scale", b_scale, {DType::kFloat32});
  CheckDType(kOp, "y_scale", y_scale, {DType::kFloat32});
  CheckOneElement(a_scale, "a_scale");
  CheckOneElement(a_zp, "a_zero_point");
  CheckOneElement(b_scale, "b_scale");
  CheckOneElement(b_zp, "b_zero_point");
  CheckOneElement(y_scale, "y_scale");
  CheckOneElement(y_zp, "y_zero_point");
  if (a.shape() != b.shape()) {
    ThrowKernelError(kOp, "inputs 'a' " + a.shape().to_string() + " and 'b' " +
                              b.shape().to_string() +
                              " must have the same shape (no broadcasting)");
  }
  const int64_t relu = attrs.get_int("relu", 0);
  if (relu != 0 && relu != 1) {
    ThrowKernelError(kOp, "attribute 'relu' must be 0 or 1 (got " + std::to_string(relu) + ")");
  }

  AddParams params;
  params.a_scale = a_scale.data<float>()[0];
  params.b_scale = b_scale.data<float>()[0];
  params.y_scale = y_scale.data<float>()[0];
  params.a_zero = quant::ReadInts(a_zp)[0];
  params.b_zero = quant::ReadInts(b_zp)[0];
  params.y_zero = quant::ReadInts(y_zp)[0];
  params.range = quant::RangeOf(y_zp.dtype());
  params.avx512 = quant::UseAvx512Spans(ctx.isa);

  Tensor y = Tensor::uninitialized(y_zp.dtype(), a.shape());
  const int64_t count = a.num_elements();
  // Chunks of 4096 elements keep the ParallelFor units few; a chunk is
  // ~0.5-1 us of work, far below a shard's minimum.
  constexpr int64_t kChunk = 4096;
  // Guess: ~0.15 ns an element (two loads, a store, a division per lane).
  constexpr double kNsPerElement = 0.15;
  // Split from 96 KiB of traffic (32 K elements): the division makes it
  // compute-bound enough that two threads help well below MemoryBoundCost's
  // 1 MiB default (quantized ResNet-18's adds at intra 2: see the results).
  constexpr int64_t kParallelMinBytes = 96 * 1024;
  VisitInt8(a.dtype(), [&](auto atag) {
    using A = decltype(atag);
    VisitInt8(b.dtype(), [&](auto btag) {
      using B = decltype(btag);
      VisitInt8(y.dtype(), [&](auto ytag) {
        using Y = decltype(ytag);
        const A* ap = a.data<A>();
        const B* bp = b.data<B>();
        Y* yp = y.data<Y>();
        auto* span = relu != 0 ? AddSpan<A, B, Y, true> : AddSpan<A, B, Y, false>;
        // The serial loop: span(ap + c * kChunk, ...) for each chunk c in
        // order; chunks write disjoint outputs. One thread runs it inline.
        threading::ParallelFor(
            ctx.pool, (count + kChunk - 1) / kChunk,
            threading::MemoryBoundCost(3 * count, kNsPerElement * kChunk, kParallelMinBytes),
            [&](int64_t begin, int64_t end) {
              for (int64_t c = begin; c < end; ++c) {
                const int64_t offset = c * kChunk;
                span(ap + offset, bp + offset, yp + offset, std::min(kChunk, count - offset),
                     params);
              }
            });
      });
    });
  });
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace loom::kernels
