// TensorScatter: a copy of the cache with each batch entry's update rows
// written at its write index. Seen as [prefix, max_seq, inner] around the
// axis, every (prefix, update row) pair moves one contiguous run of inner
// elements; the prefix rows are independent and split across threads.
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops_data.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {

std::vector<Tensor> TensorScatterKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs) {
  constexpr std::string_view kOp = "TensorScatter";
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& cache = RequiredInput(kOp, inputs, 0, "past_cache");
  const Tensor& update = RequiredInput(kOp, inputs, 1, "update");
  if (update.dtype() != cache.dtype()) {
    ThrowKernelError(kOp, "input 'update' must have the dtype of 'past_cache' (" +
                              std::string(dtype_name(cache.dtype())) + ", got " +
                              std::string(dtype_name(update.dtype())) + ")");
  }
  const int rank = cache.shape().rank();
  if (rank < 2) {
    ThrowKernelError(kOp, "input 'past_cache' must have rank >= 2 (got shape " +
                              cache.shape().to_string() + ")");
  }
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", -2), rank);
  if (axis == 0) ThrowKernelError(kOp, "attribute 'axis' must not be the batch axis 0");
  const std::string mode = attrs.get_string("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    ThrowKernelError(kOp, "attribute 'mode' must be linear or circular (got '" + mode + "')");
  }
  bool shapes_fit = update.shape().rank() == rank;
  for (int d = 0; shapes_fit && d < rank; ++d) {
    shapes_fit = d == axis ? update.shape().dim(d) <= cache.shape().dim(d)
                           : update.shape().dim(d) == cache.shape().dim(d);
  }
  if (!shapes_fit) {
    ThrowKernelError(kOp, "input 'update' " + update.shape().to_string() +
                              " must match 'past_cache' " + cache.shape().to_string() +
                              " except on axis " + std::to_string(axis) +
                              ", where it may not be longer");
  }
  const int64_t batch = cache.shape().dim(0);
  const AxisExtents e = ExtentsAroundAxis(cache.shape(), axis);
  const int64_t seq = update.shape().dim(axis);
  std::vector<int64_t> write(batch, 0);
  if (const Tensor* indices = OptionalInput(inputs, 2)) {
    CheckDType(kOp, "write_indices", *indices, {DType::kInt64});
    if (indices->shape().rank() != 1 || indices->shape().dim(0) != batch) {
      ThrowKernelError(kOp, "input 'write_indices' must have shape [" + std::to_string(batch) +
                                "] (got " + indices->shape().to_string() + ")");
    }
    write.assign(indices->data<int64_t>(), indices->data<int64_t>() + batch);
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (mode == "circular") {
      if (e.n > 0) write[b] = ((write[b] % e.n) + e.n) % e.n;
    } else if (write[b] < 0 || write[b] > e.n - seq) {
      ThrowKernelError(kOp, "input 'write_indices' value " + std::to_string(write[b]) +
                                " for batch " + std::to_string(b) + " plus " + std::to_string(seq) +
                                " update rows exceeds axis length " + std::to_string(e.n) +
                                " in linear mode");
    }
  }
  Tensor out = Tensor::uninitialized(cache.dtype(), cache.shape());
  if (out.num_elements() == 0) return {out};
  const int64_t element = static_cast<int64_t>(dtype_size(cache.dtype()));
  const int64_t row_bytes = e.inner * element;
  const int64_t per_batch = e.outer / batch;  // prefix rows of one batch entry
  const auto* src = static_cast<const std::byte*>(cache.raw_data());
  const auto* upd = static_cast<const std::byte*>(update.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  // Serial loop replaced: for each prefix row o: copy the cache's
  // [max_seq, inner] block, then overwrite row (write[b] + s) (mod max_seq
  // when circular) with update row s, for s < seq.
  threading::ParallelFor(
      ctx.pool, e.outer, static_cast<double>(e.n * row_bytes) * shape_ops::kCopyNsPerByte + 5.0,
      [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          std::byte* block = dst + o * e.n * row_bytes;
          std::memcpy(block, src + o * e.n * row_bytes, static_cast<size_t>(e.n * row_bytes));
          const int64_t w = write[o / per_batch];
          for (int64_t s = 0; s < seq; ++s) {
            int64_t row = w + s;
            if (row >= e.n) row -= e.n;  // circular only: linear rows stay below e.n
            std::memcpy(block + row * row_bytes, upd + (o * seq + s) * row_bytes,
                        static_cast<size_t>(row_bytes));
          }
        }
      });
  return {out};
}

}  // namespace loom::kernels
