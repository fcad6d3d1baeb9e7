#include "kernels/conv_depthwise.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "base/aligned_buffer.h"
#include "kernels/conv_depthwise_row.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

struct DepthwiseRowEntry {
  Isa isa;
  DepthwiseRowFn row;
};

// The row kernels, best first; AVX-512 uses the AVX2 build (the row is
// memory-bound at these widths; a 16-wide build measured no faster).
constexpr std::array<DepthwiseRowEntry, 2> kRowKernels = {{
    {Isa::kAvx2Fma, f32_dwconv_row__avx2_fma},
    {Isa::kPortable, f32_dwconv_row__portable},
}};

DepthwiseRowFn RowKernelFor(Isa isa) {
  for (const auto& entry : kRowKernels) {
    if (static_cast<int>(entry.isa) <= static_cast<int>(isa)) return entry.row;
  }
  return f32_dwconv_row__portable;
}

constexpr int64_t kDepthwiseSlack = kDepthwiseBlock;

// One plane, zero-padded and split by stride phase so every tap reads a
// contiguous run: row iy, phase p holds padded[p + stride * i] at index i,
// where padded[j] = x[iy][j - pad_left] (0 outside the row).
class PhasedPlane {
 public:
  PhasedPlane(const SpatialGeometry& g, float* storage) : g_(g), data_(storage) {
    stride_ = g.stride[1];
    const int64_t padded_width =
        std::max((g.output[1] - 1) * stride_ + (g.kernel[1] - 1) * g.dilation[1] + 1,
                 g.input[1] + g.pad_begin[1]);
    phase_length_ = (padded_width + stride_ - 1) / stride_;
  }
  static int64_t Floats(const SpatialGeometry& g) {
    const int64_t s = g.stride[1];
    const int64_t padded_width = std::max(
        (g.output[1] - 1) * s + (g.kernel[1] - 1) * g.dilation[1] + 1, g.input[1] + g.pad_begin[1]);
    // Slack after the last run: the row kernel reads whole blocks.
    return g.input[0] * s * ((padded_width + s - 1) / s) + kDepthwiseSlack;
  }

  void Fill(const float* x) {
    const int64_t width = g_.input[1], pad = g_.pad_begin[1];
    // The slack is never used in an output, but is zeroed so it holds no
    // NaN or denormal that would slow the vector unit down.
    std::fill(data_, data_ + Floats(g_), 0.0f);
    for (int64_t iy = 0; iy < g_.input[0]; ++iy) {
      const float* row = x + iy * width;
      if (stride_ == 1) {
        std::memcpy(Row(iy, 0) + pad, row, static_cast<size_t>(width) * sizeof(float));
        continue;
      }
      for (int64_t phase = 0; phase < stride_; ++phase) {
        // padded[phase + stride * i] = row[phase + stride * i - pad]
        float* out = Row(iy, phase);
        const int64_t first = phase >= pad ? 0 : (pad - phase + stride_ - 1) / stride_;
        for (int64_t i = first, ix = phase + stride_ * first - pad; ix < width;
             ++i, ix += stride_) {
          out[i] = row[ix];
        }
      }
    }
  }

  // The run tap kx of input row iy reads for output columns 0, 1, ...
  const float* Tap(int64_t iy, int64_t kx) const {
    const int64_t j = kx * g_.dilation[1];
    return data_ + (iy * stride_ + j % stride_) * phase_length_ + j / stride_;
  }

 private:
  float* Row(int64_t iy, int64_t phase) { return data_ + (iy * stride_ + phase) * phase_length_; }

  const SpatialGeometry& g_;
  float* data_;
  int64_t stride_;
  int64_t phase_length_;
};

float* PlaneScratch(size_t floats) {
  thread_local std::unique_ptr<base::AlignedBuffer> buffer;
  if (!buffer || buffer->size() < floats * sizeof(float)) {
    buffer = std::make_unique<base::AlignedBuffer>(floats * sizeof(float));
  }
  return static_cast<float*>(buffer->data());
}

}  // namespace

void DepthwiseConv2d(const float* x, const float* w, const float* bias, int64_t planes,
                     int64_t channels, const SpatialGeometry& g, const Activation& activation,
                     Isa isa, float* y, threading::ThreadPool* pool) {
  const int64_t in_plane = g.input[0] * g.input[1];
  const int64_t out_plane = g.output[0] * g.output[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const DepthwiseRowFn row_kernel = RowKernelFor(isa);
  // ~0.15 ns per multiply-add vectorized plus the padded copy; a guess.
  const double cost = 0.15 * static_cast<double>(out_plane * kh * kw) + 0.5 * in_plane + 100;
  threading::ParallelFor(pool, planes, cost, [&](int64_t begin, int64_t end) {
    // Scratch per shard thread: shards of one call may run on several threads.
    float* scratch = PlaneScratch(static_cast<size_t>(PhasedPlane::Floats(g)));
    std::vector<const float*> taps(static_cast<size_t>(kh * kw));
    std::vector<float> weights(static_cast<size_t>(kh * kw));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % channels;
      PhasedPlane plane(g, scratch);
      plane.Fill(x + p * in_plane);
      const float* filter = w + c * kh * kw;
      for (int64_t oy = 0; oy < g.output[0]; ++oy) {
        // Taps whose input row lies in the padding contribute nothing.
        int num_taps = 0;
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t iy = oy * g.stride[0] - g.pad_begin[0] + ky * g.dilation[0];
          if (iy < 0 || iy >= g.input[0]) continue;
          for (int64_t kx = 0; kx < kw; ++kx) {
            taps[static_cast<size_t>(num_taps)] = plane.Tap(iy, kx);
            weights[static_cast<size_t>(num_taps)] = filter[ky * kw + kx];
            ++num_taps;
          }
        }
        float* out = y + p * out_plane + oy * g.output[1];
        row_kernel(taps.data(), weights.data(), num_taps, bias[c], out, g.output[1]);
        if (activation.kind != ActivationKind::kIdentity) {
          ApplyActivation(activation, out, g.output[1], isa);
        }
      }
    }
  });
}

}  // namespace loom::kernels
