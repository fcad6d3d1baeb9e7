#include "kernels/resize/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/dtype_visit.h"
#include "kernels/elementwise/elementwise_common.h"
#include "kernels/half_float.h"
#include "kernels/resize/resize_geometry.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "Resize";

enum class Mode { kNearest, kLinear, kCubic };

struct Options {
  Mode mode = Mode::kNearest;
  std::string transform = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0.0;
};

// The taps of one axis: out_len x taps (index, weight) pairs, indices
// already clamped into [0, in_len) (ONNX's edge padding).
struct AxisTaps {
  int taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;  // tf_crop_and_resize: the coordinate left the input
  bool identity = true;
};

Options ReadOptions(const Attributes& attrs) {
  Options o;
  const std::string mode = attrs.get_string("mode", "nearest");
  if (mode == "nearest") {
    o.mode = Mode::kNearest;
  } else if (mode == "linear") {
    o.mode = Mode::kLinear;
  } else if (mode == "cubic") {
    o.mode = Mode::kCubic;
  } else {
    ThrowKernelError(kOp, "attribute 'mode' must be nearest, linear or cubic (got '" + mode + "')");
  }
  o.transform = attrs.get_string("coordinate_transformation_mode", "half_pixel");
  static constexpr std::string_view kTransforms[] = {
      "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",  "align_corners",
      "asymmetric", "tf_crop_and_resize",   "tf_half_pixel_for_nn"};
  if (std::find(std::begin(kTransforms), std::end(kTransforms), o.transform) ==
      std::end(kTransforms)) {
    ThrowKernelError(kOp, "attribute 'coordinate_transformation_mode' '" + o.transform +
                              "' is not one of ONNX's");
  }
  o.nearest = attrs.get_string("nearest_mode", "round_prefer_floor");
  static constexpr std::string_view kNearest[] = {"round_prefer_floor", "round_prefer_ceil",
                                                  "floor", "ceil", "simple"};
  if (std::find(std::begin(kNearest), std::end(kNearest), o.nearest) == std::end(kNearest)) {
    ThrowKernelError(kOp, "attribute 'nearest_mode' '" + o.nearest + "' is not one of ONNX's");
  }
  o.cubic_a = attrs.get_float("cubic_coeff_a", -0.75f);
  o.exclude_outside = attrs.get_int("exclude_outside", 0) != 0;
  o.antialias = attrs.get_int("antialias", 0) != 0;
  if (o.antialias && o.mode == Mode::kNearest) {
    ThrowKernelError(kOp, "antialias = 1 is not supported with mode nearest (ONNX: linear, cubic)");
  }
  o.extrapolation = attrs.get_float("extrapolation_value", 0.0f);
  return o;
}

