// Pooling on the blocked layout (nchwc.h): MaxPool, AveragePool and the
// global pools, each lane its own channel. Windows are clipped to the input
// per output pixel (no padded copy: a pool reads each input a few times at
// most). Parallel over (image, block, output row).
#include <algorithm>
#include <limits>
#include <string>

#include "kernels/nchwc/nchwc.h"
#include "kernels/nchwc/nchwc_micro_kernel.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr double kNsPerLaneOp = 0.1;

// A global pool reads its input once, and at intra 2 or more the conv before
// it has usually written that input on all threads, block-major like the
// units here (a squeeze-excitation block's pool follows a depthwise conv):
// split over the same threads, each reads mostly what it wrote. At 0.1 ns a
// float (kNsPerLaneOp) they ran inline and read half their input from the
// other core: MobileNet-V3's pools 2.5-5 us at intra 1 took 6-15.5 us at
// intra 2. Costed as a copy (0.5 ns a float) from 64 KiB up, in one process
// alternating (bench/results/nchwc-chunks-2026-12-05.md): MobileNet-V3 at
// intra 2 1.016x, LR-ASPP 1.021x, EfficientNet-B0 1.024x; 0.2 ns a float
// about half of that.
constexpr double kGlobalPoolNsPerFloat = 0.5;
constexpr int64_t kGlobalPoolParallelMinBytes = 64 * 1024;

struct BlockedInput {
  int64_t batch, blocks, rows, cols, block;
};

BlockedInput CheckBlocked(std::string_view op, const Tensor& x) {
  const int64_t block = CheckBlockedInput(op, x);
  return {x.shape().dim(0), x.shape().dim(1), x.shape().dim(2), x.shape().dim(3), block};
}

enum class PoolKind { kMax, kAverage, kAverageIncludePad };

// The plain loops, for a block the ISA's table does not cover.
template <int B>
void PoolRow(PoolKind kind, const SpatialGeometry& g, const float* in, int64_t oh, float* out) {
  const int64_t rows = g.input[0], cols = g.input[1];
  const int64_t ih0 = oh * g.stride[0] - g.pad_begin[0];
  for (int64_t ow = 0; ow < g.output[1]; ++ow) {
    const int64_t iw0 = ow * g.stride[1] - g.pad_begin[1];
    float acc[B];
    const float init = kind == PoolKind::kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
    for (int l = 0; l < B; ++l) acc[l] = init;
    int64_t real = 0, padded = 0;
    for (int64_t kh = 0; kh < g.kernel[0]; ++kh) {
      const int64_t ih = ih0 + kh * g.dilation[0];
      const bool row_in_pad = ih >= -g.pad_begin[0] && ih < rows + g.pad_end[0];
      for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
        const int64_t iw = iw0 + kw * g.dilation[1];
        if (row_in_pad && iw >= -g.pad_begin[1] && iw < cols + g.pad_end[1]) ++padded;
        if (ih < 0 || ih >= rows || iw < 0 || iw >= cols) continue;
        ++real;
        const float* x = in + (ih * cols + iw) * B;
        if (kind == PoolKind::kMax) {
          for (int l = 0; l < B; ++l) acc[l] = std::max(acc[l], x[l]);
        } else {
          for (int l = 0; l < B; ++l) acc[l] += x[l];
        }
      }
    }
    float* y = out + ow * B;
    if (kind == PoolKind::kMax) {
      for (int l = 0; l < B; ++l) y[l] = acc[l];
    } else {
      const int64_t divisor = kind == PoolKind::kAverageIncludePad ? padded : real;
      const float scale = divisor == 0 ? 0.0f : 1.0f / static_cast<float>(divisor);
      for (int l = 0; l < B; ++l) y[l] = acc[l] * scale;
    }
  }
}

std::vector<Tensor> WindowPool(std::string_view op, PoolKind kind, const KernelContext& ctx,
                               const Attributes& attrs, KernelInputs inputs) {
  CheckInputCount(op, inputs, 1, 1);
  const Tensor& x = RequiredInput(op, inputs, 0, "X");
  const BlockedInput in = CheckBlocked(op, x);
  const std::vector<int64_t> kernel = attrs.get_ints("kernel_shape");
  if (kernel.size() != 2) {
    ThrowKernelError(op, "attribute 'kernel_shape' must have 2 values (got " +
                             std::to_string(kernel.size()) + ")");
  }
  SpatialGeometryOptions options;
  options.allow_ceil_mode = true;
  const SpatialGeometry g =
      ResolveSpatialGeometry(op, attrs, std::vector<int64_t>{in.rows, in.cols}, kernel, options);
  Tensor y = Tensor::uninitialized(
      DType::kFloat32, Shape({in.batch, in.blocks, g.output[0], g.output[1], in.block}));
  if (y.num_elements() == 0) return {y};
  const float* src = x.data<float>();
  float* dst = y.data<float>();
  const int64_t out_rows = g.output[0];
  const int64_t in_plane = in.rows * in.cols * in.block;
  const int64_t out_plane = g.output[0] * g.output[1] * in.block;
  const double cost =
      kNsPerLaneOp * static_cast<double>(g.output[1] * in.block * kernel[0] * kernel[1]);
  const NchwcMicroKernels* mk = NchwcMicroKernelsForBlock(ctx.isa, in.block);
  NchwcPoolParams p;
  p.in_rows = in.rows;
  p.in_cols = in.cols;
  p.kernel_h = g.kernel[0];
  p.kernel_w = g.kernel[1];
  p.stride_h = g.stride[0];
  p.stride_w = g.stride[1];
  p.dilation_h = g.dilation[0];
  p.dilation_w = g.dilation[1];
  p.pad_top = g.pad_begin[0];
  p.pad_left = g.pad_begin[1];
  p.pad_bottom = g.pad_end[0];
  p.pad_right = g.pad_end[1];
  p.out_cols = g.output[1];
  p.max = kind == PoolKind::kMax;
  p.count_include_pad = kind == PoolKind::kAverageIncludePad;
  threading::ParallelFor(ctx.pool, in.batch * in.blocks * out_rows, cost,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t u = begin; u < end; ++u) {
                             const int64_t plane = u / out_rows, oh = u % out_rows;
                             const float* plane_in = src + plane * in_plane;
                             float* row_out = dst + plane * out_plane + oh * g.output[1] * in.block;
                             if (mk != nullptr) {
                               NchwcPoolParams row = p;
                               row.input = plane_in;
                               mk->pool_row(row, oh, row_out);
                             } else if (in.block == 16) {
                               PoolRow<16>(kind, g, plane_in, oh, row_out);
                             } else {
                               PoolRow<8>(kind, g, plane_in, oh, row_out);
                             }
                           }
                         });
  return {y};
}

