#include "kernels/pool/pool_lp_reference.h"

#include <cmath>

#include "kernels/reference/element_access.h"

namespace loom::kernels {

Tensor LpPoolReference(const Tensor& x, const std::vector<int64_t>& kernel,
                       const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                       const std::vector<int64_t>& dilations, int p) {
  const size_t r = kernel.size();
  const std::vector<int64_t>& in = x.shape().dims();
  std::vector<int64_t> out_dims = {in[0], in[1]};
  for (size_t d = 0; d < r; ++d) {
    const int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    out_dims.push_back((in[d + 2] + pads[d] + pads[d + r] - extent) / strides[d] + 1);
  }
  const Shape out_shape(out_dims);
  Tensor y(x.dtype(), out_shape);
  int64_t window = 1;
  for (int64_t k : kernel) window *= k;
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    std::vector<int64_t> index(out_dims.size());
    int64_t rest = o;
    for (size_t d = out_dims.size(); d-- > 0;) {
      index[d] = rest % out_dims[d];
      rest /= out_dims[d];
    }
    double sum = 0;
    for (int64_t w = 0; w < window; ++w) {
      int64_t tap_rest = w, flat = index[0] * in[1] + index[1];
      std::vector<int64_t> tap(r);
      for (size_t d = r; d-- > 0;) {
        tap[d] = tap_rest % kernel[d];
        tap_rest /= kernel[d];
      }
      bool inside = true;
      for (size_t d = 0; d < r; ++d) {
        const int64_t pos = index[d + 2] * strides[d] - pads[d] + tap[d] * dilations[d];
        inside = inside && pos >= 0 && pos < in[d + 2];
        flat = flat * in[d + 2] + pos;
      }
      if (inside) sum += std::pow(std::fabs(ReadElementAsDouble(x, flat)), p);
    }
    WriteElementFromDouble(y, o, std::pow(sum, 1.0 / p));
  }
  return y;
}

}  // namespace loom::kernels
