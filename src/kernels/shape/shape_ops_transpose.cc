// Transpose. After merging axes that stay neighbours (SimplifyPlan), two
// cases remain:
// - the input's innermost axis stays innermost: rows are contiguous in both
//   tensors and StridedCopy memcpys them;
// - it moves (NCHW -> NHWC, a matrix transpose): a batch of 2-D transposes
//   between output axis `a` (contiguous in the input) and the last output
//   axis (contiguous in the output), done in kTile x kTile tiles so both the
//   rows read and the rows written stay in L1.
// There is no ISA-specific variant: the loops only move bytes and are
// bound by memory traffic. An AVX2 8x8 shuffle transpose for 4-byte
// elements is the obvious next step if profiles show this tile loop hot;
// it has not been measured.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

using shape_ops::StridedCopyPlan;

// 32 x 32 elements: at most 8 KiB per tile (8-byte elements), so a tile's
// source and destination lines fit in a 32 KiB L1 together.
constexpr int64_t kTile = 32;

// The batched, tiled 2-D transpose described at the top. `plan` is
// simplified, its last stride is not 1 and in_strides[a] == 1.
template <size_t kSize>
void TiledTranspose(const KernelContext& ctx, const StridedCopyPlan& plan, int a,
                    const std::byte* in, std::byte* out) {
  const int rank = static_cast<int>(plan.dims.size());
  const int last = rank - 1;
  std::vector<int64_t> out_strides(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) out_strides[d] = out_strides[d + 1] * plan.dims[d + 1];
  std::vector<int> batch_axes;
  int64_t batch = 1;
  for (int d = 0; d < last; ++d) {
    if (d == a) continue;
    batch_axes.push_back(d);
    batch *= plan.dims[d];
  }
  const int64_t rows = plan.dims[a];     // contiguous in the input
  const int64_t cols = plan.dims[last];  // contiguous in the output
  const int64_t row_out_stride = out_strides[a];
  const int64_t col_in_stride = plan.in_strides[last];
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  constexpr auto kBytes = static_cast<int64_t>(kSize);

  // Serial loop replaced: for each batch index, for each strip of kTile
  // rows: transpose the strip tile by tile. Strips write disjoint outputs.
  threading::ParallelFor(
      ctx.pool, batch * row_tiles,
      threading::MemoryBoundCost(
          batch * rows * cols * kBytes,
          static_cast<double>(std::min(kTile, rows) * cols) * shape_ops::kGatherNsPerElement * 0.5),
      [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
          int64_t b = unit / row_tiles;
          const int64_t i0 = unit % row_tiles * kTile;
          const int64_t i1 = std::min(rows, i0 + kTile);
          int64_t in_base = plan.in_offset;
          int64_t out_base = 0;
          for (auto it = batch_axes.rbegin(); it != batch_axes.rend(); ++it) {
            const int64_t index = b % plan.dims[*it];
            b /= plan.dims[*it];
            in_base += index * plan.in_strides[*it];
            out_base += index * out_strides[*it];
          }
          for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
            const int64_t j1 = std::min(cols, j0 + kTile);
            for (int64_t i = i0; i < i1; ++i) {
              const std::byte* src = in + (in_base + i + j0 * col_in_stride) * kBytes;
              std::byte* dst = out + (out_base + i * row_out_stride + j0) * kBytes;
              for (int64_t j = 0; j < j1 - j0; ++j) {
                std::memcpy(dst + j * kBytes, src + j * col_in_stride * kBytes, kSize);
              }
            }
          }
        }
      });
}

}  // namespace

std::vector<Tensor> TransposeKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "Transpose";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const int rank = data.shape().rank();
  std::vector<int64_t> reversed(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
  const std::vector<int64_t> perm_attr = attrs.get_ints("perm", reversed);
  if (static_cast<int>(perm_attr.size()) != rank) {
    ThrowKernelError(kOp, "attribute 'perm' has " + std::to_string(perm_attr.size()) +
                              " entries, expected " + std::to_string(rank) +
                              " (the rank of 'data' shape " + data.shape().to_string() + ")");
  }
  const std::vector<int> perm = shape_ops::NormalizeAxes(kOp, perm_attr, rank);

  const std::vector<int64_t> in_strides = shape_ops::DenseStrides(data.shape());
  StridedCopyPlan plan;
  plan.element_size = dtype_size(data.dtype());
  for (int d = 0; d < rank; ++d) {
    plan.dims.push_back(data.shape().dims()[perm[d]]);
    plan.in_strides.push_back(in_strides[perm[d]]);
  }
  Tensor output(data.dtype(), Shape(plan.dims));
  if (output.num_elements() == 0) return {output};

  const StridedCopyPlan simple = shape_ops::SimplifyPlan(plan);
  const auto unit_axis = std::find(simple.in_strides.begin(), simple.in_strides.end(), int64_t{1});
  if (simple.in_strides.back() == 1 || unit_axis == simple.in_strides.end()) {
    shape_ops::StridedCopy(ctx, simple, data.raw_data(), output.raw_data());
    return {output};
  }
  const int a = static_cast<int>(unit_axis - simple.in_strides.begin());
  const auto* in = static_cast<const std::byte*>(data.raw_data());
  auto* out = static_cast<std::byte*>(output.raw_data());
  switch (plan.element_size) {
    case 1:
      TiledTranspose<1>(ctx, simple, a, in, out);
      break;
    case 2:
      TiledTranspose<2>(ctx, simple, a, in, out);
      break;
    case 4:
      TiledTranspose<4>(ctx, simple, a, in, out);
      break;
    default:
      TiledTranspose<8>(ctx, simple, a, in, out);
      break;
  }
  return {output};
}

}  // namespace loom::kernels
