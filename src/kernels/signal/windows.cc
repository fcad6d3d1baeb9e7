// The window functions and MelWeightMatrix (signal.h).
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "kernels/onnx_dtype.h"
#include "kernels/reference/element_access.h"
#include "kernels/signal/signal.h"

namespace loom::kernels {
namespace {

constexpr int64_t kMaxSize = int64_t{1} << 28;

int64_t ScalarInt(std::string_view op, const Tensor& t, std::string_view name) {
  CheckDType(op, name, t, {DType::kInt32, DType::kInt64});
  if (t.num_elements() != 1 || t.shape().rank() > 1) {
    ThrowKernelError(op, "input '" + std::string(name) + "' must be a scalar (got shape " +
                             t.shape().to_string() + ")");
  }
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

DType OutputDType(std::string_view op, const Attributes& attrs) {
  const int64_t code = attrs.get_int("output_datatype", 1);
  const std::optional<DType> dtype = DTypeFromOnnxDataType(code);
  if (!dtype || *dtype == DType::kBool || *dtype == DType::kString) {
    ThrowKernelError(op, "attribute 'output_datatype' = " + std::to_string(code) +
                             " is not a numeric dtype Loom supports");
  }
  return *dtype;
}

enum class Window { kHann, kHamming, kBlackman };

std::vector<Tensor> MakeWindow(std::string_view op, Window kind, const Attributes& attrs,
                               KernelInputs inputs) {
  CheckInputCount(op, inputs, 1, 1);
  const int64_t size = ScalarInt(op, RequiredInput(op, inputs, 0, "size"), "size");
  if (size < 0 || size > kMaxSize) {
    ThrowKernelError(op, "input 'size' must be in [0, 2^28] (got " + std::to_string(size) + ")");
  }
  const DType dtype = OutputDType(op, attrs);
  const bool periodic = attrs.get_int("periodic", 1) != 0;
  const double n_total = static_cast<double>(periodic ? size : size - 1);
  Tensor y = Tensor::uninitialized(dtype, Shape({size}));
  constexpr double pi = std::numbers::pi;
  for (int64_t i = 0; i < size; ++i) {
    const double n = static_cast<double>(i);
    double v = 0;
    switch (kind) {
      case Window::kHann: {
        const double s = std::sin(n * pi / n_total);
        v = s * s;
        break;
      }
      case Window::kHamming:
        v = 25.0 / 46.0 - std::cos(n * pi * 2 / n_total) * (1 - 25.0 / 46.0);
        break;
      case Window::kBlackman:
        v = std::cos(n * (pi * 2) / n_total) * -0.5 + std::cos(n * (pi * 4) / n_total) * 0.08 +
            0.42;
        break;
    }
    WriteElementFromDouble(y, i, v);
  }
  return {y};
}

}  // namespace

std::vector<Tensor> HannWindowKernel(const KernelContext&, const Attributes& attrs,
                                     KernelInputs inputs) {
  return MakeWindow("HannWindow", Window::kHann, attrs, inputs);
}
std::vector<Tensor> HammingWindowKernel(const KernelContext&, const Attributes& attrs,
                                        KernelInputs inputs) {
  return MakeWindow("HammingWindow", Window::kHamming, attrs, inputs);
}
std::vector<Tensor> BlackmanWindowKernel(const KernelContext&, const Attributes& attrs,
                                         KernelInputs inputs) {
  return MakeWindow("BlackmanWindow", Window::kBlackman, attrs, inputs);
}

std::vector<Tensor> MelWeightMatrixKernel(const KernelContext&, const Attributes& attrs,
                                          KernelInputs inputs) {
  constexpr std::string_view kOp = "MelWeightMatrix";
  CheckInputCount(kOp, inputs, 5, 5);
  const int64_t mel_bins =
      ScalarInt(kOp, RequiredInput(kOp, inputs, 0, "num_mel_bins"), "num_mel_bins");
  const int64_t dft_length =
      ScalarInt(kOp, RequiredInput(kOp, inputs, 1, "dft_length"), "dft_length");
  const int64_t sample_rate =
      ScalarInt(kOp, RequiredInput(kOp, inputs, 2, "sample_rate"), "sample_rate");
  const Tensor& lower_t = RequiredInput(kOp, inputs, 3, "lower_edge_hertz");
  const Tensor& upper_t = RequiredInput(kOp, inputs, 4, "upper_edge_hertz");
  for (const Tensor* t : {&lower_t, &upper_t}) {
    CheckDType(kOp, "lower_edge_hertz/upper_edge_hertz", *t, {DType::kFloat32, DType::kFloat64});
    if (t->num_elements() != 1 || t->shape().rank() > 1) {
      ThrowKernelError(kOp, "inputs 'lower_edge_hertz' and 'upper_edge_hertz' must be scalars");
    }
  }
  if (mel_bins < 1 || mel_bins > kMaxSize || dft_length < 1 || dft_length > kMaxSize ||
      sample_rate < 1) {
    ThrowKernelError(kOp, "num_mel_bins, dft_length and sample_rate must be positive (got " +
                              std::to_string(mel_bins) + ", " + std::to_string(dft_length) + ", " +
                              std::to_string(sample_rate) + ")");
  }
  if (mel_bins * (dft_length / 2 + 1) > kMaxSize) {
    ThrowKernelError(kOp, "the output [" + std::to_string(dft_length / 2 + 1) + ", " +
                              std::to_string(mel_bins) + "] is too large");
  }
  const DType dtype = OutputDType(kOp, attrs);
  const int64_t spectrogram_bins = dft_length / 2 + 1;
  // As ONNX's reference: the mel edges in the edge inputs' precision
  // (float32 for float32 inputs), the bin frequencies in float64.
  double low_mel, high_mel, mel_step;
  const int64_t count = mel_bins + 2;
  if (lower_t.dtype() == DType::kFloat32 && upper_t.dtype() == DType::kFloat32) {
    const float lo = 2595.0f * std::log10(1.0f + lower_t.data<float>()[0] / 700.0f);
    const float hi = 2595.0f * std::log10(1.0f + upper_t.data<float>()[0] / 700.0f);
    low_mel = lo;
    high_mel = hi;
    mel_step = static_cast<float>((hi - lo) / static_cast<float>(count));
  } else {
    const double lower = ReadElementAsDouble(lower_t, 0), upper = ReadElementAsDouble(upper_t, 0);
    low_mel = 2595.0 * std::log10(1.0 + lower / 700.0);
    high_mel = 2595.0 * std::log10(1.0 + upper / 700.0);
    mel_step = (high_mel - low_mel) / static_cast<double>(count);
  }
  std::vector<int64_t> bins(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    double f = static_cast<double>(i) * mel_step + low_mel;
    f = 700.0 * (std::pow(10.0, f / 2595.0) - 1.0);
    f = std::floor(static_cast<double>(dft_length + 1) * f / static_cast<double>(sample_rate));
    bins[static_cast<size_t>(i)] = static_cast<int64_t>(f);
  }
  std::vector<double> out(static_cast<size_t>(spectrogram_bins * mel_bins), 0.0);
  auto at = [&](int64_t row, int64_t col) -> double* {
    if (row < 0 || row >= spectrogram_bins) {
      ThrowKernelError(kOp, "a filter edge (bin " + std::to_string(row) +
                                ") falls outside the spectrogram's " +
                                std::to_string(spectrogram_bins) +
                                " bins: upper_edge_hertz above the Nyquist frequency");
    }
    return &out[static_cast<size_t>(row * mel_bins + col)];
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t lower = bins[static_cast<size_t>(i)], center = bins[static_cast<size_t>(i + 1)],
                  higher = bins[static_cast<size_t>(i + 2)];
    const int64_t low_to_center = center - lower;
    if (low_to_center == 0) {
      *at(center, i) = 1;
    } else {
      for (int64_t j = lower; j <= center; ++j) {
        *at(j, i) = static_cast<double>(j - lower) / static_cast<double>(low_to_center);
      }
    }
    const int64_t center_to_high = higher - center;
    for (int64_t j = center; j < higher && center_to_high > 0; ++j) {
      *at(j, i) = static_cast<double>(higher - j) / static_cast<double>(center_to_high);
    }
  }
  Tensor y = Tensor::uninitialized(dtype, Shape({spectrogram_bins, mel_bins}));
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    WriteElementFromDouble(y, i, out[static_cast<size_t>(i)]);
  }
  return {y};
}

}  // namespace loom::kernels
