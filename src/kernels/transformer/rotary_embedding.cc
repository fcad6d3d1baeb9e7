// RotaryEmbedding (opset 23; transformer.h). One unit is one (batch,
// position, head) row of X: its cos/sin row is looked up once (through
// position_ids when given) and the first R dims rotated pairwise, the rest
// copied. Computed in float32 (float16/bfloat16 widened and rounded once).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/transformer/compute_buffer.h"
#include "kernels/transformer/transformer.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "RotaryEmbedding";
// Guessed: a few multiply-adds per element, memory bound.
constexpr double kCostPerElementNs = 0.5;

struct RotaryGeometry {
  int64_t batch = 0, heads = 0, seq = 0, depth = 0, rotary = 0;
  bool four_d = false, interleaved = false;

  int64_t RowOffset(int64_t b, int64_t s, int64_t h) const {
    return four_d ? ((b * heads + h) * seq + s) * depth : ((b * seq + s) * heads + h) * depth;
  }
};

void RotateRow(const float* __restrict x, const float* __restrict c, const float* __restrict sn,
               const RotaryGeometry& g, float* __restrict y) {
  const int64_t half = g.rotary / 2;
  if (g.interleaved) {
    for (int64_t j = 0; j < half; ++j) {
      const float x1 = x[2 * j], x2 = x[2 * j + 1];
      y[2 * j] = c[j] * x1 - sn[j] * x2;
      y[2 * j + 1] = sn[j] * x1 + c[j] * x2;
    }
  } else {
    for (int64_t j = 0; j < half; ++j) {
      const float x1 = x[j], x2 = x[j + half];
      y[j] = c[j] * x1 - sn[j] * x2;
      y[j + half] = sn[j] * x1 + c[j] * x2;
    }
  }
  std::copy(x + g.rotary, x + g.depth, y + g.rotary);
}

void CheckCache(std::string_view name, const Tensor& cache, const Tensor& x,
                const std::vector<int64_t>& expected, bool leading_free) {
  CheckDType(kOp, name, cache, {x.dtype()});
  bool ok = cache.shape().rank() == static_cast<int>(expected.size());
  for (size_t a = leading_free ? 1 : 0; ok && a < expected.size(); ++a) {
    ok = cache.shape().dim(static_cast<int>(a)) == expected[a];
  }
  if (!ok) {
    std::string want = "[";
    for (size_t a = 0; a < expected.size(); ++a) {
      want += (a ? ", " : "") +
              (leading_free && a == 0 ? std::string("max_position") : std::to_string(expected[a]));
    }
    ThrowKernelError(kOp, "input '" + std::string(name) + "' must have shape " + want +
                              "] (got shape " + cache.shape().to_string() + ")");
  }
}

}  // namespace

