// GridSample (vision.h): per output point, the taps of each spatial axis
// (index into X, or -1 for a zero tap, and weight), then the weighted sum
// of their products over every channel.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/vision/vision.h"
#include "kernels/vision/vision_reference.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

using vision::GridSampleMode;
using vision::GridSampleOptions;
using vision::GridSamplePadding;

constexpr std::string_view kOp = "GridSample";
// 4 taps per axis in cubic mode: 4^kMaxSpatialAxes taps per point at most.
constexpr size_t kMaxSpatialAxes = 8;

// ONNX's _gs_reflect: folds x into [lo, hi] by reflecting at the borders.
template <typename F>
F Reflect(F x, F lo, F hi) {
  const F range = hi - lo;
  if (range == 0) return lo;  // align_corners with a size-1 axis
  F dx;
  bool from_low;
  if (x < lo) {
    dx = lo - x;
    from_low = true;
  } else if (x > hi) {
    dx = x - hi;
    from_low = false;
  } else {
    return x;
  }
  const auto n = static_cast<int64_t>(dx / range);
  const F r = dx - static_cast<F>(n) * range;
  return (n % 2 == 0) == from_low ? lo + r : hi - r;
}

struct Axis {
  int64_t size;
  int64_t stride;  // in elements of one (n, c) plane
  double lo, hi;   // the borders: [-0.5, size - 0.5], or [0, size - 1] with align_corners
};

// The taps of one axis: offsets (-1: a zero tap) and weights.
struct AxisTaps {
  int count = 0;
  int64_t offset[4];
  double weight[4];
};

int64_t TapIndex(const Axis& axis, GridSamplePadding padding, int64_t i) {
  switch (padding) {
    case GridSamplePadding::kZeros:
      return (i < 0 || i >= axis.size) ? -1 : i;
    case GridSamplePadding::kBorder:
      return std::clamp<int64_t>(i, 0, axis.size - 1);
    case GridSamplePadding::kReflection:
      return static_cast<int64_t>(Reflect<double>(static_cast<double>(i), axis.lo, axis.hi));
  }
  return -1;
}

void CubicWeights(double t, double* w) {
  constexpr double a = -0.75;  // Keys' kernel as ONNX and PyTorch use it
  const double t1 = t + 1, t2 = 1 - t, t3 = 2 - t;
  w[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
  w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  w[2] = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1;
  w[3] = ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a;
}

// The taps of one axis for the denormalized coordinate x.
AxisTaps ComputeTaps(const Axis& axis, const GridSampleOptions& options, double x) {
  if (options.mode == GridSampleMode::kNearest) x = std::nearbyint(x);  // half to even
  if (x < axis.lo || x > axis.hi) {
    if (options.padding == GridSamplePadding::kBorder) {
      x = std::clamp(x, 0.0, static_cast<double>(axis.size - 1));
    } else if (options.padding == GridSamplePadding::kReflection) {
      x = Reflect(x, axis.lo, axis.hi);
    }
  }
  AxisTaps taps;
  auto add = [&](int64_t i, double w) {
    const int64_t index = TapIndex(axis, options.padding, i);
    taps.offset[taps.count] = index < 0 ? -1 : index * axis.stride;
    taps.weight[taps.count] = w;
    ++taps.count;
  };
  if (options.mode == GridSampleMode::kNearest) {
    add(static_cast<int64_t>(x), 1.0);  // truncation, as the reference's astype(int32)
    return taps;
  }
  const double x0 = std::floor(x);
  const double t = x - x0;
  const auto i0 = static_cast<int64_t>(x0);
  if (options.mode == GridSampleMode::kLinear) {
    add(i0, 1 - t);
    add(i0 + 1, t);
    return taps;
  }
  double w[4];
  CubicWeights(t, w);
  for (int k = 0; k < 4; ++k) add(i0 - 1 + k, w[k]);
  return taps;
}

// Denormalized coordinate, in the grid's type G as ONNX's reference
// computes it (so nearest mode's ties fall the same way).
template <typename G>
double Denormalize(G n, int64_t size, bool align_corners) {
  const G len = static_cast<G>(size);
  return align_corners ? static_cast<double>((n + G(1)) / G(2) * (len - G(1)))
                       : static_cast<double>(((n + G(1)) * len - G(1)) / G(2));
}

template <typename T, typename G>
void Sample(const KernelContext& ctx, const GridSampleOptions& options, const Tensor& x,
            const Tensor& grid, Tensor& y) {
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& yd = y.shape().dims();
  const size_t k = xd.size() - 2;
  const int64_t batch = xd[0], channels = xd[1];
  std::vector<Axis> axes(k);
  int64_t plane = 1;
  for (size_t d = k; d-- > 0;) {
    const int64_t size = xd[2 + d];
    const double len = static_cast<double>(size);
    axes[d] = {size, plane, options.align_corners ? 0.0 : -0.5,
               options.align_corners ? len - 1 : len - 0.5};
    plane *= size;
  }
  const int64_t row_points = yd.back();
  int64_t points = 1;
  for (size_t d = 0; d < k; ++d) points *= yd[2 + d];
  const int64_t rows_per_batch = row_points == 0 ? 0 : points / row_points;
  const G* g = grid.data<G>();
  const T* in = x.data<T>();
  T* out = y.data<T>();
  int taps_per_point = 1;
  for (size_t d = 0; d < k; ++d) {
    taps_per_point *= options.mode == GridSampleMode::kNearest  ? 1
                      : options.mode == GridSampleMode::kLinear ? 2
                                                                : 4;
  }
  const double cost = static_cast<double>(row_points) *
                      (20.0 * static_cast<double>(k) +
                       2.0 * static_cast<double>(taps_per_point) * static_cast<double>(channels));
  // Serial loop replaced: for each (n, row) unit, for each point of the
  // row: taps, then every channel's weighted sum.
  threading::ParallelFor(ctx.pool, batch * rows_per_batch, cost, [&](int64_t begin, int64_t end) {
    std::vector<AxisTaps> taps(k);
    std::vector<int64_t> flat_offset;
    std::vector<double> flat_weight;
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t n = unit / rows_per_batch;
      const int64_t row = unit % rows_per_batch;
      for (int64_t col = 0; col < row_points; ++col) {
        const int64_t p = row * row_points + col;
        const G* coords = g + (n * points + p) * static_cast<int64_t>(k);
        for (size_t d = 0; d < k; ++d) {
          // The grid's last axis lists coordinates from the last spatial axis back.
          taps[d] =
              ComputeTaps(axes[d], options,
                          Denormalize<G>(coords[k - 1 - d], axes[d].size, options.align_corners));
        }
        // Every combination of one tap per axis (last axis fastest); a zero
        // tap drops the combination.
        flat_offset.clear();
        flat_weight.clear();
        for (int combo = 0; combo < taps_per_point; ++combo) {
          int64_t offset = 0;
          double weight = 1.0;
          int rest = combo;
          for (size_t d = k; d-- > 0;) {
            const int i = rest % taps[d].count;
            rest /= taps[d].count;
            const int64_t o = taps[d].offset[i];
            if (o < 0) {
              offset = -1;
              break;
            }
            offset += o;
            weight *= taps[d].weight[i];
          }
          if (offset < 0) continue;
          flat_offset.push_back(offset);
          flat_weight.push_back(weight);
        }
        for (int64_t c = 0; c < channels; ++c) {
          const T* src = in + (n * channels + c) * plane;
          double sum = 0;
          for (size_t t = 0; t < flat_offset.size(); ++t) {
            sum += flat_weight[t] * static_cast<double>(src[flat_offset[t]]);
          }
          out[(n * channels + c) * points + p] = static_cast<T>(sum);
        }
      }
    }
  });
}

}  // namespace

