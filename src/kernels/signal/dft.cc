// DFT and STFT (signal.h) over FftPlan (fft_plan.h).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/signal/fft_plan.h"
#include "kernels/signal/signal.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

using signal::Complex;
using signal::FftPlan;

// Lengths above this are refused: the plan and the padded signal are held
// in float64 complex buffers.
constexpr int64_t kMaxLength = int64_t{1} << 26;

int64_t ScalarInt(std::string_view op, const Tensor& t, std::string_view name) {
  CheckDType(op, name, t, {DType::kInt32, DType::kInt64});
  if (t.num_elements() != 1 || t.shape().rank() > 1) {
    ThrowKernelError(op, "input '" + std::string(name) + "' must be a scalar (got shape " +
                             t.shape().to_string() + ")");
  }
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

double Load(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat64 ? t.data<double>()[i] : t.data<float>()[i];
}

void Store(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DType::kFloat64) {
    t.data<double>()[i] = v;
  } else {
    t.data<float>()[i] = static_cast<float>(v);
  }
}

void CheckLength(std::string_view op, std::string_view what, int64_t n) {
  if (n < 1 || n > kMaxLength) {
    ThrowKernelError(op,
                     std::string(what) + " must be in [1, 2^26] (got " + std::to_string(n) + ")");
  }
}

}  // namespace

std::vector<Tensor> DftKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  constexpr std::string_view kOp = "DFT";
  CheckInputCount(kOp, inputs, 1, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input");
  CheckDType(kOp, "input", x, {DType::kFloat32, DType::kFloat64});
  const int rank = x.shape().rank();
  const std::vector<int64_t>& dims = x.shape().dims();
  if (rank < 2 || (dims.back() != 1 && dims.back() != 2)) {
    ThrowKernelError(kOp,
                     "input 'input' must have rank >= 2 and a last axis of 1 (real) or 2 "
                     "(complex) (got shape " +
                         x.shape().to_string() + ")");
  }
  int64_t axis_value = -2;
  if (const Tensor* a = OptionalInput(inputs, 2)) axis_value = ScalarInt(kOp, *a, "axis");
  const int axis = NormalizeAxis(kOp, axis_value, rank);
  if (axis == rank - 1) {
    ThrowKernelError(kOp, "input 'axis' must not be the last (real/imaginary) axis (got " +
                              std::to_string(axis_value) + " for shape " + x.shape().to_string() +
                              ")");
  }
  int64_t n = dims[static_cast<size_t>(axis)];
  if (const Tensor* l = OptionalInput(inputs, 1); l != nullptr && l->num_elements() != 0) {
    n = ScalarInt(kOp, *l, "dft_length");
  }
  CheckLength(kOp, "the DFT length", n);
  const bool inverse = attrs.get_int("inverse", 0) != 0;
  const bool onesided = attrs.get_int("onesided", 0) != 0;
  const int64_t out_len = onesided ? n / 2 + 1 : n;
  std::vector<int64_t> out_dims = dims;
  out_dims[static_cast<size_t>(axis)] = out_len;
  out_dims.back() = 2;
  Tensor y = Tensor::uninitialized(x.dtype(), Shape(out_dims));
  if (y.num_elements() == 0) return {y};

  const int64_t len = dims[static_cast<size_t>(axis)];
  const int64_t comps = dims.back();
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[static_cast<size_t>(d)];
  for (int d = axis + 1; d < rank - 1; ++d) inner *= dims[static_cast<size_t>(d)];
  const FftPlan plan(n, inverse);
  const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
  const int64_t copy = std::min(len, n);
  const double cost = 10.0 * static_cast<double>(n) * std::log2(static_cast<double>(n) + 1) + 50;
  // Serial loop replaced: for each signal s = (o, i): gather it along the
  // axis (truncated or zero-padded to n), transform, write out_len values.
  threading::ParallelFor(ctx.pool, outer * inner, cost, [&](int64_t begin, int64_t end) {
    std::vector<Complex> in(static_cast<size_t>(n)), out(static_cast<size_t>(n)), scratch;
    for (int64_t s = begin; s < end; ++s) {
      const int64_t o = s / inner, i = s % inner;
      std::fill(in.begin(), in.end(), Complex(0, 0));
      for (int64_t j = 0; j < copy; ++j) {
        const int64_t at = ((o * len + j) * inner + i) * comps;
        in[static_cast<size_t>(j)] = Complex(Load(x, at), comps == 2 ? Load(x, at + 1) : 0.0);
      }
      plan.Run(in.data(), out.data(), scratch);
      for (int64_t k = 0; k < out_len; ++k) {
        const int64_t at = ((o * out_len + k) * inner + i) * 2;
        Store(y, at, out[static_cast<size_t>(k)].real() * scale);
        Store(y, at + 1, out[static_cast<size_t>(k)].imag() * scale);
      }
    }
  });
  return {y};
}

