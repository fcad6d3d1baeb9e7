#include "kernels/normalization/normalization_reference.h"

#include <cmath>
#include <limits>

#include "kernels/reference/element_access.h"

namespace loom::kernels {
namespace {}  // namespace

Tensor SoftmaxReference(const Tensor& x, int axis, bool log) {
  const Shape& shape = x.shape();
  int64_t outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= shape.dim(a);
  for (int a = axis + 1; a < shape.rank(); ++a) inner *= shape.dim(a);
  const int64_t n = shape.dim(axis);
  Tensor y(x.dtype(), shape);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      auto at = [&](int64_t k) { return (o * n + k) * inner + c; };
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) {
        const double v = ReadElementAsDouble(x, at(k));
        m = std::isnan(v) || std::isnan(m) ? std::numeric_limits<double>::quiet_NaN()
                                           : std::fmax(m, v);
      }
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(ReadElementAsDouble(x, at(k)) - m);
      for (int64_t k = 0; k < n; ++k) {
        const double shifted = ReadElementAsDouble(x, at(k)) - m;
        WriteElementFromDouble(y, at(k), log ? shifted - std::log(sum) : std::exp(shifted) / sum);
      }
    }
  }
  return y;
}

Tensor BatchNormReference(const Tensor& x, const Tensor& scale, const Tensor& bias,
                          const Tensor& mean, const Tensor& var, float epsilon) {
  const int64_t channels = x.shape().dim(1);
  int64_t spatial = 1;
  for (int a = 2; a < x.shape().rank(); ++a) spatial *= x.shape().dim(a);
  Tensor y(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const int64_t c = (i / spatial) % channels;
    const double normalized = (ReadElementAsDouble(x, i) - ReadElementAsDouble(mean, c)) /
                              std::sqrt(ReadElementAsDouble(var, c) + static_cast<double>(epsilon));
    WriteElementFromDouble(
        y, i, normalized * ReadElementAsDouble(scale, c) + ReadElementAsDouble(bias, c));
  }
  return y;
}

std::vector<Tensor> LayerNormReference(const Tensor& x, const Tensor& scale, const Tensor* bias,
                                       int axis, float epsilon) {
  const std::vector<int64_t>& dims = x.shape().dims();
  int64_t outer = 1, n = 1;
  std::vector<int64_t> stat_dims;
  for (int a = 0; a < x.shape().rank(); ++a) {
    if (a < axis) {
      outer *= dims[static_cast<size_t>(a)];
      stat_dims.push_back(dims[static_cast<size_t>(a)]);
    } else {
      n *= dims[static_cast<size_t>(a)];
      stat_dims.push_back(1);
    }
  }
  Tensor y(x.dtype(), x.shape());
  Tensor mean_out(DType::kFloat32, Shape(stat_dims));
  Tensor inv_out(DType::kFloat32, Shape(stat_dims));
  for (int64_t r = 0; r < outer; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += ReadElementAsDouble(x, r * n + i);
    mean /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i)
      var +=
          (ReadElementAsDouble(x, r * n + i) - mean) * (ReadElementAsDouble(x, r * n + i) - mean);
    var /= static_cast<double>(n);
    const double inv = 1 / std::sqrt(var + static_cast<double>(epsilon));
    mean_out.data<float>()[r] = static_cast<float>(mean);
    inv_out.data<float>()[r] = static_cast<float>(inv);
    for (int64_t i = 0; i < n; ++i) {
      double v = (ReadElementAsDouble(x, r * n + i) - mean) * inv * ReadElementAsDouble(scale, i);
      if (bias != nullptr) v += ReadElementAsDouble(*bias, i);
      WriteElementFromDouble(y, r * n + i, v);
    }
  }
  return {y, mean_out, inv_out};
}

Tensor InstanceNormReference(const Tensor& x, const Tensor& scale, const Tensor& bias,
                             float epsilon) {
  const int64_t channels = x.shape().dim(1);
  int64_t spatial = 1;
  for (int a = 2; a < x.shape().rank(); ++a) spatial *= x.shape().dim(a);
  Tensor y(x.dtype(), x.shape());
  for (int64_t plane = 0; plane < x.shape().dim(0) * channels; ++plane) {
    const int64_t c = plane % channels, base = plane * spatial;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < spatial; ++i) mean += ReadElementAsDouble(x, base + i);
    mean /= static_cast<double>(spatial);
    for (int64_t i = 0; i < spatial; ++i) {
      var += (ReadElementAsDouble(x, base + i) - mean) * (ReadElementAsDouble(x, base + i) - mean);
    }
    var /= static_cast<double>(spatial);
    for (int64_t i = 0; i < spatial; ++i) {
      WriteElementFromDouble(y, base + i,
                             (ReadElementAsDouble(x, base + i) - mean) /
                                     std::sqrt(var + static_cast<double>(epsilon)) *
                                     ReadElementAsDouble(scale, c) +
                                 ReadElementAsDouble(bias, c));
    }
  }
  return y;
}

}  // namespace loom::kernels
