// NchwcChannelAffine (nchwc.h): Y = act(X * Scale + Shift) per channel on
// the blocked layout, parallel over (image, block) planes. One pass instead
// of a broadcast Mul and Add, whose generic loops see runs of only B floats.
#include <string>

#include "kernels/fused_activation.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/nchwc/nchwc_micro_kernel.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "NchwcChannelAffine";
// Read and write from memory: ~0.5 ns a float (16 GB/s, 8 bytes).
constexpr double kNsPerFloat = 0.5;

// Checks a per-channel operand: [1 or N, Cb, 1, 1, B]; returns whether it
// varies with the image.
bool CheckChannelOperand(std::string_view name, const Tensor& t, const Shape& x) {
  CheckDType(kOp, name, t, {DType::kFloat32});
  const Shape& s = t.shape();
  const bool ok = s.rank() == 5 && (s.dim(0) == 1 || s.dim(0) == x.dim(0)) &&
                  s.dim(1) == x.dim(1) && s.dim(2) == 1 && s.dim(3) == 1 && s.dim(4) == x.dim(4);
  if (!ok) {
    ThrowKernelError(kOp, "input '" + std::string(name) + "' must have shape [1 or " +
                              std::to_string(x.dim(0)) + ", " + std::to_string(x.dim(1)) +
                              ", 1, 1, " + std::to_string(x.dim(4)) + "] (got " + s.to_string() +
                              ")");
  }
  return s.dim(0) != 1;
}

// The plain loops, for a block the ISA's table does not cover.
template <int B>
void AffinePlane(const float* x, const float* scale, const float* shift, bool relu, int64_t pixels,
                 float* y) {
  float s[B], t[B];
  for (int l = 0; l < B; ++l) {
    s[l] = scale != nullptr ? scale[l] : 1.0f;
    t[l] = shift != nullptr ? shift[l] : 0.0f;
  }
  for (int64_t i = 0; i < pixels; ++i) {
    for (int l = 0; l < B; ++l) {
      const float v = x[i * B + l] * s[l] + t[l];
      y[i * B + l] = relu ? (v > 0.0f ? v : 0.0f) : v;
    }
  }
}

}  // namespace

std::vector<Tensor> NchwcChannelAffineKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const int64_t block = CheckBlockedInput(kOp, x);
  const Tensor* scale = OptionalInput(inputs, 1);
  const Tensor* shift = OptionalInput(inputs, 2);
  const bool scale_per_image = scale != nullptr && CheckChannelOperand("Scale", *scale, x.shape());
  const bool shift_per_image = shift != nullptr && CheckChannelOperand("Shift", *shift, x.shape());
  const Activation activation = FusedActivationFromAttributes(kOp, attrs);
  const bool relu = activation.kind == ActivationKind::kRelu;
  Tensor y = Tensor::uninitialized(DType::kFloat32, x.shape());
  if (y.num_elements() == 0) return {y};
  const int64_t blocks = x.shape().dim(1);
  const int64_t pixels = x.shape().dim(2) * x.shape().dim(3);
  const float* src = x.data<float>();
  float* dst = y.data<float>();
  const NchwcMicroKernels* mk = NchwcMicroKernelsForBlock(ctx.isa, block);
  threading::ParallelFor(
      ctx.pool, x.shape().dim(0) * blocks, kNsPerFloat * static_cast<double>(pixels * block),
      [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const int64_t n = plane / blocks, cb = plane % blocks;
          const float* s = scale == nullptr ? nullptr
                                            : scale->data<float>() +
                                                  ((scale_per_image ? n : 0) * blocks + cb) * block;
          const float* t = shift == nullptr ? nullptr
                                            : shift->data<float>() +
                                                  ((shift_per_image ? n : 0) * blocks + cb) * block;
          const float* in = src + plane * pixels * block;
          float* out = dst + plane * pixels * block;
          if (mk != nullptr) {
            mk->affine_plane(in, s, t, relu, pixels, out);
          } else if (block == 16) {
            AffinePlane<16>(in, s, t, relu, pixels, out);
          } else {
            AffinePlane<8>(in, s, t, relu, pixels, out);
          }
          if (!relu && activation.kind != ActivationKind::kIdentity) {
            ApplyActivation(activation, out, pixels * block, ctx.isa);
          }
        }
      });
  return {y};
}

}  // namespace loom::kernels
