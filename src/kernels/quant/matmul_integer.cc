// MatMulInteger and QLinearMatMul (quant.h): per batch, widen A and B to
// int16 with their zero points subtracted, multiply with Int16Gemm, and
// (QLinearMatMul) requantize the int32 sums.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/matmul_shapes.h"
#include "kernels/quant/int_gemm.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_common.h"

namespace loom::kernels {
namespace {

// How a zero point or scale maps to A's rows or B's columns: per tensor
// (one value), per row/column shared by every batch ([len]), or per batch
// and row/column (A: [..., M, 1], B: [..., 1, N]).
struct SideIndex {
  enum Mode { kTensor, kShared, kBatched } mode = kTensor;
  int64_t len = 1;
  int64_t operator()(int64_t batch, int64_t i) const {
    return mode == kTensor ? 0 : mode == kShared ? i : batch * len + i;
  }
};

// `a_side`: the parameter belongs to A (one value per row, len = M),
// else to B (per column, len = N).
SideIndex ResolveSide(std::string_view op, std::string_view name, const Tensor& t,
                      const Shape& operand, bool a_side, int64_t len) {
  SideIndex side;
  side.len = len;
  if (t.num_elements() == 1) return side;
  if (t.shape().rank() == 1 && t.num_elements() == len) {
    side.mode = SideIndex::kShared;
    return side;
  }
  const int rank = operand.rank();
  if (rank >= 2 && t.shape().rank() == rank) {
    std::vector<int64_t> expected = operand.dims();
    expected[static_cast<size_t>(rank - (a_side ? 1 : 2))] = 1;
    if (t.shape().dims() == expected) {
      side.mode = SideIndex::kBatched;
      return side;
    }
  }
  ThrowKernelError(op, "input '" + std::string(name) + "' " + t.shape().to_string() +
                           " must be a scalar, " + std::string(a_side ? "per row" : "per column") +
                           " [" + std::to_string(len) + "], or " + operand.to_string() +
                           " with the " + (a_side ? "last" : "second-to-last") + " dimension 1");
}

// dst[j] = t[offset + j] - zero[step * j] for j < count (int8 or uint8 t):
// exact in int16.
void WidenSpan(const Tensor& t, int64_t offset, int64_t count, const int32_t* zero, int64_t step,
               int16_t* dst) {
  auto widen = [&](const auto* p) {
    for (int64_t j = 0; j < count; ++j) dst[j] = static_cast<int16_t>(p[j] - zero[step * j]);
  };
  if (t.dtype() == DType::kInt8) {
    widen(t.data<int8_t>() + offset);
  } else {
    widen(t.data<uint8_t>() + offset);
  }
}

const std::initializer_list<DType> kInt8Types = {DType::kInt8, DType::kUInt8};

// The int32 product of A and B with their zero points subtracted; calls
// epilogue(batch index of A, batch index of B, int32 sums [M, N], output
// batch) per output batch.
template <typename Epilogue>
void RunIntMatMul(std::string_view op, const KernelContext& ctx, const Tensor& a, const Tensor& b,
                  const Tensor* a_zp, const Tensor* b_zp, const MatMulShapes& s,
                  Epilogue epilogue) {
  const SideIndex a_side =
      a_zp != nullptr ? ResolveSide(op, "a_zero_point", *a_zp, a.shape(), true, s.m) : SideIndex{};
  const SideIndex b_side =
      b_zp != nullptr ? ResolveSide(op, "b_zero_point", *b_zp, b.shape(), false, s.n) : SideIndex{};
  const std::vector<int32_t> a_zeros = a_zp ? quant::ReadInts(*a_zp) : std::vector<int32_t>{0};
  const std::vector<int32_t> b_zeros = b_zp ? quant::ReadInts(*b_zp) : std::vector<int32_t>{0};
  std::vector<int16_t> a16(static_cast<size_t>(s.m * s.k));
  std::vector<int16_t> b16(static_cast<size_t>(s.k * s.n));
  std::vector<int32_t> sums(static_cast<size_t>(s.m * s.n));
  const int64_t b_step = b_side.mode == SideIndex::kTensor ? 0 : 1;
  for (size_t batch = 0; batch < s.a_offset.size(); ++batch) {
    const int64_t a_off = s.a_offset[batch];
    const int64_t b_off = s.b_offset[batch];
    const int64_t a_batch = s.m * s.k > 0 ? a_off / (s.m * s.k) : 0;
    const int64_t b_batch = s.k * s.n > 0 ? b_off / (s.k * s.n) : 0;
    for (int64_t m = 0; m < s.m; ++m) {
      WidenSpan(a, a_off + m * s.k, s.k, &a_zeros[static_cast<size_t>(a_side(a_batch, m))], 0,
                a16.data() + m * s.k);
    }
    for (int64_t k = 0; k < s.k && s.n > 0; ++k) {
      WidenSpan(b, b_off + k * s.n, s.n, &b_zeros[static_cast<size_t>(b_side(b_batch, 0))], b_step,
                b16.data() + k * s.n);
    }
    Int16Gemm(ctx.pool, ctx.isa, s.m, s.k, s.n, a16.data(), s.k, b16.data(), s.n, sums.data(), s.n);
    epilogue(a_batch, b_batch, sums, static_cast<int64_t>(batch));
  }
}

}  // namespace

std::vector<Tensor> MatMulIntegerKernel(const KernelContext& ctx, const Attributes& /*attrs*/,
                                        KernelInputs inputs) {
  constexpr std::string_view kOp = "MatMulInteger";
  CheckInputCount(kOp, inputs, 2, 4);
  const Tensor& a = RequiredInput(kOp, inputs, 0, "A");
  const Tensor& b = RequiredInput(kOp, inputs, 1, "B");
  const Tensor* a_zp = OptionalInput(inputs, 2);
  const Tensor* b_zp = OptionalInput(inputs, 3);
  CheckDType(kOp, "A", a, kInt8Types);
  CheckDType(kOp, "B", b, kInt8Types);
  if (a_zp != nullptr) CheckDType(kOp, "a_zero_point", *a_zp, {a.dtype()});
  if (b_zp != nullptr) CheckDType(kOp, "b_zero_point", *b_zp, {b.dtype()});
  const MatMulShapes s = ResolveMatMulShapes(kOp, a.shape(), b.shape());
  Tensor y = Tensor::uninitialized(DType::kInt32, Shape(s.output));
  int32_t* yp = y.data<int32_t>();
  RunIntMatMul(kOp, ctx, a, b, a_zp, b_zp, s,
               [&](int64_t, int64_t, const std::vector<int32_t>& sums, int64_t batch) {
                 std::copy(sums.begin(), sums.end(), yp + batch * s.m * s.n);
               });
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

std::vector<Tensor> QLinearMatMulKernel(const KernelContext& ctx, const Attributes& /*attrs*/,
                                        KernelInputs inputs) {
  constexpr std::string_view kOp = "QLinearMatMul";
  CheckInputCount(kOp, inputs, 8, 8);
  const Tensor& a = RequiredInput(kOp, inputs, 0, "a");
  const Tensor& a_scale = RequiredInput(kOp, inputs, 1, "a_scale");
  const Tensor* a_zp = OptionalInput(inputs, 2);
  const Tensor& b = RequiredInput(kOp, inputs, 3, "b");
  const Tensor& b_scale = RequiredInput(kOp, inputs, 4, "b_scale");
  const Tensor* b_zp = OptionalInput(inputs, 5);
  const Tensor& y_scale = RequiredInput(kOp, inputs, 6, "y_scale");
  const Tensor* y_zp = OptionalInput(inputs, 7);
  CheckDType(kOp, "a", a, kInt8Types);
  CheckDType(kOp, "b", b, kInt8Types);
  if (a_zp != nullptr) CheckDType(kOp, "a_zero_point", *a_zp, {a.dtype()});
  if (b_zp != nullptr) CheckDType(kOp, "b_zero_point", *b_zp, {b.dtype()});
  if (y_zp != nullptr) CheckDType(kOp, "y_zero_point", *y_zp, kInt8Types);
  const std::initializer_list<DType> kScaleTypes = {DType::kFloat32, DType::kFloat16,
                                                    DType::kBFloat16};
  CheckDType(kOp, "a_scale", a_scale, kScaleTypes);
  CheckDType(kOp, "b_scale", b_scale, {a_scale.dtype()});
  CheckDType(kOp, "y_scale", y_scale, {a_scale.dtype()});
  if (y_scale.num_elements() != 1 || (y_zp != nullptr && y_zp->num_elements() != 1)) {
    ThrowKernelError(kOp, "y_scale " + y_scale.shape().to_string() +
                              " and y_zero_point must be per tensor (one value each)");
  }
  const MatMulShapes s = ResolveMatMulShapes(kOp, a.shape(), b.shape());
  const SideIndex a_scale_side = ResolveSide(kOp, "a_scale", a_scale, a.shape(), true, s.m);
  const SideIndex b_scale_side = ResolveSide(kOp, "b_scale", b_scale, b.shape(), false, s.n);
  const std::vector<float> a_scales = quant::ReadFloats(a_scale);
  const std::vector<float> b_scales = quant::ReadFloats(b_scale);
  const float y_s = quant::ReadFloats(y_scale)[0];
  const DType out_dtype = y_zp != nullptr ? y_zp->dtype() : a.dtype();
  const int32_t y_zero = y_zp != nullptr ? quant::ReadInts(*y_zp)[0] : 0;
  const quant::IntRange range = quant::RangeOf(out_dtype);
  const DType scale_dtype = a_scale.dtype();

  Tensor y = Tensor::uninitialized(out_dtype, Shape(s.output));
  RunIntMatMul(
      kOp, ctx, a, b, a_zp, b_zp, s,
      [&](int64_t a_batch, int64_t b_batch, const std::vector<int32_t>& sums, int64_t batch) {
        for (int64_t m = 0; m < s.m; ++m) {
          const float as = a_scales[static_cast<size_t>(a_scale_side(a_batch, m))];
          for (int64_t n = 0; n < s.n; ++n) {
            const float bs = b_scales[static_cast<size_t>(b_scale_side(b_batch, n))];
            // The multiplier in float32, rounded once to the scales' type.
            float mult = as * bs / y_s;
            mult = quant::RoundTo(scale_dtype, mult);
            quant::StoreInt(
                y, (batch * s.m + m) * s.n + n,
                quant::RoundSaturate(static_cast<double>(sums[static_cast<size_t>(m * s.n + n)]) *
                                         static_cast<double>(mult),
                                     y_zero, range));
          }
        }
      });
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace loom::kernels
