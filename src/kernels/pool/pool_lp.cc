// LpPool: the pooling geometry of MakePoolPlan (kernel_shape, strides,
// pads, auto_pad, dilations, ceil_mode), one output element at a time:
// y = (sum |x|^p over the window's in-range taps)^(1/p), accumulated in
// double. Output elements are independent and split over threads.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/half_float.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_common.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LpPool";

double PowerOf(double v, int64_t p) {
  const double a = std::fabs(v);
  if (p == 1) return a;
  if (p == 2) return a * a;
  return std::pow(a, static_cast<double>(p));
}

double RootOf(double sum, int64_t p) {
  if (p == 1) return sum;
  if (p == 2) return std::sqrt(sum);
  return std::pow(sum, 1.0 / static_cast<double>(p));
}

template <typename T>
void Run(const KernelContext& ctx, const PoolPlan& plan, int64_t p, const Tensor& x, Tensor& y) {
  const SpatialGeometry& g = plan.geometry;
  const int rank = g.rank();
  std::vector<int64_t> in_stride(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * g.input[d + 1];
  const T* in = x.data<T>();
  T* out = y.data<T>();
  const int64_t total = plan.planes * plan.out_plane_size;
  // Serial equivalent: for u < total: out[u] = root(sum of powers over u's window).
  threading::ParallelFor(ctx.pool, total, 3.0 * static_cast<double>(plan.window_size),
                         [&](int64_t begin, int64_t end) {
                           std::vector<int64_t> start(static_cast<size_t>(rank)),
                               tap(static_cast<size_t>(rank));
                           for (int64_t u = begin; u < end; ++u) {
                             const T* src = in + (u / plan.out_plane_size) * plan.plane_size;
                             int64_t rest = u % plan.out_plane_size;
                             for (int d = rank - 1; d >= 0; --d) {
                               start[d] = (rest % g.output[d]) * g.stride[d] - g.pad_begin[d];
                               rest /= g.output[d];
                             }
                             // Odometer over the window's taps, row-major.
                             std::fill(tap.begin(), tap.end(), 0);
                             double sum = 0;
                             for (int64_t w = 0; w < plan.window_size; ++w) {
                               int64_t offset = 0;
                               bool inside = true;
                               for (int d = 0; d < rank; ++d) {
                                 const int64_t pos = start[d] + tap[d] * g.dilation[d];
                                 if (pos < 0 || pos >= g.input[d]) {
                                   inside = false;
                                   break;
                                 }
                                 offset += pos * in_stride[d];
                               }
                               if (inside) sum += PowerOf(static_cast<double>(src[offset]), p);
                               for (int d = rank - 1; d >= 0; --d) {
                                 if (++tap[d] < g.kernel[d]) break;
                                 tap[d] = 0;
                               }
                             }
                             out[u] = static_cast<T>(RootOf(sum, p));
                           }
                         });
}

}  // namespace

std::vector<Tensor> LpPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  const int64_t p = attrs.get_int("p", 2);
  if (p < 1) ThrowKernelError(kOp, "attribute 'p' must be >= 1 (got " + std::to_string(p) + ")");
  if (ComputesInFloat32(x.dtype())) {
    const Tensor wide = WidenToFloat32(x);
    const Tensor* widened[] = {&wide};
    return {NarrowFromFloat32(LpPoolKernel(ctx, attrs, widened)[0], x.dtype())};
  }
  Shape out_shape;
  const PoolPlan plan = MakePoolPlan(kOp, attrs, x, {DType::kFloat32, DType::kFloat64}, &out_shape);
  Tensor y = Tensor::uninitialized(x.dtype(), out_shape);
  if (y.num_elements() == 0) return {y};
  if (x.dtype() == DType::kFloat64) {
    Run<double>(ctx, plan, p, x, y);
  } else {
    Run<float>(ctx, plan, p, x, y);
  }
  return {y};
}

std::vector<Tensor> GlobalLpPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs) {
  constexpr std::string_view kGlobal = "GlobalLpPool";
  CheckInputCount(kGlobal, inputs, 1, 1);
  const Tensor& x = RequiredInput(kGlobal, inputs, 0, "X");
  CheckDType(kGlobal, "X", x,
             {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  const int64_t p = attrs.get_int("p", 2);
  if (p < 1)
    ThrowKernelError(kGlobal, "attribute 'p' must be >= 1 (got " + std::to_string(p) + ")");
  if (x.shape().rank() < 3) {
    ThrowKernelError(kGlobal, "input 'X' must have rank >= 3 ([N, C, spatial...]), got shape " +
                                  x.shape().to_string());
  }
  const std::vector<int64_t>& dims = x.shape().dims();
  std::vector<int64_t> out_dims(dims.size(), 1);
  out_dims[0] = dims[0];
  out_dims[1] = dims[1];
  const std::vector<int64_t> spatial(dims.begin() + 2, dims.end());
  if (std::find(spatial.begin(), spatial.end(), 0) != spatial.end()) {
    return {Tensor(x.dtype(), Shape(std::move(out_dims)))};  // zeros: the root of an empty sum
  }
  const Attributes window = Attributes().set("p", p).set("kernel_shape", spatial);
  return LpPoolKernel(ctx, window, inputs);
}

}  // namespace loom::kernels