// ONNX's coordinate maps: the input coordinate of output index x.
double InputCoordinate(const Options& o, double x, int64_t in_len, int64_t out_len, double scale,
                       double roi_start, double roi_end) {
  const double in = static_cast<double>(in_len);
  const double out_width = scale * in;  // ONNX's reference uses the unrounded width
  if (o.transform == "align_corners") return out_width == 1 ? 0.0 : x * (in - 1) / (out_width - 1);
  if (o.transform == "asymmetric") return x / scale;
  if (o.transform == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (o.transform == "tf_crop_and_resize") {
    const double span = (roi_end - roi_start) * (in - 1);
    const double start = roi_start * (in - 1);
    return start + (out_width == 1 ? span / 2 : x * span / (out_width - 1));
  }
  if (o.transform == "pytorch_half_pixel") return out_width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (o.transform == "half_pixel_symmetric") {
    const double adjustment = static_cast<double>(out_len) / out_width;
    return in / 2 * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

double CubicWeight(double distance, double a) {
  const double x = std::fabs(distance);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

// Weights for taps at offsets first .. first + count - 1 from `base`, where
// the coordinate is base + ratio (ratio in (0, 1]).
void Coefficients(const Options& o, double ratio, double scale, int& first,
                  std::vector<double>& w) {
  w.clear();
  if (o.mode == Mode::kNearest) {
    first = 0;
    bool upper = true;  // an integer coordinate (ratio 1) is the upper tap
    if (ratio != 1.0) {
      if (o.nearest == "round_prefer_floor") upper = ratio > 0.5;
      if (o.nearest == "round_prefer_ceil") upper = ratio >= 0.5;
      if (o.nearest == "floor") upper = false;
      if (o.nearest == "ceil") upper = true;
    }
    w = {upper ? 0.0 : 1.0, upper ? 1.0 : 0.0};
    return;
  }
  // Antialiasing widens the filter by 1 / scale when downsampling.
  const double s = o.antialias ? std::min(scale, 1.0) : 1.0;
  const int half = o.mode == Mode::kLinear ? 1 : 2;  // filter support radius at scale 1
  first = o.antialias ? static_cast<int>(std::floor(-half / s)) + 1 : 1 - half;
  const int count = 2 - 2 * first;
  double sum = 0;
  for (int i = first; i < first + count; ++i) {
    const double d = (i - ratio) * s;
    const double v = o.mode == Mode::kLinear ? std::clamp(1 - std::fabs(d), 0.0, 1.0)
                                             : CubicWeight(d, o.cubic_a);
    w.push_back(v);
    sum += v;
  }
  if (o.antialias) {
    for (double& v : w) v /= sum;
  }
}

AxisTaps MakeTaps(const Options& o, int64_t in_len, int64_t out_len, double scale, double roi_start,
                  double roi_end) {
  AxisTaps t;
  std::vector<double> w;
  for (int64_t x = 0; x < out_len; ++x) {
    const double c =
        InputCoordinate(o, static_cast<double>(x), in_len, out_len, scale, roi_start, roi_end);
    const bool outside =
        o.transform == "tf_crop_and_resize" && (c < 0 || c > static_cast<double>(in_len - 1));
    int first = 0;
    int64_t base = 0;
    if (o.mode == Mode::kNearest && o.nearest == "simple") {
      // Resize-10 / Upsample: truncate, or round up when downsampling.
      const double picked = scale < 1 ? std::ceil(c) : std::trunc(c);
      base = static_cast<int64_t>(std::clamp(picked, -1.0, static_cast<double>(in_len)));
      w = {1.0};
    } else {
      const double b = std::ceil(c) - 1;  // ONNX prefers the pixel left of c
      base = static_cast<int64_t>(std::clamp(b, -4.0 - in_len, 4.0 + 2 * in_len));
      Coefficients(o, c - b, scale, first, w);
    }
    if (t.taps == 0) t.taps = static_cast<int>(w.size());
    double kept = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      const int64_t i = base + first + static_cast<int64_t>(k);
      if (o.exclude_outside && (i < 0 || i >= in_len)) w[k] = 0;
      kept += w[k];
    }
    // Identity at x: every tap of nonzero weight reads x, with weight 1 in
    // all. Judged on the clamped indices: at scale 1 the tap left of the
    // first pixel (weight 0) clamps onto it, and LR-ASPP's N and C axes
    // (sizes equal to the input's) then each took a 4 MB copying pass.
    double on_x = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      const int64_t i = std::clamp<int64_t>(base + first + static_cast<int64_t>(k), 0, in_len - 1);
      t.index.push_back(i);
      t.weight.push_back(o.exclude_outside && kept != 0 ? w[k] / kept : w[k]);
      if (t.weight.back() == 0) continue;
      if (i == x) {
        on_x += t.weight.back();
      } else {
        t.identity = false;
      }
    }
    if (on_x != 1.0) t.identity = false;
    t.outside.push_back(outside);
    if (outside) t.identity = false;
  }
  if (out_len != in_len) t.identity = false;
  return t;
}

// The tap of weight 1 that a nearest (or integer) pass copies.
inline int NearestTap(const double* w, int taps) {
  int k = 0;
  while (k + 1 < taps && w[k] == 0) ++k;
  return k;
}

// The last axis (inner == 1): each output element is a short dot product of
// its taps with one input row, so rows go to threads whole and the loop
// body is the taps alone (a row-per-element pass spent ~30 ns of overhead
// on every element: 4.7 ms of LR-ASPP's 224 x 224 upsampling).
//
// Float linear (two taps, none outside): each output's taps reduced to the
// ones of nonzero weight, in float, before the rows; the loop per element is
// then two loads and a multiply-add. LR-ASPP's 28 -> 224 upsampling took
// 640 us, 34 % of it in this pass, with the general loop (a double weight
// converted and two branches a tap); 540 us with this one, 23 % here (perf
// shares; bench/results/nchwc-balance-2026-12-04.md).
struct LinearPairs {
  std::vector<int32_t> first, second;    // input index of each output's taps
  std::vector<float> w_first, w_second;  // w_second 0: one tap (or none: w_first 0 too)
};

LinearPairs PairsOf(const AxisTaps& t, int64_t n_out) {
  LinearPairs p;
  p.first.resize(n_out);
  p.second.resize(n_out);
  p.w_first.resize(n_out);
  p.w_second.resize(n_out);
  for (int64_t j = 0; j < n_out; ++j) {
    int used = 0;
    for (int k = 0; k < 2; ++k) {
      const double w = t.weight[j * 2 + k];
      if (w == 0) continue;  // 0 * inf would make NaN
      const auto i = static_cast<int32_t>(t.index[j * 2 + k]);
      if (used == 0) {
        p.first[j] = i;
        p.w_first[j] = static_cast<float>(w);
      } else {
        p.second[j] = i;
        p.w_second[j] = static_cast<float>(w);
      }
      ++used;
    }
    if (used < 2) {
      p.second[j] = used == 0 ? 0 : p.first[j];
      p.w_second[j] = 0;
    }
    if (used == 0) {
      p.first[j] = 0;
      p.w_first[j] = 0;
    }
  }
  return p;
}

template <typename T>
void ResizeLastAxis(const KernelContext& ctx, const T* in, T* out, int64_t outer, int64_t n_in,
                    int64_t n_out, const AxisTaps& t, bool nearest, double extrapolation) {
  if constexpr (std::is_same_v<T, float>) {
    const bool any_outside =
        std::any_of(t.outside.begin(), t.outside.end(), [](uint8_t v) { return v != 0; });
    if (!nearest && t.taps == 2 && !any_outside && n_in <= INT32_MAX) {
      const LinearPairs pairs = PairsOf(t, n_out);
      threading::ParallelFor(
          ctx.pool, outer, 0.5 * static_cast<double>(n_out) + 5, [&](int64_t begin, int64_t end) {
            for (int64_t o = begin; o < end; ++o) {
              const float* src = in + o * n_in;
              float* dst = out + o * n_out;
              for (int64_t j = 0; j < n_out; ++j) {
                // The second tap's product only where it has weight: a NaN
                // from 0 * inf must not appear where the taps skip it.
                float acc = pairs.w_first[j] == 0 ? 0.0f : pairs.w_first[j] * src[pairs.first[j]];
                if (pairs.w_second[j] != 0) acc += pairs.w_second[j] * src[pairs.second[j]];
                dst[j] = acc;
              }
            }
          });
      return;
    }
  }
  const double cost = 0.5 * static_cast<double>(n_out * t.taps) + 5;
  threading::ParallelFor(ctx.pool, outer, cost, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const T* src = in + o * n_in;
      T* dst = out + o * n_out;
      for (int64_t j = 0; j < n_out; ++j) {
        const int64_t* idx = &t.index[j * t.taps];
        const double* w = &t.weight[j * t.taps];
        if (t.outside[j]) {
          dst[j] = static_cast<T>(extrapolation);
        } else if (nearest || !std::is_floating_point_v<T>) {
          dst[j] = src[idx[NearestTap(w, t.taps)]];
        } else {
          T acc{0};
          for (int k = 0; k < t.taps; ++k) {
            if (w[k] != 0) acc += static_cast<T>(w[k]) * src[idx[k]];  // 0 * inf would make NaN
          }
          dst[j] = acc;
        }
      }
    }
  });
}

