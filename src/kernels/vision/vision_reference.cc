#include "kernels/vision/vision_reference.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels::vision {
namespace {

double Get(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat64 ? t.data<double>()[i] : t.data<float>()[i];
}

// ONNX's _gs_reflect, in the given float type.
template <typename F>
F Reflect(F x, F x_min, F x_max) {
  const F range = x_max - x_min;
  if (range == 0) return x_min;
  if (x < x_min) {
    const F dx = x_min - x;
    const auto n = static_cast<int64_t>(dx / range);
    const F r = dx - static_cast<F>(n) * range;
    return n % 2 == 0 ? x_min + r : x_max - r;
  }
  if (x > x_max) {
    const F dx = x - x_max;
    const auto n = static_cast<int64_t>(dx / range);
    const F r = dx - static_cast<F>(n) * range;
    return n % 2 == 0 ? x_max - r : x_min + r;
  }
  return x;
}

void CubicCoefficients(double x, double* c) {
  constexpr double a = -0.75;
  x = std::abs(x);
  c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  c[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a;
}

struct Sampler {
  const Tensor& x;
  const GridSampleOptions& options;
  std::vector<int64_t> dims;     // spatial dims of X
  std::vector<int64_t> strides;  // their strides in elements
  std::vector<double> lo, hi;    // borders

  // The pixel at integer index idx[d] along each spatial axis, with the
  // padding rule; `base` is the offset of the (n, c) plane.
  double Pixel(int64_t base, const std::vector<int64_t>& idx) const {
    int64_t offset = base;
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t i = idx[d];
      if (options.padding == GridSamplePadding::kZeros) {
        if (i < 0 || i >= dims[d]) return 0.0;
      } else if (options.padding == GridSamplePadding::kBorder) {
        i = std::clamp<int64_t>(i, 0, dims[d] - 1);
      } else {
        i = static_cast<int64_t>(Reflect<double>(static_cast<double>(i), lo[d], hi[d]));
      }
      offset += i * strides[d];
    }
    return Get(x, offset);
  }

  // Interpolates along axes d.. recursively (ONNX's nested 1-D passes).
  double Interpolate(int64_t base, std::vector<int64_t>& idx, const std::vector<double>& coord,
                     size_t d) const {
    if (d == dims.size()) return Pixel(base, idx);
    const double x0 = std::floor(coord[d]);
    const double t = coord[d] - x0;
    const auto i0 = static_cast<int64_t>(x0);
    if (options.mode == GridSampleMode::kLinear) {
      idx[d] = i0;
      const double v0 = Interpolate(base, idx, coord, d + 1);
      idx[d] = i0 + 1;
      const double v1 = Interpolate(base, idx, coord, d + 1);
      return (1 - t) * v0 + t * v1;
    }
    double c[4];
    CubicCoefficients(t, c);
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      idx[d] = i0 - 1 + k;
      sum += c[k] * Interpolate(base, idx, coord, d + 1);
    }
    return sum;
  }
};

template <typename G>
std::vector<double> Denormalize(const Tensor& grid, int64_t at, const std::vector<int64_t>& dims,
                                bool align_corners) {
  const size_t k = dims.size();
  std::vector<double> coord(k);
  for (size_t d = 0; d < k; ++d) {
    const G n = grid.data<G>()[at + static_cast<int64_t>(k - 1 - d)];
    const G len = static_cast<G>(dims[d]);
    coord[d] = align_corners ? (n + G(1)) / G(2) * (len - G(1)) : ((n + G(1)) * len - G(1)) / G(2);
  }
  return coord;
}

}  // namespace

GridSampleOptions ParseGridSampleOptions(const Attributes& attrs) {
  GridSampleOptions options;
  const std::string mode = attrs.get_string("mode", "linear");
  if (mode == "nearest") {
    options.mode = GridSampleMode::kNearest;
  } else if (mode == "linear" || mode == "bilinear") {
    options.mode = GridSampleMode::kLinear;
  } else if (mode == "cubic" || mode == "bicubic") {
    options.mode = GridSampleMode::kCubic;
  } else {
    ThrowKernelError("GridSample",
                     "attribute 'mode' must be nearest, linear or cubic (got '" + mode + "')");
  }
  const std::string padding = attrs.get_string("padding_mode", "zeros");
  if (padding == "zeros") {
    options.padding = GridSamplePadding::kZeros;
  } else if (padding == "border") {
    options.padding = GridSamplePadding::kBorder;
  } else if (padding == "reflection") {
    options.padding = GridSamplePadding::kReflection;
  } else {
    ThrowKernelError(
        "GridSample",
        "attribute 'padding_mode' must be zeros, border or reflection (got '" + padding + "')");
  }
  const int64_t align = attrs.get_int("align_corners", 0);
  if (align != 0 && align != 1) {
    ThrowKernelError("GridSample", "attribute 'align_corners' must be 0 or 1 (got " +
                                       std::to_string(align) + ")");
  }
  options.align_corners = align == 1;
  return options;
}