std::vector<Tensor> RotaryEmbeddingKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 3, 4);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& cos_cache = RequiredInput(kOp, inputs, 1, "cos_cache");
  const Tensor& sin_cache = RequiredInput(kOp, inputs, 2, "sin_cache");
  const Tensor* position_ids = OptionalInput(inputs, 3);
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat16, DType::kBFloat16});
  RotaryGeometry g;
  g.interleaved = attrs.get_int("interleaved", 0) != 0;
  const int64_t num_heads = attrs.get_int("num_heads", 0);
  const int rank = x.shape().rank();
  if (rank == 4) {
    g.four_d = true;
    g.batch = x.shape().dim(0);
    g.heads = x.shape().dim(1);
    g.seq = x.shape().dim(2);
    g.depth = x.shape().dim(3);
    if (num_heads != 0 && num_heads != g.heads) {
      ThrowKernelError(kOp, "attribute 'num_heads' (" + std::to_string(num_heads) +
                                ") must match X's heads " + std::to_string(g.heads) +
                                " (got shape " + x.shape().to_string() + ")");
    }
  } else if (rank == 3) {
    g.batch = x.shape().dim(0);
    g.seq = x.shape().dim(1);
    const int64_t hidden = x.shape().dim(2);
    if (num_heads <= 0 || hidden % num_heads != 0) {
      ThrowKernelError(kOp,
                       "3-D input 'X' needs attribute 'num_heads' > 0 dividing its hidden "
                       "size " +
                           std::to_string(hidden) + " (got num_heads " + std::to_string(num_heads) +
                           ")");
    }
    g.heads = num_heads;
    g.depth = hidden / num_heads;
  } else {
    ThrowKernelError(kOp,
                     "input 'X' must have rank 3 or 4 (got shape " + x.shape().to_string() + ")");
  }
  g.rotary = attrs.get_int("rotary_embedding_dim", 0);
  if (g.rotary == 0) g.rotary = g.depth;
  if (g.rotary < 0 || g.rotary > g.depth || g.rotary % 2 != 0) {
    ThrowKernelError(kOp,
                     "attribute 'rotary_embedding_dim' must be even and at most the head "
                     "size " +
                         std::to_string(g.depth) + " (got " + std::to_string(g.rotary) + ")");
  }
  const int64_t half = g.rotary / 2;
  if (position_ids != nullptr) {
    CheckDType(kOp, "position_ids", *position_ids, {DType::kInt64});
    if (!(position_ids->shape() == Shape({g.batch, g.seq}))) {
      ThrowKernelError(kOp, "input 'position_ids' must have shape [" + std::to_string(g.batch) +
                                ", " + std::to_string(g.seq) + "] (got shape " +
                                position_ids->shape().to_string() + ")");
    }
    CheckCache("cos_cache", cos_cache, x, {0, half}, true);
    CheckCache("sin_cache", sin_cache, x, {0, half}, true);
    if (!(sin_cache.shape() == cos_cache.shape())) {
      ThrowKernelError(kOp, "input 'sin_cache' must have cos_cache's shape " +
                                cos_cache.shape().to_string() + " (got shape " +
                                sin_cache.shape().to_string() + ")");
    }
    const int64_t max_position = cos_cache.shape().dim(0);
    const int64_t* ids = position_ids->data<int64_t>();
    for (int64_t i = 0; i < position_ids->num_elements(); ++i) {
      if (ids[i] < 0 || ids[i] >= max_position) {
        ThrowKernelError(kOp, "input 'position_ids' holds " + std::to_string(ids[i]) +
                                  ", outside the caches' " + std::to_string(max_position) +
                                  " positions");
      }
    }
  } else {
    CheckCache("cos_cache", cos_cache, x, {g.batch, g.seq, half}, false);
    CheckCache("sin_cache", sin_cache, x, {g.batch, g.seq, half}, false);
  }

  const Tensor xf = InComputeType<float>(x);
  const Tensor cf = InComputeType<float>(cos_cache);
  const Tensor sf = InComputeType<float>(sin_cache);
  Tensor y = Tensor::uninitialized(DType::kFloat32, x.shape());
  const float* in = xf.data<float>();
  const float* cos_rows = cf.data<float>();
  const float* sin_rows = sf.data<float>();
  const int64_t* ids = position_ids != nullptr ? position_ids->data<int64_t>() : nullptr;
  float* out = y.data<float>();
  // Serial equivalent: for each (b, s) and head h: rotate row (b, s, h).
  threading::ParallelFor(
      ctx.pool, g.batch * g.seq, kCostPerElementNs * static_cast<double>(g.heads * g.depth),
      [&](int64_t begin, int64_t end) {
        for (int64_t bs = begin; bs < end; ++bs) {
          const int64_t b = bs / g.seq, s = bs % g.seq;
          const int64_t row = ids != nullptr ? ids[bs] : bs;
          for (int64_t h = 0; h < g.heads; ++h) {
            const int64_t offset = g.RowOffset(b, s, h);
            RotateRow(in + offset, cos_rows + row * half, sin_rows + row * half, g, out + offset);
          }
        }
      });
  return {FromComputeType(y, x.dtype())};
}

}  // namespace loom::kernels
