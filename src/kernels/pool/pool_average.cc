// AveragePool: validation and dispatch; the loops are in pool_row_kernels.h.
#include <string>
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_common.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "AveragePool";

// Cost-model guesses for ParallelFor: per-row setup (tap-row list, border
// columns) and per window element (a load and an add, eight lanes at a time
// with AVX2; border columns are slower but few).
constexpr double kRowSetupNs = 30;
constexpr double kNsPerWindowElement = 0.2;

template <typename T>
void Run(const KernelContext& ctx, const PoolPlan& plan, const Tensor& x, Tensor& y,
         AveragePoolRowsFn<T> rows) {
  const int64_t total_rows = plan.planes * plan.rows_per_plane;
  const double cost = kRowSetupNs + static_cast<double>(plan.geometry.output.back()) *
                                        static_cast<double>(plan.window_size) * kNsPerWindowElement;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: rows(plan, in, out, 0, total_rows).
  threading::ParallelFor(ctx.pool, total_rows, cost,
                         [&](int64_t begin, int64_t end) { rows(plan, in, out, begin, end); });
}

}  // namespace

std::vector<Tensor> AveragePoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  Shape out_shape;
  PoolPlan plan = MakePoolPlan(kOp, attrs, x, {DType::kFloat32, DType::kFloat64}, &out_shape);
  const int64_t count_include_pad = attrs.get_int("count_include_pad", 0);
  if (count_include_pad != 0 && count_include_pad != 1) {
    ThrowKernelError(kOp, "attribute 'count_include_pad' must be 0 or 1 (got " +
                              std::to_string(count_include_pad) + ")");
  }
  plan.count_include_pad = count_include_pad == 1;

  Tensor y = Tensor::uninitialized(x.dtype(), out_shape);
  if (x.dtype() == DType::kFloat32) {
    Run<float>(ctx, plan, x, y, F32PoolKernelsFor(kOp, ctx.isa).average_rows);
  } else {
    Run<double>(ctx, plan, x, y, average_pool_rows__portable);
  }
  return {y};
}

}  // namespace loom::kernels
