// GlobalMaxPool and GlobalAveragePool: one result per (n, c) plane.
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_common.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Cost-model guess for ParallelFor: a streaming load and a max or add per
// element, sixteen lanes at a time; ~0.15 ns per element from memory, plus
// a few ns per plane for the lane combine.
constexpr double kPlaneSetupNs = 5;
constexpr double kNsPerElement = 0.15;

enum class GlobalKind { kMax, kAverage };

template <typename T>
void Run(const KernelContext& ctx, const Tensor& x, int64_t planes, Tensor& y,
         GlobalPoolPlanesFn<T> fn) {
  const int64_t plane_size = planes == 0 ? 0 : x.num_elements() / planes;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  const double cost = kPlaneSetupNs + static_cast<double>(plane_size) * kNsPerElement;
  // Serial equivalent: fn(in, plane_size, out, 0, planes).
  threading::ParallelFor(ctx.pool, planes, cost,
                         [&](int64_t begin, int64_t end) { fn(in, plane_size, out, begin, end); });
}

std::vector<Tensor> GlobalPool(std::string_view op, GlobalKind kind, const KernelContext& ctx,
                               KernelInputs inputs) {
  CheckInputCount(op, inputs, 1, 1);
  const Tensor& x = RequiredInput(op, inputs, 0, "X");
  Shape out_shape;
  const int64_t planes =
      MakeGlobalPoolPlanes(op, x, {DType::kFloat32, DType::kFloat64}, &out_shape);
  Tensor y(x.dtype(), out_shape);
  if (planes == 0) return {y};
  if (x.dtype() == DType::kFloat32) {
    const F32PoolKernels& kernels = F32PoolKernelsFor(op, ctx.isa);
    Run<float>(ctx, x, planes, y,
               kind == GlobalKind::kMax ? kernels.global_max : kernels.global_average);
  } else {
    Run<double>(ctx, x, planes, y,
                kind == GlobalKind::kMax
                    ? GlobalPoolPlanesFn<double>{global_max_pool__portable}
                    : GlobalPoolPlanesFn<double>{global_average_pool__portable});
  }
  return {y};
}

}  // namespace

std::vector<Tensor> GlobalMaxPoolKernel(const KernelContext& ctx, const Attributes& /*attrs*/,
                                        KernelInputs inputs) {
  return GlobalPool("GlobalMaxPool", GlobalKind::kMax, ctx, inputs);
}

std::vector<Tensor> GlobalAveragePoolKernel(const KernelContext& ctx, const Attributes& /*attrs*/,
                                            KernelInputs inputs) {
  return GlobalPool("GlobalAveragePool", GlobalKind::kAverage, ctx, inputs);
}

}  // namespace loom::kernels
