#include "kernels/quant/quant_reference.h"

#include <cmath>

#include "kernels/gemm/matmul_shapes.h"
#include "kernels/reference/element_access.h"
#include "kernels/spatial_geometry.h"

namespace loom::kernels::reference {
namespace {

// The parameter index of element `flat` of a tensor of `dims`.
int64_t ParamIndex(const std::vector<int64_t>& dims, int64_t flat, size_t num_params,
                   const std::vector<int64_t>& scale_dims, int axis, int64_t block_size) {
  if (num_params == 1 && block_size == 0) return 0;
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = flat % dims[d];
    flat /= dims[d];
  }
  if (block_size == 0) return index[static_cast<size_t>(axis)];
  index[static_cast<size_t>(axis)] /= block_size;
  int64_t p = 0;
  for (size_t d = 0; d < dims.size(); ++d) p = p * scale_dims[d] + index[d];
  return p;
}

double Saturate(double v, DType dtype) {
  double lo = 0, hi = 0;
  switch (dtype) {
    case DType::kInt8:
      lo = -128, hi = 127;
      break;
    case DType::kUInt8:
      lo = 0, hi = 255;
      break;
    case DType::kInt16:
      lo = -32768, hi = 32767;
      break;
    default:
      lo = 0, hi = 65535;
      break;
  }
  return v < lo ? lo : v > hi ? hi : v;
}

}  // namespace

Tensor QuantizeLinearReference(const Tensor& x, const std::vector<float>& scale,
                               const std::vector<int32_t>& zero_point,
                               const std::vector<int64_t>& scale_dims, int axis, int64_t block_size,
                               DType out_dtype) {
  Tensor y(out_dtype, x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const auto p = static_cast<size_t>(
        ParamIndex(x.shape().dims(), i, scale.size(), scale_dims, axis, block_size));
    const float q = static_cast<float>(ReadElementAsDouble(x, i)) / scale[p];
    // NaN quantizes to the zero point (quant_common.h); converting a NaN
    // double to an integer is undefined.
    const double rounded = std::isnan(q) ? 0.0 : std::rint(q);
    WriteElementFromDouble(y, i, Saturate(rounded + zero_point[p], out_dtype));
  }
  return y;
}

Tensor DequantizeLinearReference(const Tensor& x, const std::vector<float>& scale,
                                 const std::vector<int32_t>& zero_point,
                                 const std::vector<int64_t>& scale_dims, int axis,
                                 int64_t block_size) {
  Tensor y(DType::kFloat32, x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const auto p = static_cast<size_t>(
        ParamIndex(x.shape().dims(), i, scale.size(), scale_dims, axis, block_size));
    const double v = (ReadElementAsDouble(x, i) - zero_point[p]) * scale[p];
    WriteElementFromDouble(y, i, v);
  }
  return y;
}

Tensor MatMulIntegerReference(const Tensor& a, const Tensor& b,
                              const std::vector<int32_t>& a_zero_point,
                              const std::vector<int32_t>& b_zero_point) {
  const MatMulShapes s = ResolveMatMulShapes("MatMulInteger", a.shape(), b.shape());
  Tensor y(DType::kInt32, Shape(s.output));
  int32_t* yp = y.data<int32_t>();
  for (size_t batch = 0; batch < s.a_offset.size(); ++batch) {
    for (int64_t m = 0; m < s.m; ++m) {
      for (int64_t n = 0; n < s.n; ++n) {
        int64_t sum = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          const int64_t av = ReadElementAsInt64(a, s.a_offset[batch] + m * s.k + k) -
                             a_zero_point[a_zero_point.size() == 1 ? 0 : m];
          const int64_t bv = ReadElementAsInt64(b, s.b_offset[batch] + k * s.n + n) -
                             b_zero_point[b_zero_point.size() == 1 ? 0 : n];
          sum += av * bv;
        }
        yp[(static_cast<int64_t>(batch) * s.m + m) * s.n + n] =
            static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
      }
    }
  }
  return y;
}