std::vector<Tensor> StftKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  constexpr std::string_view kOp = "STFT";
  CheckInputCount(kOp, inputs, 2, 4);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "signal");
  CheckDType(kOp, "signal", x, {DType::kFloat32, DType::kFloat64});
  const std::vector<int64_t>& dims = x.shape().dims();
  if (x.shape().rank() != 3 || (dims[2] != 1 && dims[2] != 2)) {
    ThrowKernelError(kOp, "input 'signal' must have shape [batch, length, 1 or 2] (got " +
                              x.shape().to_string() + ")");
  }
  const int64_t step = ScalarInt(kOp, RequiredInput(kOp, inputs, 1, "frame_step"), "frame_step");
  if (step < 1) {
    ThrowKernelError(kOp, "input 'frame_step' must be positive (got " + std::to_string(step) + ")");
  }
  const Tensor* window = OptionalInput(inputs, 2);
  if (window != nullptr && window->num_elements() == 0 && window->shape().rank() == 0) {
    window = nullptr;
  }
  int64_t frame_length = -1;
  if (window != nullptr) {
    if (window->dtype() != x.dtype() || window->shape().rank() != 1) {
      ThrowKernelError(kOp, "input 'window' must be a 1-D tensor of the signal's dtype (got " +
                                std::string(dtype_name(window->dtype())) +
                                window->shape().to_string() + ")");
    }
    frame_length = window->shape().dim(0);
  }
  if (const Tensor* fl = OptionalInput(inputs, 3)) {
    const int64_t v = ScalarInt(kOp, *fl, "frame_length");
    if (frame_length >= 0 && v != frame_length) {
      ThrowKernelError(kOp, "input 'frame_length' is " + std::to_string(v) +
                                " but the window has " + std::to_string(frame_length) + " values");
    }
    frame_length = v;
  }
  if (frame_length < 0) frame_length = dims[1];
  CheckLength(kOp, "the frame length", frame_length);
  if (frame_length > dims[1]) {
    ThrowKernelError(kOp, "the frame length " + std::to_string(frame_length) +
                              " exceeds the signal length " + std::to_string(dims[1]));
  }
  const bool onesided = attrs.get_int("onesided", 1) != 0;
  const int64_t frames = 1 + (dims[1] - frame_length) / step;
  const int64_t bins = onesided ? frame_length / 2 + 1 : frame_length;
  Tensor y = Tensor::uninitialized(x.dtype(), Shape({dims[0], frames, bins, 2}));
  if (y.num_elements() == 0) return {y};
  const int64_t comps = dims[2];
  const FftPlan plan(frame_length, false);
  const double cost =
      10.0 * static_cast<double>(frame_length) * std::log2(static_cast<double>(frame_length) + 1);
  // Serial loop replaced: for each (batch b, frame f): window the frame,
  // transform it, write its bins.
  threading::ParallelFor(ctx.pool, dims[0] * frames, cost, [&](int64_t begin, int64_t end) {
    std::vector<Complex> in(static_cast<size_t>(frame_length)),
        out(static_cast<size_t>(frame_length)), scratch;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t b = u / frames, f = u % frames;
      for (int64_t j = 0; j < frame_length; ++j) {
        const int64_t at = (b * dims[1] + f * step + j) * comps;
        const double w = window != nullptr ? Load(*window, j) : 1.0;
        in[static_cast<size_t>(j)] =
            Complex(Load(x, at) * w, comps == 2 ? Load(x, at + 1) * w : 0.0);
      }
      plan.Run(in.data(), out.data(), scratch);
      for (int64_t k = 0; k < bins; ++k) {
        Store(y, (u * bins + k) * 2, out[static_cast<size_t>(k)].real());
        Store(y, (u * bins + k) * 2 + 1, out[static_cast<size_t>(k)].imag());
      }
    }
  });
  return {y};
}

}  // namespace loom::kernels