// One pass: [outer, n_in, inner] -> [outer, n_out, inner] along the middle
// axis, rows in parallel.
template <typename T>
void ResizeAxis(const KernelContext& ctx, const T* in, T* out, int64_t outer, int64_t n_in,
                int64_t inner, int64_t n_out, const AxisTaps& t, bool nearest,
                double extrapolation) {
  if (inner == 1) {
    ResizeLastAxis(ctx, in, out, outer, n_in, n_out, t, nearest, extrapolation);
    return;
  }
  const double cost = 0.5 * static_cast<double>(t.taps * inner) + 5;
  threading::ParallelFor(ctx.pool, outer * n_out, cost, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / n_out, j = r % n_out;
      T* dst = out + r * inner;
      if (t.outside[j]) {
        std::fill(dst, dst + inner, static_cast<T>(extrapolation));
        continue;
      }
      const int64_t* idx = &t.index[j * t.taps];
      const double* w = &t.weight[j * t.taps];
      if (nearest || !std::is_floating_point_v<T>) {  // a copy of the tap of weight 1
        std::copy_n(in + (o * n_in + idx[NearestTap(w, t.taps)]) * inner, inner, dst);
        continue;
      }
      // One pass over dst for the first two taps of weight != 0 (0 * inf
      // would make NaN), which are all of linear's: the rows read sit in
      // cache, dst (often the model's large output) does not.
      const T* src[2] = {nullptr, nullptr};
      T wk[2] = {0, 0};
      int k = 0, used = 0;
      for (; k < t.taps && used < 2; ++k) {
        if (w[k] == 0) continue;
        src[used] = in + (o * n_in + idx[k]) * inner;
        wk[used++] = static_cast<T>(w[k]);
      }
      if (used == 0) {
        std::fill(dst, dst + inner, T{0});
      } else if (used == 1) {
        for (int64_t i = 0; i < inner; ++i) dst[i] = wk[0] * src[0][i];
      } else {
        for (int64_t i = 0; i < inner; ++i) dst[i] = wk[0] * src[0][i] + wk[1] * src[1][i];
      }
      for (; k < t.taps; ++k) {
        if (w[k] == 0) continue;
        const T wn = static_cast<T>(w[k]);
        const T* s = in + (o * n_in + idx[k]) * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] += wn * s[i];
      }
    }
  });
}

