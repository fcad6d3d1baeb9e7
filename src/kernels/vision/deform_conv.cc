// DeformConv (vision.h): deformable columns (each kernel tap's bilinear
// sample at its offset position, times the mask), then one GEMM per group
// with the weights, plus the bias.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/vision/vision.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "DeformConv";
// The column buffer holds C * kh * kw * oh * ow floats.
constexpr int64_t kMaxColumnElements = int64_t{1} << 30;

std::vector<int64_t> IntsOr(const Attributes& attrs, std::string_view name,
                            std::vector<int64_t> fallback, size_t count) {
  std::vector<int64_t> v = attrs.get_ints(name, std::move(fallback));
  if (v.size() != count) {
    ThrowKernelError(kOp, "attribute '" + std::string(name) + "' must have " +
                              std::to_string(count) + " values (got " + std::to_string(v.size()) +
                              ")");
  }
  return v;
}

}  // namespace

DeformConvGeometry ParseDeformConvGeometry(const Attributes& attrs, const Tensor& x,
                                           const Tensor& w, const Tensor& offset,
                                           const Tensor* bias, const Tensor* mask) {
  if (x.shape().rank() != 4) {
    ThrowKernelError(kOp, "input 'X' of rank " + std::to_string(x.shape().rank()) +
                              " is not supported (2-D convolutions only; got shape " +
                              x.shape().to_string() + ")");
  }
  CheckRank(kOp, "W", w, 4);
  CheckRank(kOp, "offset", offset, 4);
  DeformConvGeometry g;
  g.n = x.shape().dim(0), g.c = x.shape().dim(1), g.h = x.shape().dim(2), g.w = x.shape().dim(3);
  g.oc = w.shape().dim(0);
  const std::vector<int64_t> kernel =
      IntsOr(attrs, "kernel_shape", {w.shape().dim(2), w.shape().dim(3)}, 2);
  g.kh = kernel[0], g.kw = kernel[1];
  const std::vector<int64_t> strides = IntsOr(attrs, "strides", {1, 1}, 2);
  const std::vector<int64_t> dilations = IntsOr(attrs, "dilations", {1, 1}, 2);
  const std::vector<int64_t> pads = IntsOr(attrs, "pads", {0, 0, 0, 0}, 4);
  g.sh = strides[0], g.sw = strides[1], g.dh = dilations[0], g.dw = dilations[1];
  g.pad_top = pads[0], g.pad_left = pads[1];
  g.group = attrs.get_int("group", 1);
  g.offset_group = attrs.get_int("offset_group", 1);
  for (int64_t v : {g.sh, g.sw, g.dh, g.dw, g.group, g.offset_group, g.kh, g.kw}) {
    if (v < 1 || v > (int64_t{1} << 20)) {
      ThrowKernelError(kOp,
                       "strides, dilations, group, offset_group and kernel_shape must be in "
                       "[1, 2^20] (got " +
                           std::to_string(v) + ")");
    }
  }
  for (int64_t p : pads) {
    if (p < 0 || p > (int64_t{1} << 20)) {
      ThrowKernelError(kOp,
                       "attribute 'pads' must be in [0, 2^20] (got " + std::to_string(p) + ")");
    }
  }
  if (w.shape().dim(2) != g.kh || w.shape().dim(3) != g.kw || g.c % g.group != 0 ||
      g.oc % g.group != 0 || w.shape().dim(1) * g.group != g.c) {
    ThrowKernelError(kOp, "input 'W' " + w.shape().to_string() + " does not fit X " +
                              x.shape().to_string() + " with group " + std::to_string(g.group) +
                              " and kernel [" + std::to_string(g.kh) + ", " + std::to_string(g.kw) +
                              "]");
  }
  if (g.c % g.offset_group != 0) {
    ThrowKernelError(kOp, "attribute 'offset_group' " + std::to_string(g.offset_group) +
                              " does not divide the " + std::to_string(g.c) + " channels of X");
  }
  g.oh = (g.h + pads[0] + pads[2] - ((g.kh - 1) * g.dh + 1)) / g.sh + 1;
  g.ow = (g.w + pads[1] + pads[3] - ((g.kw - 1) * g.dw + 1)) / g.sw + 1;
  const Shape want_offset({g.n, g.offset_group * g.kh * g.kw * 2, g.oh, g.ow});
  if (offset.shape() != want_offset) {
    ThrowKernelError(kOp, "input 'offset' must have shape " + want_offset.to_string() + " (got " +
                              offset.shape().to_string() + ")");
  }
  if (mask != nullptr) {
    const Shape want_mask({g.n, g.offset_group * g.kh * g.kw, g.oh, g.ow});
    if (mask->shape() != want_mask) {
      ThrowKernelError(kOp, "input 'mask' must have shape " + want_mask.to_string() + " (got " +
                                mask->shape().to_string() + ")");
    }
  }
  if (bias != nullptr && bias->shape() != Shape({g.oc})) {
    ThrowKernelError(kOp, "input 'B' must have shape [" + std::to_string(g.oc) + "] (got " +
                              bias->shape().to_string() + ")");
  }
  return g;
}