Tensor GridSampleReference(const Tensor& x, const Tensor& grid, const GridSampleOptions& options) {
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& gd = grid.shape().dims();
  const int64_t n_batch = xd[0], channels = xd[1];
  const size_t k = xd.size() - 2;
  std::vector<int64_t> out_dims = {n_batch, channels};
  int64_t points = 1;
  for (size_t d = 0; d < k; ++d) {
    out_dims.push_back(gd[1 + d]);
    points *= gd[1 + d];
  }
  Tensor y(x.dtype(), Shape(out_dims));
  Sampler s{x, options, {}, {}, {}, {}};
  int64_t plane = 1;
  for (size_t d = 0; d < k; ++d) {
    s.dims.push_back(xd[2 + d]);
    plane *= xd[2 + d];
  }
  s.strides.assign(k, 1);
  for (size_t d = k; d-- > 1;) s.strides[d - 1] = s.strides[d] * s.dims[d];
  for (size_t d = 0; d < k; ++d) {
    const double len = static_cast<double>(s.dims[d]);
    s.lo.push_back(options.align_corners ? 0.0 : -0.5);
    s.hi.push_back(options.align_corners ? len - 1 : len - 0.5);
  }
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t p = 0; p < points; ++p) {
      const int64_t at = (n * points + p) * static_cast<int64_t>(k);
      std::vector<double> coord = grid.dtype() == DType::kFloat64
                                      ? Denormalize<double>(grid, at, s.dims, options.align_corners)
                                      : Denormalize<float>(grid, at, s.dims, options.align_corners);
      for (size_t d = 0; d < k; ++d) {
        if (grid.dtype() == DType::kFloat32) coord[d] = static_cast<float>(coord[d]);
        if (options.mode == GridSampleMode::kNearest) coord[d] = std::nearbyint(coord[d]);
        if (coord[d] < s.lo[d] || coord[d] > s.hi[d]) {
          if (options.padding == GridSamplePadding::kBorder) {
            coord[d] = std::clamp(coord[d], 0.0, static_cast<double>(s.dims[d] - 1));
          } else if (options.padding == GridSamplePadding::kReflection) {
            coord[d] = Reflect<double>(coord[d], s.lo[d], s.hi[d]);
          }
        }
      }
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t base = (n * channels + c) * plane;
        std::vector<int64_t> idx(k);
        double v;
        if (options.mode == GridSampleMode::kNearest) {
          for (size_t d = 0; d < k; ++d) idx[d] = static_cast<int64_t>(coord[d]);
          v = s.Pixel(base, idx);
        } else {
          v = s.Interpolate(base, idx, coord, 0);
        }
        const int64_t o = (n * channels + c) * points + p;
        if (y.dtype() == DType::kFloat64) {
          y.data<double>()[o] = v;
        } else {
          y.data<float>()[o] = static_cast<float>(v);
        }
      }
    }
  }
  return y;
}

namespace {

float Iou(const float* a, const float* b, bool center) {
  float ax0, ax1, ay0, ay1, bx0, bx1, by0, by1;
  if (center) {
    ax0 = a[0] - a[2] / 2, ax1 = a[0] + a[2] / 2, ay0 = a[1] - a[3] / 2, ay1 = a[1] + a[3] / 2;
    bx0 = b[0] - b[2] / 2, bx1 = b[0] + b[2] / 2, by0 = b[1] - b[3] / 2, by1 = b[1] + b[3] / 2;
  } else {
    ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]);
    ax0 = std::min(a[1], a[3]), ax1 = std::max(a[1], a[3]);
    by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]);
    bx0 = std::min(b[1], b[3]), bx1 = std::max(b[1], b[3]);
  }
  const float iw = std::min(ax1, bx1) - std::max(ax0, bx0);
  const float ih = std::min(ay1, by1) - std::max(ay0, by0);
  if (iw <= 0 || ih <= 0) return 0;
  const float inter = iw * ih;
  const float area_a = (ax1 - ax0) * (ay1 - ay0), area_b = (bx1 - bx0) * (by1 - by0);
  const float uni = area_a + area_b - inter;
  if (inter <= 0 || area_a <= 0 || area_b <= 0 || uni <= 0) return 0;
  return inter / uni;
}

}  // namespace

