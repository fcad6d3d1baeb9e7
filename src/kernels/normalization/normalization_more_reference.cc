#include "kernels/normalization/normalization_more_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/reference/element_access.h"

namespace loom::kernels {
namespace {

std::vector<int64_t> Unflatten(const Shape& shape, int64_t flat) {
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = flat % shape.dims()[d];
    flat /= shape.dims()[d];
  }
  return index;
}

int64_t Flatten(const Shape& shape, const std::vector<int64_t>& index) {
  int64_t flat = 0;
  for (int d = 0; d < shape.rank(); ++d) flat = flat * shape.dims()[d] + index[d];
  return flat;
}

}  // namespace

Tensor LpNormReference(const Tensor& x, int axis, int p) {
  Tensor y(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    std::vector<int64_t> index = Unflatten(x.shape(), i);
    double sum = 0;
    for (int64_t k = 0; k < x.shape().dims()[axis]; ++k) {
      index[axis] = k;
      const double v = ReadElementAsDouble(x, Flatten(x.shape(), index));
      sum += p == 1 ? std::fabs(v) : v * v;
    }
    const double norm = p == 1 ? sum : std::sqrt(sum);
    WriteElementFromDouble(y, i, ReadElementAsDouble(x, i) / norm);
  }
  return y;
}

Tensor GroupNormReference(const Tensor& x, const Tensor& scale, const Tensor& bias, int groups,
                          double epsilon) {
  Tensor y(x.dtype(), x.shape());
  const int64_t n = x.shape().dims()[0], c = x.shape().dims()[1];
  const int64_t spatial = n * c == 0 ? 0 : x.num_elements() / (n * c);
  const int64_t per = c / groups;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t first = (b * c + g * per) * spatial, count = per * spatial;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < count; ++i) mean += ReadElementAsDouble(x, first + i);
      mean /= static_cast<double>(count);
      for (int64_t i = 0; i < count; ++i) {
        const double d = ReadElementAsDouble(x, first + i) - mean;
        var += d * d;
      }
      var /= static_cast<double>(count);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t channel = g * per + i / spatial;
        const double xhat = (ReadElementAsDouble(x, first + i) - mean) / std::sqrt(var + epsilon);
        WriteElementFromDouble(
            y, first + i,
            xhat * ReadElementAsDouble(scale, channel) + ReadElementAsDouble(bias, channel));
      }
    }
  }
  return y;
}

Tensor LrnReference(const Tensor& x, double alpha, double beta, double bias, int size) {
  Tensor y(x.dtype(), x.shape());
  const int64_t c = x.shape().dims()[1];
  const int64_t half_down = (size - 1) / 2;
  const int64_t half_up = static_cast<int64_t>(std::ceil((size - 1) / 2.0));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    std::vector<int64_t> index = Unflatten(x.shape(), i);
    const int64_t channel = index[1];
    double sum = 0;
    for (int64_t k = std::max<int64_t>(0, channel - half_down);
         k <= std::min(c - 1, channel + half_up); ++k) {
      index[1] = k;
      const double v = ReadElementAsDouble(x, Flatten(x.shape(), index));
      sum += v * v;
    }
    WriteElementFromDouble(y, i,
                           ReadElementAsDouble(x, i) / std::pow(bias + alpha / size * sum, beta));
  }
  return y;
}

Tensor MvnReference(const Tensor& x, const std::vector<int>& axes) {
  Tensor y(x.dtype(), x.shape());
  const auto reduced = [&](int d) { return std::find(axes.begin(), axes.end(), d) != axes.end(); };
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const std::vector<int64_t> here = Unflatten(x.shape(), i);
    // Every element sharing i's kept coordinates.
    double sum = 0, square = 0;
    int64_t count = 0;
    for (int64_t j = 0; j < x.num_elements(); ++j) {
      const std::vector<int64_t> there = Unflatten(x.shape(), j);
      bool same = true;
      for (int d = 0; d < x.shape().rank(); ++d) same = same && (reduced(d) || here[d] == there[d]);
      if (!same) continue;
      sum += ReadElementAsDouble(x, j);
      ++count;
    }
    const double mean = sum / static_cast<double>(count);
    for (int64_t j = 0; j < x.num_elements(); ++j) {
      const std::vector<int64_t> there = Unflatten(x.shape(), j);
      bool same = true;
      for (int d = 0; d < x.shape().rank(); ++d) same = same && (reduced(d) || here[d] == there[d]);
      if (same) square += (ReadElementAsDouble(x, j) - mean) * (ReadElementAsDouble(x, j) - mean);
    }
    const double stddev = std::sqrt(square / static_cast<double>(count));
    WriteElementFromDouble(y, i, (ReadElementAsDouble(x, i) - mean) / (stddev + 1e-9));
  }
  return y;
}

}  // namespace loom::kernels
