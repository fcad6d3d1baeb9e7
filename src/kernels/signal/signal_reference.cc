#include "kernels/signal/signal_reference.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "kernels/reference/element_access.h"

namespace loom::kernels::signal {

Tensor DftReference(const Tensor& x, int axis, int64_t n, bool inverse, bool onesided) {
  std::vector<int64_t> dims = x.shape().dims();
  const int rank = static_cast<int>(dims.size());
  const int64_t len = dims[static_cast<size_t>(axis)], comps = dims.back();
  std::vector<int64_t> out_dims = dims;
  out_dims[static_cast<size_t>(axis)] = onesided ? n / 2 + 1 : n;
  out_dims.back() = 2;
  Tensor y(x.dtype(), Shape(out_dims));
  const Shape in_shape(dims);
  std::vector<int64_t> in_strides(dims.size(), 1), out_strides(dims.size(), 1);
  for (int d = rank - 1; d > 0; --d) {
    in_strides[d - 1] = in_strides[d] * dims[d];
    out_strides[d - 1] = out_strides[d] * out_dims[d];
  }
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t o = 0; o < y.num_elements(); o += 2) {
    // The output index, and the input offset of its signal's first element.
    int64_t rest = o, base = 0, k = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t i = rest / out_strides[d];
      rest %= out_strides[d];
      if (d == axis) {
        k = i;
      } else if (d < rank - 1) {
        base += i * in_strides[d];
      }
    }
    double re = 0, im = 0;
    for (int64_t j = 0; j < n && j < len; ++j) {
      const int64_t at = base + j * in_strides[axis];
      const double xr = ReadElementAsDouble(x, at);
      const double xi = comps == 2 ? ReadElementAsDouble(x, at + 1) : 0.0;
      const double angle =
          sign * 2 * std::numbers::pi * static_cast<double>((j * k) % n) / static_cast<double>(n);
      re += xr * std::cos(angle) - xi * std::sin(angle);
      im += xr * std::sin(angle) + xi * std::cos(angle);
    }
    const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    WriteElementFromDouble(y, o, re * scale);
    WriteElementFromDouble(y, o + 1, im * scale);
  }
  return y;
}

}  // namespace loom::kernels::signal
