// ConvInteger and QLinearConv (quant.h): per image and group, an int16
// im2col of x - x_zero_point (padding reads 0, i.e. the zero point) and
// W - w_zero_point as a [M / group, C / group * kernel] matrix, multiplied
// by Int16Gemm; QLinearConv adds the int32 bias and requantizes per output
// channel. Geometry (pads, strides, dilations, auto_pad) as Conv's
// (spatial_geometry.h).
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/quant/int_gemm.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_common.h"
#include "kernels/spatial_geometry.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

const std::initializer_list<DType> kInt8Types = {DType::kInt8, DType::kUInt8};

// The im2col buffer's limit: 2^30 int16 values (2 GiB), far beyond any
// real layer, so a hostile shape gives an error instead of a bad_alloc.
constexpr int64_t kMaxColumnElements = int64_t{1} << 30;

// The int32 convolution of (x - x_zp) and (w - w_zp), [N, M, out...].
Tensor IntegerConv(std::string_view op, const KernelContext& ctx, const Attributes& attrs,
                   const Tensor& x, const Tensor& w, const Tensor* x_zp, const Tensor* w_zp,
                   std::vector<int64_t>* out_dims) {
  CheckDType(op, "x", x, kInt8Types);
  CheckDType(op, "w", w, kInt8Types);
  if (x.shape().rank() < 3) {
    ThrowKernelError(op, "input 'x' must have rank >= 3 ([N, C, spatial...]), got shape " +
                             x.shape().to_string());
  }
  if (w.shape().rank() != x.shape().rank()) {
    ThrowKernelError(op, "input 'w' " + w.shape().to_string() + " must have x's rank (x " +
                             x.shape().to_string() + ")");
  }
  if (x_zp != nullptr) {
    CheckDType(op, "x_zero_point", *x_zp, {x.dtype()});
    if (x_zp->num_elements() != 1) {
      ThrowKernelError(op, "input 'x_zero_point' must be a scalar (got shape " +
                               x_zp->shape().to_string() + ")");
    }
  }
  const int64_t batch = x.shape().dim(0), channels = x.shape().dim(1);
  const int64_t out_channels = w.shape().dim(0), group_channels = w.shape().dim(1);
  const int64_t group = attrs.get_int("group", 1);
  if (group < 1 || out_channels % group != 0 || group_channels * group != channels) {
    ThrowKernelError(op, "input 'x' has " + std::to_string(channels) + " channels, 'w' " +
                             w.shape().to_string() + " with group " + std::to_string(group) +
                             " expects W.shape[1] * group channels and M divisible by group");
  }
  if (w_zp != nullptr) {
    CheckDType(op, "w_zero_point", *w_zp, {w.dtype()});
    if (w_zp->num_elements() != 1 &&
        !(w_zp->shape().rank() == 1 && w_zp->num_elements() == out_channels)) {
      ThrowKernelError(op, "input 'w_zero_point' " + w_zp->shape().to_string() +
                               " must be a scalar or one value per output channel (" +
                               std::to_string(out_channels) + ")");
    }
  }
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& wd = w.shape().dims();
  const std::vector<int64_t> in_spatial(xd.begin() + 2, xd.end());
  const std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
  const SpatialGeometry g = ResolveSpatialGeometry(op, attrs, in_spatial, kernel);
  const int rank = g.rank();

  int64_t kernel_size = 1, in_size = 1, out_size = 1;
  for (int i = 0; i < rank; ++i) {
    kernel_size *= g.kernel[i];
    in_size *= g.input[i];
    out_size *= g.output[i];
  }
  const int64_t k = group_channels * kernel_size;
  if (k > 0 && out_size > kMaxColumnElements / k) {
    ThrowKernelError(op, "the im2col buffer of " + std::to_string(k) + " x " +
                             std::to_string(out_size) + " values is too large");
  }
  *out_dims = {batch, out_channels};
  out_dims->insert(out_dims->end(), g.output.begin(), g.output.end());
  Tensor y = Tensor::uninitialized(DType::kInt32, Shape(*out_dims));
  if (y.num_elements() == 0) return y;

  const int32_t x_zero = x_zp != nullptr ? quant::ReadInts(*x_zp)[0] : 0;
  const std::vector<int32_t> w_zeros =
      w_zp != nullptr ? quant::ReadInts(*w_zp) : std::vector<int32_t>{0};
  const std::vector<int32_t> xv = quant::ReadInts(x);
  const std::vector<int32_t> wv = quant::ReadInts(w);
  std::vector<int16_t> w16(static_cast<size_t>(out_channels * k));
  for (int64_t m = 0; m < out_channels; ++m) {
    const int32_t zp = w_zeros[w_zeros.size() == 1 ? 0 : static_cast<size_t>(m)];
    for (int64_t j = 0; j < k; ++j) {
      w16[static_cast<size_t>(m * k + j)] =
          static_cast<int16_t>(wv[static_cast<size_t>(m * k + j)] - zp);
    }
  }
  // Strides of the spatial input axes.
  std::vector<int64_t> in_stride(static_cast<size_t>(rank), 1);
  for (int i = rank - 2; i >= 0; --i) in_stride[i] = in_stride[i + 1] * g.input[i + 1];
  const int64_t last_out = g.output[rank - 1];
  const int64_t outer_positions = out_size / last_out;

  std::vector<int16_t> col(static_cast<size_t>(k * out_size));
  const int64_t group_out = out_channels / group;
  int32_t* yp = y.data<int32_t>();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      const int32_t* xg = xv.data() + (n * channels + gi * group_channels) * in_size;
      // Row r of the column matrix: channel r / kernel_size, kernel offset
      // r % kernel_size; one row per unit.
      threading::ParallelFor(
          ctx.pool, k, static_cast<double>(out_size), [&](int64_t begin, int64_t end) {
            std::vector<int64_t> t(static_cast<size_t>(rank)), o(static_cast<size_t>(rank));
            for (int64_t r = begin; r < end; ++r) {
              const int32_t* xc = xg + (r / kernel_size) * in_size;
              int64_t rem = r % kernel_size;
              for (int i = rank - 1; i >= 0; --i) {
                t[i] = rem % g.kernel[i];
                rem /= g.kernel[i];
              }
              int16_t* dst = col.data() + r * out_size;
              const int L = rank - 1;
              for (int64_t p = 0; p < outer_positions; ++p) {
                int64_t q = p, offset = 0;
                bool inside = true;
                for (int i = L - 1; i >= 0; --i) {
                  const int64_t oi = q % g.output[i];
                  q /= g.output[i];
                  const int64_t pos = oi * g.stride[i] - g.pad_begin[i] + t[i] * g.dilation[i];
                  if (pos < 0 || pos >= g.input[i]) inside = false;
                  offset += pos * in_stride[i];
                }
                int16_t* row = dst + p * last_out;
                for (int64_t ol = 0; ol < last_out; ++ol) {
                  const int64_t pos = ol * g.stride[L] - g.pad_begin[L] + t[L] * g.dilation[L];
                  row[ol] = inside && pos >= 0 && pos < g.input[L]
                                ? static_cast<int16_t>(xc[offset + pos] - x_zero)
                                : int16_t{0};
                }
              }
            }
          });
      Int16Gemm(ctx.pool, ctx.isa, group_out, k, out_size, w16.data() + gi * group_out * k, k,
                col.data(), out_size, yp + (n * out_channels + gi * group_out) * out_size,
                out_size);
    }
  }
  return y;
}

}  // namespace