Tensor NonMaxSuppressionReference(const Tensor& boxes, const Tensor& scores,
                                  int64_t max_output_boxes_per_class, float iou_threshold,
                                  const float* score_threshold, bool center_point_box) {
  const int64_t batches = boxes.shape().dim(0), n = boxes.shape().dim(1);
  const int64_t classes = scores.shape().dim(1);
  std::vector<int64_t> out;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores.data<float>() + (b * classes + c) * n;
      std::vector<bool> used(static_cast<size_t>(n), false);
      std::vector<int64_t> kept;
      while (static_cast<int64_t>(kept.size()) < max_output_boxes_per_class) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; ++i) {
          if (used[i] || (score_threshold && !(s[i] > *score_threshold))) continue;
          if (best < 0 || s[i] > s[best]) best = i;
        }
        if (best < 0) break;
        used[best] = true;
        bool keep = true;
        for (int64_t j : kept) {
          if (Iou(boxes.data<float>() + (b * n + best) * 4, boxes.data<float>() + (b * n + j) * 4,
                  center_point_box) > iou_threshold) {
            keep = false;
          }
        }
        if (!keep) continue;
        kept.push_back(best);
        out.insert(out.end(), {b, c, best});
      }
    }
  }
  const auto rows = static_cast<int64_t>(out.size() / 3);
  return Tensor::from_vector<int64_t>({rows, 3}, out);
}

}  // namespace loom::kernels::vision

