// ReverseSequence: seen as [time, batch, inner] (or [batch, time, inner]),
// output row (t, b) copies input row (t < len[b] ? len[b] - 1 - t : t, b).
// Rows are independent and split across threads.
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops_data.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {

std::vector<Tensor> ReverseSequenceKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  constexpr std::string_view kOp = "ReverseSequence";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input");
  const Tensor& lens_input = RequiredInput(kOp, inputs, 1, "sequence_lens");
  CheckDType(kOp, "sequence_lens", lens_input, {DType::kInt64});
  const int rank = x.shape().rank();
  if (rank < 2) {
    ThrowKernelError(kOp,
                     "input 'input' must have rank >= 2 (got shape " + x.shape().to_string() + ")");
  }
  const int64_t time_axis = attrs.get_int("time_axis", 0);
  const int64_t batch_axis = attrs.get_int("batch_axis", 1);
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0))) {
    ThrowKernelError(kOp,
                     "attributes 'time_axis' and 'batch_axis' must be 0 and 1 in some order "
                     "(got " +
                         std::to_string(time_axis) + " and " + std::to_string(batch_axis) + ")");
  }
  const int64_t steps = x.shape().dim(static_cast<int>(time_axis));
  const int64_t batch = x.shape().dim(static_cast<int>(batch_axis));
  if (lens_input.shape().rank() != 1 || lens_input.shape().dim(0) != batch) {
    ThrowKernelError(kOp, "input 'sequence_lens' must have shape [" + std::to_string(batch) +
                              "] (got " + lens_input.shape().to_string() + ")");
  }
  const int64_t* lens = lens_input.data<int64_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (lens[b] < 0 || lens[b] > steps) {
      ThrowKernelError(kOp, "input 'sequence_lens' value " + std::to_string(lens[b]) +
                                " for batch " + std::to_string(b) + " must be in [0, " +
                                std::to_string(steps) + "]");
    }
  }
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  if (out.num_elements() == 0) return {out};
  const int64_t inner = x.num_elements() / (steps * batch);
  const int64_t row_bytes = inner * static_cast<int64_t>(dtype_size(x.dtype()));
  const int64_t time_stride = time_axis == 0 ? batch : 1;  // in rows
  const int64_t batch_stride = time_axis == 0 ? 1 : steps;
  const auto* src = static_cast<const std::byte*>(x.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  // Serial loop replaced: for each row r = (t, b) in memory order, copy
  // input row (source t, b).
  threading::ParallelFor(ctx.pool, steps * batch,
                         static_cast<double>(row_bytes) * shape_ops::kCopyNsPerByte + 2.0,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             const int64_t t = time_axis == 0 ? r / batch : r % steps;
                             const int64_t b = time_axis == 0 ? r % batch : r / steps;
                             const int64_t from = t < lens[b] ? lens[b] - 1 - t : t;
                             std::memcpy(dst + r * row_bytes,
                                         src + (from * time_stride + b * batch_stride) * row_bytes,
                                         static_cast<size_t>(row_bytes));
                           }
                         });
  return {out};
}

}  // namespace loom::kernels
