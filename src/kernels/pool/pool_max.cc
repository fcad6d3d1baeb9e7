// MaxPool: validation and dispatch; the loops are in pool_row_kernels.h.
#include <string>
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_common.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "MaxPool";

// Cost-model guesses for ParallelFor: per-row setup (tap-row list, border
// columns) and per window element (a load, a compare and two blends, eight
// lanes at a time with AVX2; border columns are slower but few).
constexpr double kRowSetupNs = 30;
constexpr double kNsPerWindowElement = 0.3;

template <typename T, typename RowsFn>
void Run(const KernelContext& ctx, const PoolPlan& plan, const Tensor& x, Tensor& y,
         int64_t* out_indices, RowsFn rows) {
  const int64_t total_rows = plan.planes * plan.rows_per_plane;
  const double cost = kRowSetupNs + static_cast<double>(plan.geometry.output.back()) *
                                        static_cast<double>(plan.window_size) * kNsPerWindowElement;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: rows(plan, in, out, out_indices, 0, total_rows).
  threading::ParallelFor(ctx.pool, total_rows, cost, [&](int64_t begin, int64_t end) {
    rows(plan, in, out, out_indices, begin, end);
  });
}

}  // namespace

std::vector<Tensor> MaxPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  Shape out_shape;
  PoolPlan plan = MakePoolPlan(
      kOp, attrs, x, {DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kUInt8}, &out_shape);
  const int64_t storage_order = attrs.get_int("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) {
    ThrowKernelError(kOp,
                     "attribute 'storage_order' must be 0 (row major) or 1 (column major) (got " +
                         std::to_string(storage_order) + ")");
  }
  plan.column_major_indices = storage_order == 1;

  Tensor y = Tensor::uninitialized(x.dtype(), out_shape);
  // Indices only when the node has that output (or the caller wants all).
  const bool with_indices = ctx.num_outputs != 1;
  Tensor indices = with_indices ? Tensor(DType::kInt64, out_shape) : Tensor();
  int64_t* ip = with_indices ? indices.data<int64_t>() : nullptr;
  switch (x.dtype()) {
    case DType::kFloat32:
      Run<float>(ctx, plan, x, y, ip, F32PoolKernelsFor(kOp, ctx.isa).max_rows);
      break;
    case DType::kFloat64:
      Run<double>(ctx, plan, x, y, ip, MaxPoolRowsFn<double>{max_pool_rows__portable});
      break;
    case DType::kInt8:
      Run<int8_t>(ctx, plan, x, y, ip, MaxPoolRowsFn<int8_t>{max_pool_rows__portable});
      break;
    default:  // kUInt8; MakePoolPlan checked the dtype
      Run<uint8_t>(ctx, plan, x, y, ip, MaxPoolRowsFn<uint8_t>{max_pool_rows__portable});
      break;
  }
  if (!with_indices) return {y};
  return {y, indices};
}

}  // namespace loom::kernels