// The plain loop, for a block the ISA's table does not cover.
template <int B>
void GlobalPoolPlane(bool max, const float* in, int64_t pixels, float* out) {
  float acc[B];
  for (int l = 0; l < B; ++l) acc[l] = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  for (int64_t i = 0; i < pixels; ++i) {
    const float* x = in + i * B;
    if (max) {
      for (int l = 0; l < B; ++l) acc[l] = std::max(acc[l], x[l]);
    } else {
      for (int l = 0; l < B; ++l) acc[l] += x[l];
    }
  }
  const float scale = max ? 1.0f : 1.0f / static_cast<float>(pixels);
  for (int l = 0; l < B; ++l) out[l] = max ? acc[l] : acc[l] * scale;
}

std::vector<Tensor> GlobalPool(std::string_view op, bool max, const KernelContext& ctx,
                               KernelInputs inputs) {
  CheckInputCount(op, inputs, 1, 1);
  const Tensor& x = RequiredInput(op, inputs, 0, "X");
  const BlockedInput in = CheckBlocked(op, x);
  const int64_t pixels = in.rows * in.cols;
  if (pixels == 0)
    ThrowKernelError(op,
                     "input 'X' has an empty spatial extent (shape " + x.shape().to_string() + ")");
  Tensor y = Tensor::uninitialized(DType::kFloat32, Shape({in.batch, in.blocks, 1, 1, in.block}));
  const float* src = x.data<float>();
  float* dst = y.data<float>();
  const NchwcMicroKernels* mk = NchwcMicroKernelsForBlock(ctx.isa, in.block);
  threading::ParallelFor(
      ctx.pool, in.batch * in.blocks,
      threading::MemoryBoundCost(
          in.batch * in.blocks * pixels * in.block * static_cast<int64_t>(sizeof(float)),
          kGlobalPoolNsPerFloat * static_cast<double>(pixels * in.block),
          kGlobalPoolParallelMinBytes),
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          if (mk != nullptr) {
            mk->global_pool(max, src + p * pixels * in.block, pixels, dst + p * in.block);
          } else if (in.block == 16) {
            GlobalPoolPlane<16>(max, src + p * pixels * 16, pixels, dst + p * 16);
          } else {
            GlobalPoolPlane<8>(max, src + p * pixels * 8, pixels, dst + p * 8);
          }
        }
      });
  return {y};
}

}  // namespace

int64_t CheckBlockedInput(std::string_view op, const Tensor& x) {
  CheckDType(op, "X", x, {DType::kFloat32});
  CheckRank(op, "X", x, 5);
  const int64_t block = x.shape().dim(4);
  if (block != 8 && block != 16) {
    ThrowKernelError(op, "input 'X' must be blocked by 8 or 16 channels (got shape " +
                             x.shape().to_string() + ")");
  }
  return block;
}

std::vector<Tensor> NchwcMaxPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs) {
  if (attrs.get_int("storage_order", 0) != 0) {
    ThrowKernelError("NchwcMaxPool", "attribute 'storage_order' must be 0");
  }
  return WindowPool("NchwcMaxPool", PoolKind::kMax, ctx, attrs, inputs);
}

std::vector<Tensor> NchwcAveragePoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs) {
  const int64_t include = attrs.get_int("count_include_pad", 0);
  if (include != 0 && include != 1) {
    ThrowKernelError("NchwcAveragePool", "attribute 'count_include_pad' must be 0 or 1 (got " +
                                             std::to_string(include) + ")");
  }
  return WindowPool("NchwcAveragePool",
                    include == 1 ? PoolKind::kAverageIncludePad : PoolKind::kAverage, ctx, attrs,
                    inputs);
}

std::vector<Tensor> NchwcGlobalAveragePoolKernel(const KernelContext& ctx, const Attributes&,
                                                 KernelInputs inputs) {
  return GlobalPool("NchwcGlobalAveragePool", false, ctx, inputs);
}

std::vector<Tensor> NchwcGlobalMaxPoolKernel(const KernelContext& ctx, const Attributes&,
                                             KernelInputs inputs) {
  return GlobalPool("NchwcGlobalMaxPool", true, ctx, inputs);
}

}  // namespace loom::kernels