template <typename T>
Tensor ResizeAll(const KernelContext& ctx, const Tensor& x, const std::vector<int64_t>& out_dims,
                 const std::vector<AxisTaps>& taps, const std::vector<int>& axes, bool nearest,
                 double extrap) {
  std::vector<int64_t> dims(x.shape().dims().begin(), x.shape().dims().end());
  Tensor current = x;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {  // the last axis first
    const int d = *it;
    const AxisTaps& t = taps[d];
    if (t.identity) continue;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < d; ++k) outer *= dims[k];
    for (size_t k = d + 1; k < dims.size(); ++k) inner *= dims[k];
    std::vector<int64_t> next_dims = dims;
    next_dims[d] = out_dims[d];
    Tensor next = Tensor::uninitialized(dtype_of<T>(), Shape(next_dims));
    ResizeAxis<T>(ctx, current.data<T>(), next.data<T>(), outer, dims[d], inner, out_dims[d], t,
                  nearest, extrap);
    current = std::move(next);
    dims = std::move(next_dims);
  }
  return current.data<T>() == x.data<T>() ? x.clone() : current;
}

// Linear / cubic on integers: in double, rounded half to even and saturated
// into T (ONNX's reference: np.round, then clip).
template <typename T>
Tensor ResizeInteger(const KernelContext& ctx, const Tensor& x,
                     const std::vector<int64_t>& out_dims, const std::vector<AxisTaps>& taps,
                     const std::vector<int>& axes, double extrap) {
  const Tensor wide = elementwise::ConvertTensor(x, DType::kFloat64);
  const Tensor r = ResizeAll<double>(ctx, wide, out_dims, taps, axes, false, extrap);
  Tensor out = Tensor::uninitialized(x.dtype(), r.shape());
  const double* src = r.data<double>();
  T* dst = out.data<T>();
  const double low = static_cast<double>(std::numeric_limits<T>::lowest());
  const double high = static_cast<double>(std::numeric_limits<T>::max());
  for (int64_t i = 0; i < r.num_elements(); ++i) {
    const double v = std::nearbyint(src[i]);
    dst[i] = v <= low ? std::numeric_limits<T>::lowest()
                      : (v >= high ? std::numeric_limits<T>::max() : static_cast<T>(v));
  }
  return out;
}

std::vector<float> ReadFloats(const Tensor& t, std::string_view name) {
  if (t.dtype() != DType::kFloat32 && t.dtype() != DType::kFloat64 &&
      t.dtype() != DType::kFloat16) {
    ThrowKernelError(kOp, "input '" + std::string(name) + "' must be a float tensor (got " +
                              std::string(dtype_name(t.dtype())) + ")");
  }
  const Tensor f = elementwise::ConvertTensor(t, DType::kFloat32);
  return {f.data<float>(), f.data<float>() + f.num_elements()};
}

}  // namespace

