// NchwcReorderInput / NchwcReorderOutput (nchwc.h): the layout conversions
// at the edges of a blocked region.
#include <algorithm>
#include <string>

#include "base/int_math.h"
#include "base/prefetch.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/nchwc/nchwc_micro_kernel.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

using base::CeilDiv;

// Rows of W pixels: a row copy of W * B floats costs about W * B * 0.2 ns.
// Read and write from memory: ~0.5 ns a float (16 GB/s, 8 bytes).
constexpr double kNsPerFloat = 0.5;

// Pixels per unit of work: a few pages of each plane.
constexpr int64_t kChunkPixels = 2048;

// Blocked -> plain when `to_plain`, else plain -> blocked (zero lanes past
// C), parallel over (image, block, pixel chunk). The ISA's transposing loops
// when its block matches, else plain loops.
void Reorder(const KernelContext& ctx, const float* src, float* dst, int64_t batch,
             int64_t channels, int64_t plane, int64_t block, bool to_plain) {
  const int64_t blocks = CeilDiv(channels, block);
  const int64_t chunks = std::max<int64_t>(1, CeilDiv(plane, kChunkPixels));
  const NchwcMicroKernels* mk = NchwcMicroKernelsForBlock(ctx.isa, block);
  threading::ParallelFor(
      ctx.pool, batch * blocks * chunks,
      threading::MemoryBoundCost(
          batch * blocks * plane * block * static_cast<int64_t>(sizeof(float)),
          static_cast<double>(std::min(plane, kChunkPixels) * block) * kNsPerFloat),
      [&](int64_t begin, int64_t end) {
        for (int64_t u = begin; u < end; ++u) {
          const int64_t r = u / chunks, c = u % chunks;
          const int64_t n = r / blocks, cb = r % blocks;
          const int64_t lanes = std::min(block, channels - cb * block);
          const int64_t first = c * kChunkPixels;
          const int64_t pixels = std::min(kChunkPixels, plane - first);
          const int64_t plain_offset = (n * channels + cb * block) * plane + first;
          const int64_t blocked_offset = (r * plane + first) * block;
          if (mk != nullptr) {
            if (to_plain) {
              // The unit's plain rows: `lanes` planes written a partial line at
              // a time (base/prefetch.h).
              for (int64_t l = 0; l < lanes; ++l) {
                base::PrefetchForWrite(dst + plain_offset + l * plane,
                                       static_cast<size_t>(pixels) * sizeof(float));
              }
              mk->reorder_out(src + blocked_offset, plane, lanes, pixels, dst + plain_offset);
            } else {
              mk->reorder_in(src + plain_offset, plane, lanes, pixels, dst + blocked_offset);
            }
            continue;
          }
          for (int64_t i = 0; i < pixels; ++i) {
            for (int64_t l = 0; l < block; ++l) {
              if (to_plain) {
                if (l < lanes)
                  dst[plain_offset + l * plane + i] = src[blocked_offset + i * block + l];
              } else {
                dst[blocked_offset + i * block + l] =
                    l < lanes ? src[plain_offset + l * plane + i] : 0.0f;
              }
            }
          }
        }
      });
}

}  // namespace

Tensor NchwToNchwc(const Tensor& x, int block) {
  const Tensor* inputs[] = {&x};
  return NchwcReorderInputKernel({}, Attributes().set("block", int64_t{block}), inputs)[0];
}

Tensor NchwcToNchw(const Tensor& x, int64_t channels) {
  const Tensor* inputs[] = {&x};
  return NchwcReorderOutputKernel({}, Attributes().set("channels", channels), inputs)[0];
}

std::vector<Tensor> NchwcReorderInputKernel(const KernelContext& ctx, const Attributes& attrs,
                                            KernelInputs inputs) {
  constexpr std::string_view kOp = "NchwcReorderInput";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32});
  CheckRank(kOp, "X", x, 4);
  const int64_t block = attrs.get_int("block");
  if (block != 8 && block != 16) {
    ThrowKernelError(kOp, "attribute 'block' must be 8 or 16 (got " + std::to_string(block) + ")");
  }
  const int64_t n = x.shape().dim(0), c = x.shape().dim(1);
  const int64_t plane = x.shape().dim(2) * x.shape().dim(3);
  Tensor y = Tensor::uninitialized(
      DType::kFloat32, Shape({n, CeilDiv(c, block), x.shape().dim(2), x.shape().dim(3), block}));
  if (y.num_elements() > 0)
    Reorder(ctx, x.data<float>(), y.data<float>(), n, c, plane, block, false);
  return {y};
}

std::vector<Tensor> NchwcReorderOutputKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs) {
  constexpr std::string_view kOp = "NchwcReorderOutput";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32});
  CheckRank(kOp, "X", x, 5);
  const int64_t channels = attrs.get_int("channels");
  const int64_t block = x.shape().dim(4);
  if (channels < 0 || CeilDiv(channels, std::max<int64_t>(block, 1)) != x.shape().dim(1)) {
    ThrowKernelError(kOp, "attribute 'channels' " + std::to_string(channels) +
                              " does not fit input 'X' of shape " + x.shape().to_string());
  }
  const int64_t n = x.shape().dim(0);
  const int64_t plane = x.shape().dim(2) * x.shape().dim(3);
  Tensor y = Tensor::uninitialized(DType::kFloat32,
                                   Shape({n, channels, x.shape().dim(2), x.shape().dim(3)}));
  if (y.num_elements() > 0)
    Reorder(ctx, x.data<float>(), y.data<float>(), n, channels, plane, block, true);
  return {y};
}

}  // namespace loom::kernels
