// The Conv loop nest written out plainly, accumulated in double: the oracle
// for every algorithm, ISA and thread count in conv.cc.
#include <vector>

#include "kernels/conv/conv.h"
#include "kernels/fused_activation.h"
#include "kernels/spatial_geometry.h"

namespace loom::kernels {

Tensor ConvReference(const Attributes& attrs, const Tensor& x, const Tensor& w, const Tensor* b) {
  const int rank = x.shape().rank() - 2;
  const int64_t batch = x.shape().dim(0), channels = x.shape().dim(1);
  const int64_t out_channels = w.shape().dim(0), per_group = w.shape().dim(1);
  const int64_t group = attrs.get_int("group", 1);
  const std::vector<int64_t> spatial(x.shape().dims().begin() + 2, x.shape().dims().end());
  const std::vector<int64_t> kernel(w.shape().dims().begin() + 2, w.shape().dims().end());
  const SpatialGeometry g = ResolveSpatialGeometry("Conv", attrs, spatial, kernel);
  const Activation activation = FusedActivationFromAttributes("Conv", attrs);

  std::vector<int64_t> out_dims = {batch, out_channels};
  out_dims.insert(out_dims.end(), g.output.begin(), g.output.end());
  Tensor y(DType::kFloat32, Shape(out_dims));
  int64_t positions = 1, taps = 1, plane = 1;
  for (int a = 0; a < rank; ++a) {
    positions *= g.output[a];
    taps *= kernel[a];
    plane *= spatial[a];
  }
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  float* yp = y.data<float>();
  std::vector<int64_t> o(static_cast<size_t>(rank)), t(static_cast<size_t>(rank));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t m = 0; m < out_channels; ++m) {
      const int64_t first_channel = m / (out_channels / group) * per_group;
      for (int64_t p = 0; p < positions; ++p) {
        for (int64_t r = p, a = rank - 1; a >= 0; --a) {
          o[a] = r % g.output[a];
          r /= g.output[a];
        }
        double sum = b != nullptr ? b->data<float>()[m] : 0.0;
        for (int64_t c = 0; c < per_group; ++c) {
          for (int64_t tap = 0; tap < taps; ++tap) {
            for (int64_t r = tap, a = rank - 1; a >= 0; --a) {
              t[a] = r % kernel[a];
              r /= kernel[a];
            }
            int64_t offset = 0;
            bool inside = true;
            for (int a = 0; a < rank; ++a) {
              const int64_t i = o[a] * g.stride[a] - g.pad_begin[a] + t[a] * g.dilation[a];
              inside = inside && i >= 0 && i < spatial[a];
              offset = offset * spatial[a] + i;
            }
            if (!inside) continue;
            sum += static_cast<double>(xp[(n * channels + first_channel + c) * plane + offset]) *
                   wp[(m * per_group + c) * taps + tap];
          }
        }
        yp[(n * out_channels + m) * positions + p] =
            ActivationReference(activation, static_cast<float>(sum));
      }
    }
  }
  return y;
}

}  // namespace loom::kernels
