// LpNormalization: each line along `axis`, seen as [outer, n, inner], is
// divided by its L1 or L2 norm. Lines (outer, inner) are independent and
// split over threads.
#include <cmath>
#include <string>

#include "kernels/half_float.h"
#include "kernels/normalization/normalization_more.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LpNormalization";

template <typename T>
void Run(const KernelContext& ctx, const Tensor& x, const AxisExtents& e, int64_t p, Tensor& y) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: for each line (o, i): norm over k, then y = x / norm.
  threading::ParallelFor(
      ctx.pool, e.outer * e.inner, 2.0 * static_cast<double>(e.n), [&](int64_t begin, int64_t end) {
        for (int64_t line = begin; line < end; ++line) {
          const int64_t o = line / e.inner, i = line % e.inner;
          const T* src = in + o * e.n * e.inner + i;
          T* dst = out + o * e.n * e.inner + i;
          double sum = 0;
          for (int64_t k = 0; k < e.n; ++k) {
            const double v = static_cast<double>(src[k * e.inner]);
            sum += p == 1 ? std::fabs(v) : v * v;
          }
          const double norm = p == 1 ? sum : std::sqrt(sum);
          for (int64_t k = 0; k < e.n; ++k) {
            dst[k * e.inner] = static_cast<T>(static_cast<double>(src[k * e.inner]) / norm);
          }
        }
      });
}

}  // namespace

std::vector<Tensor> LpNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input");
  CheckDType(kOp, "input", x,
             {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  const int64_t p = attrs.get_int("p", 2);
  if (p != 1 && p != 2) {
    ThrowKernelError(kOp, "attribute 'p' must be 1 or 2 (got " + std::to_string(p) + ")");
  }
  if (x.shape().rank() == 0) ThrowKernelError(kOp, "input 'input' must have rank >= 1 (got [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", -1), x.shape().rank());
  if (ComputesInFloat32(x.dtype())) {
    const Tensor wide = WidenToFloat32(x);
    const Tensor* widened[] = {&wide};
    return {NarrowFromFloat32(LpNormalizationKernel(ctx, attrs, widened)[0], x.dtype())};
  }
  const AxisExtents e = ExtentsAroundAxis(x.shape(), axis);
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat64) {
    Run<double>(ctx, x, e, p, y);
  } else {
    Run<float>(ctx, x, e, p, y);
  }
  return {y};
}

}  // namespace loom::kernels
