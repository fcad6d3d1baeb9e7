// RoiAlign (vision.h): per region, the sample points of every output bin
// with their four bilinear taps (computed once, as ONNX's reference's
// pre_calc), then every channel pooled over them.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/vision/vision.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "RoiAlign";
constexpr int64_t kMaxSamples = int64_t{1} << 26;

struct Tap {
  int64_t pos[4];
  double w[4];
};

template <typename T>
void Pool(const KernelContext& ctx, const Tensor& x, const Tensor& rois, const int64_t* batch_idx,
          const RoiAlignOptions& o, Tensor& y) {
  const int64_t channels = x.shape().dim(1), height = x.shape().dim(2), width = x.shape().dim(3);
  const int64_t num_rois = rois.shape().dim(0);
  const int64_t ph_n = o.output_height, pw_n = o.output_width;
  const T* in = x.data<T>();
  const T* r = rois.data<T>();
  T* out = y.data<T>();
  const double offset = o.half_pixel ? 0.5 : 0.0;
  // Serial loop replaced: for each region n, its taps, then each channel.
  threading::ParallelFor(
      ctx.pool, num_rois, static_cast<double>(channels * ph_n * pw_n) * 40.0,
      [&](int64_t begin, int64_t end) {
        std::vector<Tap> taps;
        for (int64_t n = begin; n < end; ++n) {
          const double start_w = static_cast<double>(r[n * 4 + 0]) * o.spatial_scale - offset;
          const double start_h = static_cast<double>(r[n * 4 + 1]) * o.spatial_scale - offset;
          const double end_w = static_cast<double>(r[n * 4 + 2]) * o.spatial_scale - offset;
          const double end_h = static_cast<double>(r[n * 4 + 3]) * o.spatial_scale - offset;
          double roi_w = end_w - start_w, roi_h = end_h - start_h;
          if (!o.half_pixel) {
            roi_w = std::max(roi_w, 1.0);
            roi_h = std::max(roi_h, 1.0);
          }
          const double bin_h = roi_h / static_cast<double>(ph_n);
          const double bin_w = roi_w / static_cast<double>(pw_n);
          const int64_t grid_h =
              o.sampling_ratio > 0
                  ? o.sampling_ratio
                  : static_cast<int64_t>(std::ceil(roi_h / static_cast<double>(ph_n)));
          const int64_t grid_w =
              o.sampling_ratio > 0
                  ? o.sampling_ratio
                  : static_cast<int64_t>(std::ceil(roi_w / static_cast<double>(pw_n)));
          const int64_t gh = std::clamp<int64_t>(grid_h, 0, kMaxSamples);
          const int64_t gw = std::clamp<int64_t>(grid_w, 0, kMaxSamples);
          const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
          taps.clear();
          for (int64_t ph = 0; ph < ph_n; ++ph) {
            for (int64_t pw = 0; pw < pw_n; ++pw) {
              for (int64_t iy = 0; iy < gh; ++iy) {
                const double yy = start_h + static_cast<double>(ph) * bin_h +
                                  (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(gh);
                for (int64_t ix = 0; ix < gw; ++ix) {
                  double xx = start_w + static_cast<double>(pw) * bin_w +
                              (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(gw);
                  double yv = yy;
                  Tap t{{0, 0, 0, 0}, {0, 0, 0, 0}};
                  if (yv < -1.0 || yv > static_cast<double>(height) || xx < -1.0 ||
                      xx > static_cast<double>(width)) {
                    taps.push_back(t);
                    continue;
                  }
                  yv = std::max(yv, 0.0);
                  xx = std::max(xx, 0.0);
                  auto y_low = static_cast<int64_t>(yv), x_low = static_cast<int64_t>(xx);
                  int64_t y_high, x_high;
                  if (y_low >= height - 1) {
                    y_high = y_low = height - 1;
                    yv = static_cast<double>(y_low);
                  } else {
                    y_high = y_low + 1;
                  }
                  if (x_low >= width - 1) {
                    x_high = x_low = width - 1;
                    xx = static_cast<double>(x_low);
                  } else {
                    x_high = x_low + 1;
                  }
                  const double ly = yv - static_cast<double>(y_low),
                               lx = xx - static_cast<double>(x_low);
                  const double hy = 1.0 - ly, hx = 1.0 - lx;
                  t = {{y_low * width + x_low, y_low * width + x_high, y_high * width + x_low,
                        y_high * width + x_high},
                       {hy * hx, hy * lx, ly * hx, ly * lx}};
                  taps.push_back(t);
                }
              }
            }
          }
          const T* plane0 = in + batch_idx[n] * channels * height * width;
          for (int64_t c = 0; c < channels; ++c) {
            const T* plane = plane0 + c * height * width;
            size_t at = 0;
            for (int64_t b = 0; b < ph_n * pw_n; ++b) {
              double v = 0;
              bool first = true;
              for (int64_t s = 0; s < gh * gw; ++s, ++at) {
                const Tap& t = taps[at];
                if (o.max_mode) {
                  double m = t.w[0] * static_cast<double>(plane[t.pos[0]]);
                  for (int q = 1; q < 4; ++q)
                    m = std::max(m, t.w[q] * static_cast<double>(plane[t.pos[q]]));
                  v = first ? m : std::max(v, m);
                  first = false;
                } else {
                  for (int q = 0; q < 4; ++q) v += t.w[q] * static_cast<double>(plane[t.pos[q]]);
                }
              }
              if (!o.max_mode) v /= count;
              out[((n * channels + c) * ph_n * pw_n) + b] = static_cast<T>(v);
            }
          }
        }
      });
}

}  // namespace

RoiAlignOptions ParseRoiAlignOptions(const Attributes& attrs) {
  RoiAlignOptions o;
  const std::string mode = attrs.get_string("mode", "avg");
  if (mode != "avg" && mode != "max") {
    ThrowKernelError(kOp, "attribute 'mode' must be avg or max (got '" + mode + "')");
  }
  o.max_mode = mode == "max";
  const std::string ctm = attrs.get_string("coordinate_transformation_mode", "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel") {
    ThrowKernelError(kOp,
                     "attribute 'coordinate_transformation_mode' must be half_pixel or "
                     "output_half_pixel (got '" +
                         ctm + "')");
  }
  o.half_pixel = ctm == "half_pixel";
  o.output_height = attrs.get_int("output_height", 1);
  o.output_width = attrs.get_int("output_width", 1);
  o.sampling_ratio = attrs.get_int("sampling_ratio", 0);
  o.spatial_scale = attrs.get_float("spatial_scale", 1.0f);
  if (o.output_height < 1 || o.output_width < 1 || o.output_height > kMaxSamples ||
      o.output_width > kMaxSamples || o.sampling_ratio < 0 || o.sampling_ratio > 1024) {
    ThrowKernelError(kOp,
                     "attributes output_height, output_width must be positive and "
                     "sampling_ratio in [0, 1024] (got " +
                         std::to_string(o.output_height) + ", " + std::to_string(o.output_width) +
                         ", " + std::to_string(o.sampling_ratio) + ")");
  }
  return o;
}

std::vector<Tensor> RoiAlignKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& rois = RequiredInput(kOp, inputs, 1, "rois");
  const Tensor& batch = RequiredInput(kOp, inputs, 2, "batch_indices");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64});
  CheckDType(kOp, "batch_indices", batch, {DType::kInt64});
  if (rois.dtype() != x.dtype()) {
    ThrowKernelError(kOp, "input 'rois' must have X's dtype " + std::string(dtype_name(x.dtype())) +
                              " (got " + std::string(dtype_name(rois.dtype())) + ")");
  }
  CheckRank(kOp, "X", x, 4);
  CheckRank(kOp, "batch_indices", batch, 1);
  const int64_t num_rois = batch.shape().dim(0);
  if (rois.shape() != Shape({num_rois, 4})) {
    ThrowKernelError(kOp, "input 'rois' must have shape [" + std::to_string(num_rois) +
                              ", 4] (got " + rois.shape().to_string() + ")");
  }
  const RoiAlignOptions o = ParseRoiAlignOptions(attrs);
  const int64_t* idx = batch.data<int64_t>();
  for (int64_t i = 0; i < num_rois; ++i) {
    if (idx[i] < 0 || idx[i] >= x.shape().dim(0)) {
      ThrowKernelError(kOp, "input 'batch_indices' has " + std::to_string(idx[i]) +
                                " outside [0, " + std::to_string(x.shape().dim(0)) + ")");
    }
  }
  Tensor y = Tensor::uninitialized(
      x.dtype(), Shape({num_rois, x.shape().dim(1), o.output_height, o.output_width}));
  if (y.num_elements() == 0) return {y};
  if (x.shape().dim(2) == 0 || x.shape().dim(3) == 0) {
    ThrowKernelError(kOp,
                     "input 'X' has an empty spatial axis (shape " + x.shape().to_string() + ")");
  }
  if (x.dtype() == DType::kFloat64) {
    Pool<double>(ctx, x, rois, idx, o, y);
  } else {
    Pool<float>(ctx, x, rois, idx, o, y);
  }
  return {y};
}

}  // namespace loom::kernels