std::vector<Tensor> ConvIntegerKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs) {
  constexpr std::string_view kOp = "ConvInteger";
  CheckInputCount(kOp, inputs, 2, 4);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
  const Tensor& w = RequiredInput(kOp, inputs, 1, "w");
  std::vector<int64_t> dims;
  std::vector<Tensor> out;
  out.push_back(IntegerConv(kOp, ctx, attrs, x, w, OptionalInput(inputs, 2),
                            OptionalInput(inputs, 3), &dims));
  return out;
}

std::vector<Tensor> QLinearConvKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs) {
  constexpr std::string_view kOp = "QLinearConv";
  CheckInputCount(kOp, inputs, 8, 9);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
  const Tensor& x_scale = RequiredInput(kOp, inputs, 1, "x_scale");
  const Tensor* x_zp = OptionalInput(inputs, 2);
  const Tensor& w = RequiredInput(kOp, inputs, 3, "w");
  const Tensor& w_scale = RequiredInput(kOp, inputs, 4, "w_scale");
  const Tensor* w_zp = OptionalInput(inputs, 5);
  const Tensor& y_scale = RequiredInput(kOp, inputs, 6, "y_scale");
  const Tensor* y_zp = OptionalInput(inputs, 7);
  const Tensor* bias = OptionalInput(inputs, 8);
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"x_scale", &x_scale},
                                {"w_scale", &w_scale},
                                {"y_scale", &y_scale}}) {
    CheckDType(kOp, name, *t, {DType::kFloat32});
  }
  if (y_zp != nullptr) CheckDType(kOp, "y_zero_point", *y_zp, kInt8Types);
  if (x_scale.num_elements() != 1 || y_scale.num_elements() != 1 ||
      (y_zp != nullptr && y_zp->num_elements() != 1)) {
    ThrowKernelError(kOp, "x_scale, y_scale and y_zero_point must be per tensor (one value each)");
  }
  std::vector<int64_t> dims;
  const Tensor sums = IntegerConv(kOp, ctx, attrs, x, w, x_zp, w_zp, &dims);
  const int64_t out_channels = w.shape().dim(0);
  if (w_scale.num_elements() != 1 &&
      !(w_scale.shape().rank() == 1 && w_scale.num_elements() == out_channels)) {
    ThrowKernelError(kOp, "input 'w_scale' " + w_scale.shape().to_string() +
                              " must be a scalar or one value per output channel (" +
                              std::to_string(out_channels) + ")");
  }
  if (bias != nullptr) {
    CheckDType(kOp, "B", *bias, {DType::kInt32});
    if (bias->shape().rank() != 1 || bias->num_elements() != out_channels) {
      ThrowKernelError(kOp, "input 'B' " + bias->shape().to_string() +
                                " must have one value per output channel (" +
                                std::to_string(out_channels) + ")");
    }
  }
  const float xs = quant::ReadFloats(x_scale)[0];
  const float ys = quant::ReadFloats(y_scale)[0];
  const std::vector<float> ws = quant::ReadFloats(w_scale);
  const DType out_dtype = y_zp != nullptr ? y_zp->dtype() : x.dtype();
  const int32_t y_zero = y_zp != nullptr ? quant::ReadInts(*y_zp)[0] : 0;
  const quant::IntRange range = quant::RangeOf(out_dtype);
  Tensor y = Tensor::uninitialized(out_dtype, Shape(dims));
  const int64_t plane =
      out_channels > 0 && y.num_elements() > 0 ? y.num_elements() / (dims[0] * out_channels) : 0;
  const int32_t* sp = sums.num_elements() > 0 ? sums.data<int32_t>() : nullptr;
  const int32_t* bp = bias != nullptr ? bias->data<int32_t>() : nullptr;
  // Parallel over (image, output channel) planes: the serial loop over both.
  auto requantize = [&](auto* yp) {
    using Y = std::remove_pointer_t<decltype(yp)>;
    threading::ParallelFor(
        ctx.pool, plane > 0 ? dims[0] * out_channels : 0, 4.0 * static_cast<double>(plane),
        [&](int64_t begin, int64_t end) {
          for (int64_t unit = begin; unit < end; ++unit) {
            const int64_t m = unit % out_channels;
            const float mult = xs * ws[ws.size() == 1 ? 0 : static_cast<size_t>(m)] / ys;
            // The bias adds modulo 2^32, as the int32 sums do.
            const uint32_t b = bp != nullptr ? static_cast<uint32_t>(bp[m]) : 0u;
            const int64_t base = unit * plane;
            for (int64_t i = 0; i < plane; ++i) {
              const auto acc = static_cast<int32_t>(static_cast<uint32_t>(sp[base + i]) + b);
              yp[base + i] = static_cast<Y>(
                  quant::RoundSaturate(static_cast<double>(acc) * mult, y_zero, range));
            }
          }
        });
  };
  if (out_dtype == DType::kInt8) {
    requantize(y.num_elements() > 0 ? y.data<int8_t>() : nullptr);
  } else {
    requantize(y.num_elements() > 0 ? y.data<uint8_t>() : nullptr);
  }
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace loom::kernels