std::vector<Tensor> ResizeKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 4);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Options o = ReadOptions(attrs);
  const int rank = x.shape().rank();
  std::vector<int> axes;
  if (auto error = resize::NormalizeResizeAxes(attrs.get_ints("axes", {}), rank, axes)) {
    ThrowKernelError(kOp, "attribute 'axes': " + *error);
  }
  const Tensor* scales_t = OptionalInput(inputs, 2);
  const Tensor* sizes_t = OptionalInput(inputs, 3);
  if (scales_t && scales_t->num_elements() == 0) scales_t = nullptr;  // opset 11's placeholder
  if (sizes_t && sizes_t->num_elements() == 0) sizes_t = nullptr;
  if ((scales_t == nullptr) == (sizes_t == nullptr)) {
    ThrowKernelError(kOp, "exactly one of 'scales' and 'sizes' must be given");
  }
  std::vector<float> scales;
  std::vector<int64_t> sizes;
  if (scales_t) scales = ReadFloats(*scales_t, "scales");
  if (sizes_t) {
    CheckDType(kOp, "sizes", *sizes_t, {DType::kInt64});
    sizes.assign(sizes_t->data<int64_t>(), sizes_t->data<int64_t>() + sizes_t->num_elements());
  }
  const std::vector<int64_t> in_dims(x.shape().dims().begin(), x.shape().dims().end());
  resize::ResizeShape shape;
  if (auto error = resize::ComputeResizeShape(
          in_dims, axes, scales_t ? &scales : nullptr, sizes_t ? &sizes : nullptr,
          attrs.get_string("keep_aspect_ratio_policy", "stretch"), shape)) {
    ThrowKernelError(kOp, *error);
  }
  // roi: starts then ends, one per resized axis (only tf_crop_and_resize
  // reads it).
  std::vector<float> roi;
  if (o.transform == "tf_crop_and_resize") {
    const Tensor* roi_t = OptionalInput(inputs, 1);
    if (roi_t == nullptr) ThrowKernelError(kOp, "tf_crop_and_resize needs input 'roi'");
    roi = ReadFloats(*roi_t, "roi");
    if (roi.size() != 2 * axes.size()) {
      ThrowKernelError(kOp, "'roi' has " + std::to_string(roi.size()) + " values, expected " +
                                std::to_string(2 * axes.size()));
    }
  }
  std::vector<AxisTaps> taps(static_cast<size_t>(rank));
  for (size_t k = 0; k < axes.size(); ++k) {
    const int d = axes[k];
    if (in_dims[d] == 0 || shape.out[d] == 0) {
      taps[d].identity = in_dims[d] == shape.out[d];
      continue;
    }
    const double start = roi.empty() ? 0.0 : roi[k];
    const double end = roi.empty() ? 1.0 : roi[axes.size() + k];
    taps[d] = MakeTaps(o, in_dims[d], shape.out[d], shape.scale[d], start, end);
  }
  // An empty input or output: only the shape.
  int64_t out_count = 1, in_count = x.num_elements();
  for (int64_t v : shape.out) out_count *= v;
  if (out_count == 0 || in_count == 0) return {Tensor(x.dtype(), Shape(shape.out))};

  const bool nearest = o.mode == Mode::kNearest;
  if (ComputesInFloat32(x.dtype())) {  // float16, bfloat16
    const Tensor f = WidenToFloat32(x);
    return {NarrowFromFloat32(
        ResizeAll<float>(ctx, f, shape.out, taps, axes, nearest, o.extrapolation), x.dtype())};
  }
  Tensor out;
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      out = ResizeAll<T>(ctx, x, shape.out, taps, axes, nearest, o.extrapolation);
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      out = nearest ? ResizeAll<T>(ctx, x, shape.out, taps, axes, true, o.extrapolation)
                    : ResizeInteger<T>(ctx, x, shape.out, taps, axes, o.extrapolation);
    } else {
      ThrowKernelError(kOp, "no kernel for dtype " + std::string(dtype_name(x.dtype())));
    }
  });
  return {out};
}

}  // namespace loom::kernels
