#include "kernels/random/random_ops.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <string>

#include "kernels/dtype_visit.h"
#include "kernels/onnx_dtype.h"
#include "kernels/reference/element_access.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

// The node's generator: seeded from the `seed` attribute's bits when given
// (the same values every run), else from std::random_device.
std::mt19937_64 Generator(const Attributes& attrs) {
  if (attrs.has("seed")) {
    const float seed = attrs.get_float("seed");
    return std::mt19937_64(std::bit_cast<uint32_t>(seed));
  }
  thread_local std::random_device device;
  const uint64_t high = device();
  return std::mt19937_64((high << 32) ^ device());
}

// Uniform in [0, 1): the top 53 bits as a double.
double Uniform01(std::mt19937_64& gen) { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }

// Standard normal by Box-Muller (both values used).
class Normal {
 public:
  double Next(std::mt19937_64& gen) {
    if (spare_) {
      const double value = *spare_;
      spare_.reset();
      return value;
    }
    const double u1 = 1.0 - Uniform01(gen);  // (0, 1]: log is finite
    const double u2 = Uniform01(gen);
    const double radius = std::sqrt(-2.0 * std::log(u1));
    spare_ = radius * std::sin(2.0 * std::numbers::pi * u2);
    return radius * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::optional<double> spare_;
};

DType FloatDType(std::string_view op, const Attributes& attrs, DType fallback) {
  if (!attrs.has("dtype")) return fallback;
  const int64_t code = attrs.get_int("dtype");
  const std::optional<DType> dtype = DTypeFromOnnxDataType(code);
  if (!dtype || !dtype_is_float(*dtype)) {
    ThrowKernelError(op, "attribute 'dtype' = " + std::to_string(code) +
                             " is not a floating-point type (1 FLOAT, 10 FLOAT16, 11 DOUBLE, "
                             "16 BFLOAT16)");
  }
  return *dtype;
}

Shape ShapeAttribute(std::string_view op, const Attributes& attrs) {
  if (!attrs.has("shape")) ThrowKernelError(op, "attribute 'shape' is required");
  const std::vector<int64_t> dims = attrs.get_ints("shape");
  for (int64_t d : dims) {
    if (d < 0) ThrowKernelError(op, "attribute 'shape' has a negative dimension");
  }
  return Shape(dims);  // throws on an element count that overflows
}

// Fills `out` with `draw(gen)` converted to its float dtype.
template <typename Draw>
Tensor Fill(DType dtype, const Shape& shape, std::mt19937_64& gen, Draw draw) {
  Tensor out = Tensor::uninitialized(dtype, shape);
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* p = out.data<T>();
      for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = static_cast<T>(draw(gen));
    } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      T* p = out.data<T>();
      for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = T(static_cast<float>(draw(gen)));
    }
  });
  return out;
}

Tensor UniformTensor(DType dtype, const Shape& shape, const Attributes& attrs) {
  const double low = attrs.get_float("low", 0.0f);
  const double high = attrs.get_float("high", 1.0f);
  std::mt19937_64 gen = Generator(attrs);
  return Fill(dtype, shape, gen,
              [&](std::mt19937_64& g) { return low + (high - low) * Uniform01(g); });
}

Tensor NormalTensor(DType dtype, const Shape& shape, const Attributes& attrs) {
  const double mean = attrs.get_float("mean", 0.0f);
  const double scale = attrs.get_float("scale", 1.0f);
  std::mt19937_64 gen = Generator(attrs);
  Normal normal;
  return Fill(dtype, shape, gen, [&](std::mt19937_64& g) { return mean + scale * normal.Next(g); });
}

// The *Like ops' output dtype: attribute 'dtype', else the input's, which
// must then be a float type.
DType LikeDType(std::string_view op, const Attributes& attrs, const Tensor& like) {
  if (!attrs.has("dtype") && !dtype_is_float(like.dtype())) {
    ThrowKernelError(op, "input has dtype " + std::string(dtype_name(like.dtype())) +
                             "; without attribute 'dtype' the output needs a float input");
  }
  return FloatDType(op, attrs, dtype_is_float(like.dtype()) ? like.dtype() : DType::kFloat32);
}

}  // namespace

bool IsRandomOp(std::string_view op) {
  return op == "RandomUniform" || op == "RandomNormal" || op == "RandomUniformLike" ||
         op == "RandomNormalLike" || op == "Bernoulli" || op == "Multinomial";
}

std::vector<Tensor> RandomUniformKernel(const KernelContext&, const Attributes& attrs,
                                        KernelInputs inputs) {
  constexpr std::string_view kOp = "RandomUniform";
  CheckInputCount(kOp, inputs, 0, 0);
  return {
      UniformTensor(FloatDType(kOp, attrs, DType::kFloat32), ShapeAttribute(kOp, attrs), attrs)};
}

std::vector<Tensor> RandomNormalKernel(const KernelContext&, const Attributes& attrs,
                                       KernelInputs inputs) {
  constexpr std::string_view kOp = "RandomNormal";
  CheckInputCount(kOp, inputs, 0, 0);
  return {NormalTensor(FloatDType(kOp, attrs, DType::kFloat32), ShapeAttribute(kOp, attrs), attrs)};
}

