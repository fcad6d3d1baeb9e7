// MaxRoiPool (vision.h): Fast R-CNN's region max pooling. Per region, the
// box is scaled and rounded to whole pixels; bin (ph, pw) covers rows
// [floor(ph * h / PH), ceil((ph + 1) * h / PH)) of the box (columns alike),
// clipped to the image, and takes their maximum, or 0 when it is empty.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/vision/vision.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "MaxRoiPool";

// [begin, end) of bin `i` of `bins` over a box of `size` pixels starting at
// `start`, clipped to [0, limit).
void BinRange(int64_t i, int64_t bins, int64_t start, int64_t size, int64_t limit, int64_t* begin,
              int64_t* end) {
  const double bin = static_cast<double>(size) / static_cast<double>(bins);
  const auto lo = static_cast<int64_t>(std::floor(static_cast<double>(i) * bin));
  const auto hi = static_cast<int64_t>(std::ceil(static_cast<double>(i + 1) * bin));
  *begin = std::clamp<int64_t>(lo + start, 0, limit);
  *end = std::clamp<int64_t>(hi + start, 0, limit);
}

// A box coordinate in pixels: round(v * scale), half away from zero.
int64_t Pixel(double v, double scale) {
  const double scaled = std::round(v * scale);
  // Far outside any image: clamped so the arithmetic stays finite (bins
  // clip to the image anyway).
  return static_cast<int64_t>(std::clamp(scaled, -1e15, 1e15));
}

template <typename T>
void Pool(const KernelContext& ctx, const Tensor& x, const Tensor& rois, int64_t ph_n, int64_t pw_n,
          double scale, Tensor& y) {
  const int64_t batch = x.shape().dim(0), channels = x.shape().dim(1);
  const int64_t height = x.shape().dim(2), width = x.shape().dim(3);
  const int64_t num_rois = rois.shape().dim(0);
  const T* in = x.data<T>();
  const T* r = rois.data<T>();
  T* out = y.data<T>();
  // Checked before any output is written.
  for (int64_t n = 0; n < num_rois; ++n) {
    const double index = static_cast<double>(r[n * 5]);
    if (!(index >= 0 && index < static_cast<double>(batch)) || index != std::floor(index)) {
      ThrowKernelError(kOp, "region " + std::to_string(n) + " names batch index " +
                                std::to_string(index) + "; X has " + std::to_string(batch) +
                                " images");
    }
    for (int k = 1; k < 5; ++k) {
      if (!std::isfinite(static_cast<double>(r[n * 5 + k]))) {
        ThrowKernelError(kOp,
                         "region " + std::to_string(n) + " has a coordinate that is not finite");
      }
    }
  }
  // Serial loop replaced: for each (region n, channel c): every bin's max.
  threading::ParallelFor(ctx.pool, num_rois * channels,
                         static_cast<double>(height * width) * 1.0 + 50.0,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t n = unit / channels, c = unit % channels;
                             const T* box = r + n * 5;
                             const auto image = static_cast<int64_t>(box[0]);
                             const int64_t x1 = Pixel(static_cast<double>(box[1]), scale);
                             const int64_t y1 = Pixel(static_cast<double>(box[2]), scale);
                             const int64_t x2 = Pixel(static_cast<double>(box[3]), scale);
                             const int64_t y2 = Pixel(static_cast<double>(box[4]), scale);
                             const int64_t box_h = std::max<int64_t>(y2 - y1 + 1, 1);
                             const int64_t box_w = std::max<int64_t>(x2 - x1 + 1, 1);
                             const T* plane = in + (image * channels + c) * height * width;
                             T* dst = out + unit * ph_n * pw_n;
                             for (int64_t ph = 0; ph < ph_n; ++ph) {
                               int64_t h0 = 0, h1 = 0;
                               BinRange(ph, ph_n, y1, box_h, height, &h0, &h1);
                               for (int64_t pw = 0; pw < pw_n; ++pw) {
                                 int64_t w0 = 0, w1 = 0;
                                 BinRange(pw, pw_n, x1, box_w, width, &w0, &w1);
                                 T best = std::numeric_limits<T>::lowest();
                                 const bool empty = h1 <= h0 || w1 <= w0;
                                 for (int64_t h = h0; h < h1; ++h) {
                                   for (int64_t w = w0; w < w1; ++w)
                                     best = std::max(best, plane[h * width + w]);
                                 }
                                 dst[ph * pw_n + pw] = empty ? T(0) : best;
                               }
                             }
                           }
                         });
}

}  // namespace

std::vector<Tensor> MaxRoiPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& rois = RequiredInput(kOp, inputs, 1, "rois");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64});
  CheckDType(kOp, "rois", rois, {x.dtype()});
  CheckRank(kOp, "X", x, 4);
  CheckRank(kOp, "rois", rois, 2);
  if (rois.shape().dim(1) != 5) {
    ThrowKernelError(kOp, "input 'rois' must be [R, 5] (batch index, x1, y1, x2, y2), got shape " +
                              rois.shape().to_string());
  }
  const std::vector<int64_t> pooled = attrs.get_ints("pooled_shape");
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) {
    ThrowKernelError(kOp, "attribute 'pooled_shape' must be two positive sizes");
  }
  const float scale = attrs.get_float("spatial_scale", 1.0f);
  if (!(scale > 0.0f) || !std::isfinite(scale)) {
    ThrowKernelError(kOp, "attribute 'spatial_scale' must be positive and finite (got " +
                              std::to_string(scale) + ")");
  }
  Tensor y = Tensor::uninitialized(
      x.dtype(), Shape({rois.shape().dim(0), x.shape().dim(1), pooled[0], pooled[1]}));
  if (y.num_elements() == 0) return {std::move(y)};
  if (x.dtype() == DType::kFloat64) {
    Pool<double>(ctx, x, rois, pooled[0], pooled[1], scale, y);
  } else {
    Pool<float>(ctx, x, rois, pooled[0], pooled[1], scale, y);
  }
  return {std::move(y)};
}

}  // namespace loom::kernels