namespace loom::kernels::vision {

Tensor AffineGridReference(const Tensor& theta, const std::vector<int64_t>& size,
                           bool align_corners) {
  const size_t k = size.size() - 2;
  std::vector<int64_t> out_dims = {size[0]};
  out_dims.insert(out_dims.end(), size.begin() + 2, size.end());
  out_dims.push_back(static_cast<int64_t>(k));
  Tensor grid(theta.dtype(), Shape(out_dims));
  int64_t points = 1;
  for (size_t d = 0; d < k; ++d) points *= size[2 + d];
  for (int64_t n = 0; n < size[0]; ++n) {
    for (int64_t p = 0; p < points; ++p) {
      // Spatial index of the point, then its coordinate per axis.
      std::vector<double> h(k + 1, 1.0);
      int64_t rest = p;
      for (size_t d = k; d-- > 0;) {
        const int64_t len = size[2 + d];
        const int64_t i = rest % len;
        rest /= len;
        const double c =
            align_corners
                ? (len == 1 ? -1.0
                            : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(len - 1))
                : (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(len) - 1.0;
        h[k - 1 - d] = c;
      }
      for (size_t r = 0; r < k; ++r) {
        double sum = 0;
        for (size_t c = 0; c <= k; ++c) {
          sum += Get(theta, n * static_cast<int64_t>(k * (k + 1)) +
                                static_cast<int64_t>(r * (k + 1) + c)) *
                 h[c];
        }
        const int64_t o = (n * points + p) * static_cast<int64_t>(k) + static_cast<int64_t>(r);
        if (grid.dtype() == DType::kFloat64) {
          grid.data<double>()[o] = sum;
        } else {
          grid.data<float>()[o] = static_cast<float>(sum);
        }
      }
    }
  }
  return grid;
}

namespace {

// The bilinear sample of plane (h x w) at (y, x) by RoiAlign's rules, or
// for max mode the largest weighted corner.
double RoiSample(const Tensor& x, int64_t base, int64_t h, int64_t w, double y, double xx,
                 bool max_mode) {
  if (y < -1.0 || y > static_cast<double>(h) || xx < -1.0 || xx > static_cast<double>(w)) {
    return 0.0;
  }
  y = std::max(y, 0.0);
  xx = std::max(xx, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(xx), y1, x1;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    y = static_cast<double>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    xx = static_cast<double>(x0);
  } else {
    x1 = x0 + 1;
  }
  const double ly = y - static_cast<double>(y0), lx = xx - static_cast<double>(x0);
  const double v[4] = {
      (1 - ly) * (1 - lx) * Get(x, base + y0 * w + x0), (1 - ly) * lx * Get(x, base + y0 * w + x1),
      ly * (1 - lx) * Get(x, base + y1 * w + x0), ly * lx * Get(x, base + y1 * w + x1)};
  if (max_mode) return std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
  return v[0] + v[1] + v[2] + v[3];
}

}  // namespace

Tensor RoiAlignReference(const Tensor& x, const Tensor& rois, const Tensor& batch_indices,
                         const RoiAlignOptions& o) {
  const int64_t channels = x.shape().dim(1), h = x.shape().dim(2), w = x.shape().dim(3);
  const int64_t num = rois.shape().dim(0);
  Tensor y(x.dtype(), Shape({num, channels, o.output_height, o.output_width}));
  const double off = o.half_pixel ? 0.5 : 0.0;
  for (int64_t n = 0; n < num; ++n) {
    const double x1 = Get(rois, n * 4) * o.spatial_scale - off;
    const double y1 = Get(rois, n * 4 + 1) * o.spatial_scale - off;
    const double x2 = Get(rois, n * 4 + 2) * o.spatial_scale - off;
    const double y2 = Get(rois, n * 4 + 3) * o.spatial_scale - off;
    double rw = x2 - x1, rh = y2 - y1;
    if (!o.half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    const double bh = rh / static_cast<double>(o.output_height);
    const double bw = rw / static_cast<double>(o.output_width);
    const int64_t gh =
        o.sampling_ratio > 0 ? o.sampling_ratio : static_cast<int64_t>(std::ceil(bh));
    const int64_t gw =
        o.sampling_ratio > 0 ? o.sampling_ratio : static_cast<int64_t>(std::ceil(bw));
    const int64_t b = batch_indices.data<int64_t>()[n];
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (b * channels + c) * h * w;
      for (int64_t ph = 0; ph < o.output_height; ++ph) {
        for (int64_t pw = 0; pw < o.output_width; ++pw) {
          double acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy) {
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double sy = y1 + static_cast<double>(ph) * bh +
                                (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
              const double sx = x1 + static_cast<double>(pw) * bw +
                                (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
              const double v = RoiSample(x, base, h, w, sy, sx, o.max_mode);
              acc = o.max_mode ? (first ? v : std::max(acc, v)) : acc + v;
              first = false;
            }
          }
          if (!o.max_mode) acc /= static_cast<double>(std::max<int64_t>(gh * gw, 1));
          const int64_t at = ((n * channels + c) * o.output_height + ph) * o.output_width + pw;
          if (y.dtype() == DType::kFloat64) {
            y.data<double>()[at] = acc;
          } else {
            y.data<float>()[at] = static_cast<float>(acc);
          }
        }
      }
    }
  }
  return y;
}

}  // namespace loom::kernels::vision

namespace loom::kernels::vision {

Tensor DeformConvReference(const Tensor& x, const Tensor& w, const Tensor& offset,
                           const Tensor* bias, const Tensor* mask, const DeformConvGeometry& g) {
  Tensor y(DType::kFloat32, Shape({g.n, g.oc, g.oh, g.ow}));
  const int64_t icg = g.c / g.group, ocg = g.oc / g.group, cog = g.c / g.offset_group;
  auto at4 = [](const Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
    const auto& s = t.shape().dims();
    return static_cast<double>(t.data<float>()[((a * s[1] + b) * s[2] + c) * s[3] + d]);
  };
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t o = 0; o < g.oc; ++o) {
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          double acc = bias ? static_cast<double>(bias->data<float>()[o]) : 0.0;
          const int64_t grp = o / ocg;
          for (int64_t ci = 0; ci < icg; ++ci) {
            const int64_t c = grp * icg + ci;
            const int64_t og = c / cog;
            for (int64_t i = 0; i < g.kh; ++i) {
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t tap = i * g.kw + j;
                const double py = static_cast<double>(oy * g.sh - g.pad_top + i * g.dh) +
                                  at4(offset, n, (og * g.kh * g.kw + tap) * 2, oy, ox);
                const double px = static_cast<double>(ox * g.sw - g.pad_left + j * g.dw) +
                                  at4(offset, n, (og * g.kh * g.kw + tap) * 2 + 1, oy, ox);
                // Four corners, each weighted by its distance, zero outside.
                double v = 0;
                for (int64_t yy = static_cast<int64_t>(std::floor(py)); yy <= std::floor(py) + 1;
                     ++yy) {
                  for (int64_t xx = static_cast<int64_t>(std::floor(px)); xx <= std::floor(px) + 1;
                       ++xx) {
                    if (yy < 0 || yy >= g.h || xx < 0 || xx >= g.w) continue;
                    const double wgt = (1 - std::abs(py - static_cast<double>(yy))) *
                                       (1 - std::abs(px - static_cast<double>(xx)));
                    v += wgt * at4(x, n, c, yy, xx);
                  }
                }
                if (mask) v *= at4(*mask, n, og * g.kh * g.kw + tap, oy, ox);
                acc += v * at4(w, o, ci, i, j);
              }
            }
          }
          y.data<float>()[((n * g.oc + o) * g.oh + oy) * g.ow + ox] = static_cast<float>(acc);
        }
      }
    }
  }
  return y;
}

}  // namespace loom::kernels::vision