Tensor ConvIntegerReference(const Tensor& x, const Tensor& w, int32_t x_zero_point,
                            const std::vector<int32_t>& w_zero_point, const Attributes& attrs) {
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& wd = w.shape().dims();
  const SpatialGeometry g =
      ResolveSpatialGeometry("ConvInteger", attrs, std::vector<int64_t>(xd.begin() + 2, xd.end()),
                             std::vector<int64_t>(wd.begin() + 2, wd.end()));
  const int rank = g.rank();
  const int64_t group = attrs.get_int("group", 1);
  const int64_t batch = xd[0], channels = xd[1], out_channels = wd[0], cg = wd[1];
  const int64_t mg = out_channels / group;
  std::vector<int64_t> out_dims = {batch, out_channels};
  out_dims.insert(out_dims.end(), g.output.begin(), g.output.end());
  Tensor y(DType::kInt32, Shape(out_dims));
  int64_t out_size = 1, kernel_size = 1, in_size = 1;
  for (int i = 0; i < rank; ++i) {
    out_size *= g.output[i];
    kernel_size *= g.kernel[i];
    in_size *= g.input[i];
  }
  int32_t* yp = y.data<int32_t>();
  std::vector<int64_t> o(static_cast<size_t>(rank)), t(static_cast<size_t>(rank));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t m = 0; m < out_channels; ++m) {
      const int64_t gi = m / mg;
      const int32_t wz = w_zero_point[w_zero_point.size() == 1 ? 0 : m];
      for (int64_t op = 0; op < out_size; ++op) {
        int64_t rem = op;
        for (int i = rank - 1; i >= 0; --i) {
          o[i] = rem % g.output[i];
          rem /= g.output[i];
        }
        int64_t sum = 0;
        for (int64_t c = 0; c < cg; ++c) {
          for (int64_t kp = 0; kp < kernel_size; ++kp) {
            int64_t r = kp;
            for (int i = rank - 1; i >= 0; --i) {
              t[i] = r % g.kernel[i];
              r /= g.kernel[i];
            }
            int64_t offset = 0;
            bool inside = true;
            for (int i = 0; i < rank; ++i) {
              const int64_t pos = o[i] * g.stride[i] - g.pad_begin[i] + t[i] * g.dilation[i];
              inside = inside && pos >= 0 && pos < g.input[i];
              offset = offset * g.input[i] + pos;
            }
            if (!inside) continue;
            const int64_t xv =
                ReadElementAsInt64(x, (n * channels + gi * cg + c) * in_size + offset) -
                x_zero_point;
            const int64_t wv = ReadElementAsInt64(w, (m * cg + c) * kernel_size + kp) - wz;
            sum += xv * wv;
          }
        }
        yp[(n * out_channels + m) * out_size + op] =
            static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
      }
    }
  }
  return y;
}

Tensor RequantizeReference(const Tensor& sums, const std::vector<float>& multiplier,
                           const std::vector<int32_t>& bias, int64_t channels, int64_t inner,
                           int32_t zero_point, DType out_dtype) {
  Tensor y(out_dtype, sums.shape());
  for (int64_t i = 0; i < sums.num_elements(); ++i) {
    const int64_t c = (i / inner) % channels;
    const int64_t acc = sums.data<int32_t>()[i] + (bias.empty() ? 0 : bias[c]);
    const double v =
        std::rint(static_cast<double>(acc) * multiplier[multiplier.size() == 1 ? 0 : c]);
    WriteElementFromDouble(y, i, Saturate(v + zero_point, out_dtype));
  }
  return y;
}

Tensor QLinearAddReference(const Tensor& a, float a_scale, int32_t a_zero_point, const Tensor& b,
                           float b_scale, int32_t b_zero_point, float y_scale, int32_t y_zero_point,
                           DType out_dtype, bool relu) {
  Tensor y(out_dtype, a.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    // Each step exact in float64, then rounded once to float32: the float32
    // operation's result (53 >= 2 * 24 + 2 bits, so the double rounding of
    // the quotient is harmless).
    const auto fa = static_cast<float>((ReadElementAsDouble(a, i) - a_zero_point) *
                                       static_cast<double>(a_scale));
    const auto fb = static_cast<float>((ReadElementAsDouble(b, i) - b_zero_point) *
                                       static_cast<double>(b_scale));
    auto sum = static_cast<float>(static_cast<double>(fa) + static_cast<double>(fb));
    if (relu && sum < 0) sum = 0;
    const auto q = static_cast<float>(static_cast<double>(sum) / static_cast<double>(y_scale));
    const double rounded = std::isnan(q) ? 0.0 : std::nearbyint(static_cast<double>(q));
    WriteElementFromDouble(y, i, Saturate(rounded + y_zero_point, out_dtype));
  }
  return y;
}

}  // namespace loom::kernels::reference