double DeformConvSample(const float* plane, int64_t h, int64_t w, double y, double x) {
  // Bilinear with zeros outside (GridSample linear, zeros, align_corners).
  const double y0 = std::floor(y), x0 = std::floor(x);
  const double ly = y - y0, lx = x - x0;
  const auto iy = static_cast<int64_t>(y0), ix = static_cast<int64_t>(x0);
  double sum = 0;
  const double wy[2] = {1 - ly, ly}, wx[2] = {1 - lx, lx};
  for (int a = 0; a < 2; ++a) {
    const int64_t yy = iy + a;
    if (yy < 0 || yy >= h) continue;
    for (int b = 0; b < 2; ++b) {
      const int64_t xx = ix + b;
      if (xx < 0 || xx >= w) continue;
      sum += wy[a] * wx[b] * static_cast<double>(plane[yy * w + xx]);
    }
  }
  return sum;
}

std::vector<Tensor> DeformConvKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 3, 5);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& w = RequiredInput(kOp, inputs, 1, "W");
  const Tensor& offset = RequiredInput(kOp, inputs, 2, "offset");
  const Tensor* bias = OptionalInput(inputs, 3);
  const Tensor* mask = OptionalInput(inputs, 4);
  CheckDType(kOp, "X", x, {DType::kFloat32});
  CheckDType(kOp, "W", w, {DType::kFloat32});
  CheckDType(kOp, "offset", offset, {DType::kFloat32});
  if (bias) CheckDType(kOp, "B", *bias, {DType::kFloat32});
  if (mask) CheckDType(kOp, "mask", *mask, {DType::kFloat32});
  const DeformConvGeometry g = ParseDeformConvGeometry(attrs, x, w, offset, bias, mask);
  Tensor y = Tensor::uninitialized(DType::kFloat32, Shape({g.n, g.oc, g.oh, g.ow}));
  if (y.num_elements() == 0) return {y};
  const int64_t taps = g.kh * g.kw, pixels = g.oh * g.ow;
  const int64_t rows = g.c * taps;
  if (pixels > 0 && rows > kMaxColumnElements / pixels) {
    ThrowKernelError(kOp, "the deformable columns (" + std::to_string(rows) + " x " +
                              std::to_string(pixels) + ") exceed 2^30 elements");
  }
  std::vector<float> columns(static_cast<size_t>(rows * pixels));
  const int64_t c_per_offset_group = g.c / g.offset_group;
  const int64_t ic_per_group = g.c / g.group, oc_per_group = g.oc / g.group;
  const float* xd = x.data<float>();
  const float* od = offset.data<float>();
  const float* md = mask ? mask->data<float>() : nullptr;
  for (int64_t n = 0; n < g.n; ++n) {
    // Serial loop replaced: for each column row (channel c, tap (i, j)),
    // each output pixel: mask * X[n, c] sampled at the tap's moved position.
    threading::ParallelFor(
        ctx.pool, rows, static_cast<double>(pixels) * 12.0, [&](int64_t begin, int64_t end) {
          for (int64_t row = begin; row < end; ++row) {
            const int64_t c = row / taps, tap = row % taps;
            const int64_t i = tap / g.kw, j = tap % g.kw;
            const int64_t og = c / c_per_offset_group;
            const float* plane = xd + (n * g.c + c) * g.h * g.w;
            const float* off_h = od + (((n * g.offset_group + og) * taps + tap) * 2) * pixels;
            const float* off_w = off_h + pixels;
            const float* m = md ? md + ((n * g.offset_group + og) * taps + tap) * pixels : nullptr;
            float* col = columns.data() + row * pixels;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t p = oy * g.ow + ox;
                const double py = static_cast<double>(oy * g.sh - g.pad_top + i * g.dh) +
                                  static_cast<double>(off_h[p]);
                const double px = static_cast<double>(ox * g.sw - g.pad_left + j * g.dw) +
                                  static_cast<double>(off_w[p]);
                double v = DeformConvSample(plane, g.h, g.w, py, px);
                if (m) v *= static_cast<double>(m[p]);
                col[p] = static_cast<float>(v);
              }
            }
          }
        });
    for (int64_t grp = 0; grp < g.group; ++grp) {
      GemmArgs args;
      args.m = oc_per_group, args.n = pixels, args.k = ic_per_group * taps;
      args.a = w.data<float>() + grp * oc_per_group * args.k, args.lda = args.k;
      args.b = columns.data() + grp * ic_per_group * taps * pixels, args.ldb = pixels;
      args.c = y.data<float>() + (n * g.oc + grp * oc_per_group) * pixels, args.ldc = pixels;
      f32_gemm(args, ctx.pool, ctx.isa);
    }
  }
  if (bias != nullptr) {
    float* out = y.data<float>();
    const float* b = bias->data<float>();
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t o = 0; o < g.oc; ++o) {
        float* plane = out + (n * g.oc + o) * pixels;
        for (int64_t p = 0; p < pixels; ++p) plane[p] += b[o];
      }
    }
  }
  return {y};
}

}  // namespace loom::kernels
