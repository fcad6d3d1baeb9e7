#include "kernels/conv/conv_depthwise.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "base/aligned_buffer.h"
#include "kernels/conv/conv_depthwise_row.h"
#include "kernels/isa_variant.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

struct DepthwiseRowEntry {
  Isa isa;
  DepthwiseRowFn row;
};

// The row kernels; AVX-512 machines use the AVX2 kernel (no 16-wide version
// yet).
constexpr std::array<DepthwiseRowEntry, 2> kRowKernels = {{
    {Isa::kPortable, f32_dwconv_row__portable},
    {Isa::kAvx2Fma, f32_dwconv_row__avx2_fma},
}};

DepthwiseRowFn RowKernelFor(Isa isa) {
  return SelectIsaVariant("depthwise conv", kRowKernels, isa).row;
}

constexpr int64_t kDepthwiseSlack = kDepthwiseBlock;

// One input plane rearranged so that, for every tap, the inputs of all
// outputs lie in one contiguous run ("space to depth" by the strides):
// padded[iy][ix] (the plane with its zero padding) is stored in sub-plane
// (iy % sy, ix % sx) at row iy / sy, column ix / sx. Output (oy, ox) of tap
// (ky, kx) then reads sub-plane ((ky dy) % sy, (kx dx) % sx) at row
// oy + (ky dy) / sy, column ox + (kx dx) / sx — so over the output grid
// (rows of `row_length` columns, the first OW of which are real outputs) a
// tap is one run starting at Tap(ky, kx). The whole plane is then a single
// call of the row kernel.
class PhasedPlane {
 public:
  explicit PhasedPlane(const SpatialGeometry& g) : g_(g) {
    sy_ = g.stride[0];
    sx_ = g.stride[1];
    // Padded extents that cover every tap of every output.
    const int64_t height = std::max((g.output[0] - 1) * sy_ + (g.kernel[0] - 1) * g.dilation[0] + 1,
                                    g.input[0] + g.pad_begin[0]);
    const int64_t width = std::max((g.output[1] - 1) * sx_ + (g.kernel[1] - 1) * g.dilation[1] + 1,
                                   g.input[1] + g.pad_begin[1]);
    sub_height_ = (height + sy_ - 1) / sy_;
    row_length_ = (width + sx_ - 1) / sx_;
  }

  // Floats the plane needs. Grid columns past OW read up to (KW - 1) dx / sx
  // beyond their row, and the row kernel reads whole blocks: one row plus a
  // block of slack covers both.
  int64_t Floats() const {
    return sy_ * sx_ * sub_height_ * row_length_ + row_length_ + kDepthwiseSlack;
  }
  // Columns per output-grid row; the grid has OH rows.
  int64_t row_length() const { return row_length_; }

  void Fill(const float* x, float* data) const {
    // Zeroed whole, slack included, so no NaN or denormal reaches the FMAs.
    std::fill(data, data + Floats(), 0.0f);
    const int64_t width = g_.input[1];
    for (int64_t iy = 0; iy < g_.input[0]; ++iy) {
      const int64_t py = iy + g_.pad_begin[0];
      const float* row = x + iy * width;
      if (sx_ == 2) {
        FillStride2(row, SubRow(data, py % sy_, 0, py / sy_), SubRow(data, py % sy_, 1, py / sy_));
        continue;
      }
      for (int64_t phase = 0; phase < sx_; ++phase) {
        // Columns ix with (ix + pad_left) % sx == phase, at (ix + pad_left) / sx.
        float* out = SubRow(data, py % sy_, phase, py / sy_);
        int64_t ix = ((phase - g_.pad_begin[1]) % sx_ + sx_) % sx_;
        for (int64_t j = (ix + g_.pad_begin[1]) / sx_; ix < width; ix += sx_, ++j) out[j] = row[ix];
      }
    }
  }

  // Stride 2 (most strided depthwise layers): even[j] = padded[2j],
  // odd[j] = padded[2j + 1], in one pass the compiler vectorizes (a runtime
  // stride does not; it took 60% of a stride-2 layer).
  void FillStride2(const float* row, float* even, float* odd) const {
    const int64_t width = g_.input[1];
    int64_t ix = 0, jx = g_.pad_begin[1];
    if (jx % 2 == 1 && width > 0) {
      odd[jx / 2] = row[0];
      ix = 1;
      ++jx;
    }
    const int64_t pairs = (width - ix) / 2;
    float* e = even + jx / 2;
    float* o = odd + jx / 2;
    const float* in = row + ix;
    for (int64_t t = 0; t < pairs; ++t) {
      e[t] = in[2 * t];
      o[t] = in[2 * t + 1];
    }
    if (ix + 2 * pairs < width) e[pairs] = in[2 * pairs];
  }

  const float* Tap(const float* data, int64_t ky, int64_t kx) const {
    const int64_t y = ky * g_.dilation[0], x = kx * g_.dilation[1];
    return SubRow(data, y % sy_, x % sx_, y / sy_) + x / sx_;
  }

 private:
  template <typename T>
  T* SubRow(T* data, int64_t phase_y, int64_t phase_x, int64_t row) const {
    return data + ((phase_y * sx_ + phase_x) * sub_height_ + row) * row_length_;
  }

  const SpatialGeometry& g_;
  int64_t sy_, sx_, sub_height_, row_length_;
};

// Two grow-only buffers per thread (the phased plane, the output grid).
float* Scratch(int slot, size_t floats) {
  thread_local base::GrowOnlyBuffer buffers[2];
  return buffers[slot].Floats(floats);
}

}  // namespace

IsaMask DepthwiseRowIsaLevels() { return IsaVariantLevels(kRowKernels); }

void DepthwiseConv2d(const float* x, const float* w, const float* bias, int64_t planes,
                     int64_t channels, const SpatialGeometry& g, const Activation& activation,
                     Isa isa, float* y, threading::ThreadPool* pool) {
  const int64_t in_plane = g.input[0] * g.input[1];
  const int64_t out_h = g.output[0], out_w = g.output[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const DepthwiseRowFn row_kernel = RowKernelFor(isa);
  const PhasedPlane layout(g);
  const int64_t grid = out_h * layout.row_length();
  // ~0.1 ns per multiply-add over the grid (AVX2) plus the rearranging copy.
  const double cost = 0.1 * static_cast<double>(grid * kh * kw) + 0.5 * in_plane + 200;
  threading::ParallelFor(pool, planes, cost, [&](int64_t begin, int64_t end) {
    // Scratch per shard thread: shards of one call may run on several threads.
    float* plane = Scratch(0, static_cast<size_t>(layout.Floats()));
    float* out_grid = Scratch(1, static_cast<size_t>(grid + kDepthwiseSlack));
    std::vector<const float*> taps(static_cast<size_t>(kh * kw));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % channels;
      layout.Fill(x + p * in_plane, plane);
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx)
          taps[static_cast<size_t>(ky * kw + kx)] = layout.Tap(plane, ky, kx);
      }
      row_kernel(taps.data(), w + c * kh * kw, static_cast<int>(kh * kw), bias[c], out_grid, grid);
      float* out = y + p * out_h * out_w;
      for (int64_t oy = 0; oy < out_h; ++oy) {
        std::copy(out_grid + oy * layout.row_length(), out_grid + oy * layout.row_length() + out_w,
                  out + oy * out_w);
      }
      if (activation.kind != ActivationKind::kIdentity) {
        ApplyActivation(activation, out, out_h * out_w, isa);
      }
    }
  });
}

}  // namespace loom::kernels