std::vector<Tensor> GridSampleKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& grid = RequiredInput(kOp, inputs, 1, "grid");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64});
  CheckDType(kOp, "grid", grid, {DType::kFloat32, DType::kFloat64});
  const GridSampleOptions options = vision::ParseGridSampleOptions(attrs);
  const int rank = x.shape().rank();
  if (rank < 3 || static_cast<size_t>(rank - 2) > kMaxSpatialAxes) {
    ThrowKernelError(kOp, "input 'X' must have rank 3 to " + std::to_string(kMaxSpatialAxes + 2) +
                              " (got shape " + x.shape().to_string() + ")");
  }
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& gd = grid.shape().dims();
  if (grid.shape().rank() != rank || gd[0] != xd[0] || gd.back() != rank - 2) {
    ThrowKernelError(kOp, "input 'grid' must have shape [" + std::to_string(xd[0]) + ", <" +
                              std::to_string(rank - 2) + " output sizes>, " +
                              std::to_string(rank - 2) + "] for X of shape " +
                              x.shape().to_string() + " (got shape " + grid.shape().to_string() +
                              ")");
  }
  std::vector<int64_t> out_dims = {xd[0], xd[1]};
  out_dims.insert(out_dims.end(), gd.begin() + 1, gd.end() - 1);
  Tensor y = Tensor::uninitialized(x.dtype(), Shape(out_dims));
  if (y.num_elements() == 0) return {y};
  for (int d = 2; d < rank; ++d) {
    if (xd[d] == 0) {
      ThrowKernelError(kOp, "input 'X' has an empty spatial axis (shape " + x.shape().to_string() +
                                ") but the output is not empty");
    }
  }
  const bool x64 = x.dtype() == DType::kFloat64, g64 = grid.dtype() == DType::kFloat64;
  if (x64 && g64) {
    Sample<double, double>(ctx, options, x, grid, y);
  } else if (x64) {
    Sample<double, float>(ctx, options, x, grid, y);
  } else if (g64) {
    Sample<float, double>(ctx, options, x, grid, y);
  } else {
    Sample<float, float>(ctx, options, x, grid, y);
  }
  return {y};
}

}  // namespace loom::kernels
