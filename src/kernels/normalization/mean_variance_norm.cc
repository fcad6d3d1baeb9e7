// MeanVarianceNormalization: statistics over `axes`, one per combination of
// the kept axes. Each element's statistics slot is the dot product of its
// multi-index with `slot_stride` (0 on reduced axes). Two serial passes
// accumulate sums and squared deviations per slot in double (fixed element
// order: deterministic); the final pass, split over threads, normalizes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/half_float.h"
#include "kernels/normalization/normalization_more.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "MeanVarianceNormalization";
constexpr double kEpsilon = 1e-9;  // the ONNX function body's constant

// Calls fn(flat index, slot) for every element in row-major order.
template <typename Fn>
void ForEachSlot(const std::vector<int64_t>& dims, const std::vector<int64_t>& slot_stride,
                 int64_t begin, int64_t end, Fn&& fn) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> index(dims.size(), 0);
  int64_t slot = 0, rest = begin;
  for (int d = rank - 1; d >= 0; --d) {
    index[d] = rest % dims[d];
    rest /= dims[d];
    slot += index[d] * slot_stride[d];
  }
  for (int64_t i = begin; i < end; ++i) {
    fn(i, slot);
    for (int d = rank - 1; d >= 0; --d) {
      slot += slot_stride[d];
      if (++index[d] < dims[d]) break;
      slot -= slot_stride[d] * dims[d];
      index[d] = 0;
    }
  }
}

template <typename T>
void Run(const KernelContext& ctx, const Tensor& x, const std::vector<bool>& reduced, Tensor& y) {
  const std::vector<int64_t>& dims = x.shape().dims();
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> slot_stride(dims.size(), 0);
  int64_t slots = 1, count = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (reduced[d]) {
      count *= dims[d];
    } else {
      slot_stride[d] = slots;
      slots *= dims[d];
    }
  }
  const int64_t n = x.num_elements();
  if (n == 0) return;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  std::vector<double> mean(static_cast<size_t>(slots), 0.0),
      square(static_cast<size_t>(slots), 0.0);
  ForEachSlot(dims, slot_stride, 0, n, [&](int64_t i, int64_t s) {
    mean[static_cast<size_t>(s)] += static_cast<double>(in[i]);
  });
  for (double& m : mean) m /= static_cast<double>(count);
  ForEachSlot(dims, slot_stride, 0, n, [&](int64_t i, int64_t s) {
    const double d = static_cast<double>(in[i]) - mean[static_cast<size_t>(s)];
    square[static_cast<size_t>(s)] += d * d;
  });
  std::vector<double> denominator(static_cast<size_t>(slots));
  for (size_t s = 0; s < denominator.size(); ++s) {
    denominator[s] = std::sqrt(square[s] / static_cast<double>(count)) + kEpsilon;
  }
  // Serial equivalent: for i < n: y[i] = (x[i] - mean[slot]) / denominator[slot].
  threading::ParallelFor(ctx.pool, n, 2.0, [&](int64_t begin, int64_t end) {
    ForEachSlot(dims, slot_stride, begin, end, [&](int64_t i, int64_t s) {
      out[i] = static_cast<T>((static_cast<double>(in[i]) - mean[static_cast<size_t>(s)]) /
                              denominator[static_cast<size_t>(s)]);
    });
  });
}

}  // namespace

std::vector<Tensor> MeanVarianceNormalizationKernel(const KernelContext& ctx,
                                                    const Attributes& attrs, KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  const int rank = x.shape().rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : attrs.get_ints("axes", {0, 2, 3})) {
    const int a = NormalizeAxis(kOp, axis, rank);
    if (reduced[static_cast<size_t>(a)]) {
      ThrowKernelError(kOp, "attribute 'axes' names axis " + std::to_string(a) + " twice");
    }
    reduced[static_cast<size_t>(a)] = true;
  }
  if (ComputesInFloat32(x.dtype())) {
    const Tensor wide = WidenToFloat32(x);
    const Tensor* widened[] = {&wide};
    return {NarrowFromFloat32(MeanVarianceNormalizationKernel(ctx, attrs, widened)[0], x.dtype())};
  }
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat64) {
    Run<double>(ctx, x, reduced, y);
  } else {
    Run<float>(ctx, x, reduced, y);
  }
  return {y};
}

}  // namespace loom::kernels
