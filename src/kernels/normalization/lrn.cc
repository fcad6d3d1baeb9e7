// LRN (local response normalization across channels): X [N, C, spatial...].
// For each (n, c, position) the squares of channels
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to [0, C)
// are summed (in double) and y = x / (bias + alpha / size * sum)^beta.
// Output elements are independent and split over threads by (n, c) plane.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/half_float.h"
#include "kernels/normalization/normalization_more.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LRN";

struct LrnParams {
  double alpha, beta, bias;
  int64_t size;
};

template <typename T>
void Run(const KernelContext& ctx, const Tensor& x, const LrnParams& p, Tensor& y) {
  const int64_t n = x.shape().dim(0), channels = x.shape().dim(1);
  const int64_t planes = n * channels;
  const int64_t spatial = planes == 0 ? 0 : x.num_elements() / planes;
  const int64_t before = (p.size - 1) / 2, after = p.size - 1 - before;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: for each plane (n, c), each position: y = formula.
  threading::ParallelFor(
      ctx.pool, planes,
      static_cast<double>(spatial) * static_cast<double>(std::min(p.size, channels) + 20),
      [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const int64_t batch = plane / channels, c = plane % channels;
          const int64_t lo = std::max<int64_t>(0, c - before);
          const int64_t hi = std::min(channels - 1, c + after);
          const T* sample = in + batch * channels * spatial;
          for (int64_t i = 0; i < spatial; ++i) {
            double sum = 0;
            for (int64_t k = lo; k <= hi; ++k) {
              const double v = static_cast<double>(sample[k * spatial + i]);
              sum += v * v;
            }
            const double v = static_cast<double>(in[plane * spatial + i]);
            out[plane * spatial + i] = static_cast<T>(
                v / std::pow(p.bias + p.alpha / static_cast<double>(p.size) * sum, p.beta));
          }
        }
      });
}

}  // namespace

std::vector<Tensor> LrnKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  if (x.shape().rank() < 2) {
    ThrowKernelError(kOp, "input 'X' must have rank >= 2 ([N, C, ...]) (got shape " +
                              x.shape().to_string() + ")");
  }
  if (!attrs.has("size")) ThrowKernelError(kOp, "required attribute 'size' is missing");
  const LrnParams p{attrs.get_float("alpha", 1e-4f), attrs.get_float("beta", 0.75f),
                    attrs.get_float("bias", 1.0f), attrs.get_int("size")};
  if (p.size < 1) {
    ThrowKernelError(kOp, "attribute 'size' must be >= 1 (got " + std::to_string(p.size) + ")");
  }
  if (ComputesInFloat32(x.dtype())) {
    const Tensor wide = WidenToFloat32(x);
    const Tensor* widened[] = {&wide};
    return {NarrowFromFloat32(LrnKernel(ctx, attrs, widened)[0], x.dtype())};
  }
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat64) {
    Run<double>(ctx, x, p, y);
  } else {
    Run<float>(ctx, x, p, y);
  }
  return {y};
}

}  // namespace loom::kernels