std::vector<Tensor> RandomUniformLikeKernel(const KernelContext&, const Attributes& attrs,
                                            KernelInputs inputs) {
  constexpr std::string_view kOp = "RandomUniformLike";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& like = RequiredInput(kOp, inputs, 0, "input");
  return {UniformTensor(LikeDType(kOp, attrs, like), like.shape(), attrs)};
}

std::vector<Tensor> RandomNormalLikeKernel(const KernelContext&, const Attributes& attrs,
                                           KernelInputs inputs) {
  constexpr std::string_view kOp = "RandomNormalLike";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& like = RequiredInput(kOp, inputs, 0, "input");
  return {NormalTensor(LikeDType(kOp, attrs, like), like.shape(), attrs)};
}

std::vector<Tensor> BernoulliKernel(const KernelContext&, const Attributes& attrs,
                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "Bernoulli";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& p = RequiredInput(kOp, inputs, 0, "input");
  if (!dtype_is_float(p.dtype())) {
    ThrowKernelError(kOp, "input has dtype " + std::string(dtype_name(p.dtype())) +
                              "; probabilities must be floating point");
  }
  DType dtype = p.dtype();
  if (attrs.has("dtype")) {
    const int64_t code = attrs.get_int("dtype");
    const std::optional<DType> requested = DTypeFromOnnxDataType(code);
    if (!requested || *requested == DType::kString) {
      ThrowKernelError(kOp, "attribute 'dtype' = " + std::to_string(code) +
                                " is not a numeric or bool dtype Loom supports");
    }
    dtype = *requested;
  }
  std::mt19937_64 gen = Generator(attrs);
  Tensor out = Tensor::uninitialized(dtype, p.shape());
  for (int64_t i = 0; i < p.num_elements(); ++i) {
    const double probability = ReadElementAsDouble(p, i);
    if (!(probability >= 0.0 && probability <= 1.0)) {
      ThrowKernelError(kOp, "input element " + std::to_string(i) + " = " +
                                std::to_string(probability) + " is not a probability in [0, 1]");
    }
    const bool one = Uniform01(gen) < probability;
    VisitDType(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        out.data<T>()[i] = T(one ? 1.0f : 0.0f);
      } else {
        out.data<T>()[i] = static_cast<T>(one ? 1 : 0);
      }
    });
  }
  return {std::move(out)};
}

std::vector<Tensor> MultinomialKernel(const KernelContext&, const Attributes& attrs,
                                      KernelInputs inputs) {
  constexpr std::string_view kOp = "Multinomial";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& logits = RequiredInput(kOp, inputs, 0, "input");
  if (!dtype_is_float(logits.dtype()) || logits.shape().rank() != 2) {
    ThrowKernelError(kOp, "input must be a 2-D floating-point tensor [batch, classes], got " +
                              std::string(dtype_name(logits.dtype())) + logits.shape().to_string());
  }
  const int64_t code = attrs.get_int("dtype", 6);
  if (code != 6 && code != 7) {
    ThrowKernelError(
        kOp, "attribute 'dtype' = " + std::to_string(code) + " must be 6 (INT32) or 7 (INT64)");
  }
  const int64_t samples = attrs.get_int("sample_size", 1);
  if (samples < 0) ThrowKernelError(kOp, "sample_size must be >= 0");
  const int64_t batch = logits.shape().dims()[0];
  const int64_t classes = logits.shape().dims()[1];
  if (classes == 0 && samples > 0 && batch > 0) {
    ThrowKernelError(kOp, "input has no classes to draw from");
  }
  const DType dtype = code == 6 ? DType::kInt32 : DType::kInt64;
  Tensor out = Tensor::uninitialized(dtype, Shape({batch, samples}));
  std::mt19937_64 gen = Generator(attrs);
  std::vector<double> cumulative(static_cast<size_t>(classes));
  for (int64_t b = 0; b < batch; ++b) {
    // Cumulative softmax, shifted by the row's maximum.
    double top = -std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < classes; ++c) {
      top = std::max(top, ReadElementAsDouble(logits, b * classes + c));
    }
    if (!std::isfinite(top) && samples > 0) {
      ThrowKernelError(
          kOp, "row " + std::to_string(b) + " has no finite log-probability (NaN, or all -inf)");
    }
    double total = 0;
    for (int64_t c = 0; c < classes; ++c) {
      total += std::exp(ReadElementAsDouble(logits, b * classes + c) - top);
      cumulative[static_cast<size_t>(c)] = total;
    }
    for (int64_t s = 0; s < samples; ++s) {
      const double u = Uniform01(gen) * total;
      int64_t chosen = classes - 1;
      for (int64_t c = 0; c < classes; ++c) {
        if (u < cumulative[static_cast<size_t>(c)]) {
          chosen = c;
          break;
        }
      }
      if (dtype == DType::kInt32) {
        out.data<int32_t>()[b * samples + s] = static_cast<int32_t>(chosen);
      } else {
        out.data<int64_t>()[b * samples + s] = chosen;
      }
    }
  }
  return {std::move(out)};
}

}  // namespace loom::kernels
