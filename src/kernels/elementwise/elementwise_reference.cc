#include "kernels/elementwise/elementwise_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kernels/reference/element_access.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

bool IsInteger(DType d) { return !dtype_is_float(d); }  // bool included, as 0 / 1

// Flat index into `shape` of output multi-index `index` under broadcasting.
int64_t BroadcastOffset(const Shape& shape, const std::vector<int64_t>& index) {
  int64_t offset = 0;
  const int shift = static_cast<int>(index.size()) - shape.rank();
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t dim = shape.dims()[d];
    offset = offset * dim + (dim == 1 ? 0 : index[d + shift]);
  }
  return offset;
}

uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }

int64_t IntPow(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 == 0 ? 1 : -1) : 0;
  uint64_t result = 1;
  for (int64_t e = 0; e < b; ++e) result *= U(a);
  return static_cast<int64_t>(result);
}

double Clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

double FloatUnary(std::string_view op, const Attributes& attrs, double x) {
  if (op == "Neg") return -x;
  if (op == "Abs") return std::fabs(x);
  if (op == "Sqrt") return std::sqrt(x);
  if (op == "Reciprocal") return 1.0 / x;
  if (op == "Exp") return std::exp(x);
  if (op == "Log") return std::log(x);
  if (op == "Erf") return std::erf(x);
  if (op == "Floor") return std::floor(x);
  if (op == "Ceil") return std::ceil(x);
  if (op == "Sign") return std::isnan(x) ? x : (x > 0) - (x < 0);
  if (op == "Relu") return x < 0 ? 0 : x;
  if (op == "LeakyRelu") return x < 0 ? attrs.get_float("alpha", 0.01f) * x : x;
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "Tanh") return std::tanh(x);
  if (op == "Silu") return x / (1.0 + std::exp(-x));
  if (op == "HardSigmoid") {
    if (std::isnan(x)) return x;
    return Clamp01(attrs.get_float("alpha", 0.2f) * x + attrs.get_float("beta", 0.5f));
  }
  if (op == "HardSwish") return std::isnan(x) ? x : x * Clamp01(x / 6.0 + 0.5);
  if (op == "Gelu") {
    if (attrs.get_string("approximate", "none") == "tanh") {
      const double k = 0.79788456080286535588;  // sqrt(2 / pi)
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  }
  throw InvalidArgumentError("ElementwiseReference: unknown unary op " + std::string(op));
}

int64_t IntUnary(std::string_view op, int64_t x) {
  if (op == "Neg") return static_cast<int64_t>(0 - U(x));
  if (op == "Abs") return x < 0 ? static_cast<int64_t>(0 - U(x)) : x;
  if (op == "Sign") return (x > 0) - (x < 0);
  if (op == "Relu") return x < 0 ? 0 : x;
  if (op == "Not") return !x;
  throw InvalidArgumentError("ElementwiseReference: unknown integer unary op " + std::string(op));
}

double FloatBinary(std::string_view op, const Attributes& attrs, double a, double b) {
  if (op == "Add" || op == "Sum" || op == "Mean") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Mod") {
    if (attrs.get_int("fmod", 0) != 1) throw InvalidArgumentError("Mod: float needs fmod=1");
    return std::fmod(a, b);
  }
  if (op == "Max") return (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b);
  if (op == "Min") return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? a : b);
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  throw InvalidArgumentError("ElementwiseReference: unknown binary op " + std::string(op));
}

int64_t IntBinary(std::string_view op, const Attributes& attrs, int64_t a, int64_t b) {
  if (op == "Add" || op == "Sum") return static_cast<int64_t>(U(a) + U(b));
  if (op == "Sub") return static_cast<int64_t>(U(a) - U(b));
  if (op == "Mul") return static_cast<int64_t>(U(a) * U(b));
  if (op == "Div" || op == "Mod") {
    if (b == 0) throw InvalidArgumentError(std::string(op) + ": integer division by zero");
    if (op == "Div") return b == -1 ? static_cast<int64_t>(0 - U(a)) : a / b;
    if (b == -1) return 0;
    int64_t r = a % b;
    if (attrs.get_int("fmod", 0) == 0 && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  if (op == "Pow") return IntPow(a, b);
  if (op == "Max") return a > b ? a : b;
  if (op == "Min") return a < b ? a : b;
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return a && b;
  if (op == "Or") return a || b;
  if (op == "Xor") return (a != 0) != (b != 0);
  throw InvalidArgumentError("ElementwiseReference: unknown integer binary op " + std::string(op));
}

// uint64 values past int64's max do not survive the signed path: uint64
// inputs run in uint64 arithmetic (the same bits in and out).
uint64_t UIntUnary(std::string_view op, uint64_t x) {
  if (op == "Abs") return x;
  if (op == "Sign") return x != 0;
  throw InvalidArgumentError("ElementwiseReference: unknown uint64 unary op " + std::string(op));
}

uint64_t UIntBinary(std::string_view op, uint64_t a, uint64_t b) {
  if (op == "Add" || op == "Sum") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div" || op == "Mod") {
    if (b == 0) throw InvalidArgumentError(std::string(op) + ": integer division by zero");
    return op == "Div" ? a / b : a % b;  // fmod or not, the same for unsigned
  }
  if (op == "Max") return a > b ? a : b;
  if (op == "Min") return a < b ? a : b;
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  throw InvalidArgumentError("ElementwiseReference: unknown uint64 binary op " + std::string(op));
}

bool IsComparison(std::string_view op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
         op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor" || op == "Not";
}

bool IsVariadic(std::string_view op) {
  return op == "Max" || op == "Min" || op == "Sum" || op == "Mean";
}

}  // namespace

Tensor ElementwiseReference(std::string_view op, const Attributes& attrs,
                            std::initializer_list<const Tensor*> input_list) {
  const std::vector<const Tensor*> inputs(input_list);
  const Tensor& first = *inputs[0];
  // Clip's bounds are scalars, not broadcast operands.
  const size_t operands = op == "Clip" ? 1 : inputs.size();
  Shape out_shape = first.shape();
  for (size_t k = 1; k < operands; ++k) out_shape = broadcast_shapes(out_shape, inputs[k]->shape());
  const DType out_dtype = IsComparison(op) ? DType::kBool
                          : op == "Where"  ? inputs[1]->dtype()
                                           : first.dtype();
  Tensor out(out_dtype, out_shape);
  const int rank = out_shape.rank();
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  // Pow with an integer base and a float exponent is computed in double.
  const bool integer = IsInteger(first.dtype()) && !(op == "Pow" && !IsInteger(inputs[1]->dtype()));
  const bool uint64 = first.dtype() == DType::kUInt64 && op != "Pow";
  auto read_u64 = [](const Tensor& t, int64_t at) {
    return static_cast<uint64_t>(ReadElementAsInt64(t, at));  // the element's 64 bits
  };
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    int64_t rest = flat;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rest % out_shape.dims()[d];
      rest /= out_shape.dims()[d];
    }
    std::vector<int64_t> offsets;
    for (size_t k = 0; k < operands; ++k) {
      offsets.push_back(BroadcastOffset(inputs[k]->shape(), index));
    }
    if (op == "Where") {
      const bool c = ReadElementAsInt64(*inputs[0], offsets[0]) != 0;
      const Tensor& src = c ? *inputs[1] : *inputs[2];
      const int64_t at = c ? offsets[1] : offsets[2];
      if (IsInteger(src.dtype())) {
        WriteElementFromInt64(out, flat, ReadElementAsInt64(src, at));
      } else {
        WriteElementFromDouble(out, flat, ReadElementAsDouble(src, at));
      }
    } else if (op == "Clip") {
      auto bound = [&](size_t k, const char* name, bool want_int) -> std::optional<double> {
        if (k < inputs.size() && inputs[k] != nullptr) {
          return want_int ? static_cast<double>(ReadElementAsInt64(*inputs[k], 0))
                          : ReadElementAsDouble(*inputs[k], 0);
        }
        if (attrs.has(name)) return attrs.get_float(name);
        return std::nullopt;
      };
      if (uint64) {
        uint64_t v = read_u64(first, offsets[0]);
        if (inputs.size() > 1 && inputs[1] != nullptr) v = std::max(v, read_u64(*inputs[1], 0));
        if (inputs.size() > 2 && inputs[2] != nullptr) v = std::min(v, read_u64(*inputs[2], 0));
        WriteElementFromInt64(out, flat, static_cast<int64_t>(v));
      } else if (integer) {
        int64_t v = ReadElementAsInt64(first, offsets[0]);
        if (auto low = bound(1, "min", true)) v = std::max<int64_t>(v, static_cast<int64_t>(*low));
        if (auto high = bound(2, "max", true))
          v = std::min<int64_t>(v, static_cast<int64_t>(*high));
        WriteElementFromInt64(out, flat, v);
      } else {
        double v = ReadElementAsDouble(first, offsets[0]);
        if (auto low = bound(1, "min", false); low && v < *low) v = *low;
        if (auto high = bound(2, "max", false); high && v > *high) v = *high;
        WriteElementFromDouble(out, flat, v);
      }
    } else if (operands == 1 && !IsVariadic(op)) {
      if (uint64) {
        WriteElementFromInt64(out, flat,
                              static_cast<int64_t>(UIntUnary(op, read_u64(first, offsets[0]))));
      } else if (integer) {
        WriteElementFromInt64(out, flat, IntUnary(op, ReadElementAsInt64(first, offsets[0])));
      } else {
        WriteElementFromDouble(out, flat,
                               FloatUnary(op, attrs, ReadElementAsDouble(first, offsets[0])));
      }
    } else if (uint64) {
      uint64_t acc = read_u64(first, offsets[0]);
      for (size_t k = 1; k < operands; ++k) {
        acc = UIntBinary(op, acc, read_u64(*inputs[k], offsets[k]));
      }
      WriteElementFromInt64(out, flat, static_cast<int64_t>(acc));
    } else if (integer) {
      int64_t acc = ReadElementAsInt64(first, offsets[0]);
      for (size_t k = 1; k < operands; ++k) {
        acc = IntBinary(op, attrs, acc, ReadElementAsInt64(*inputs[k], offsets[k]));
      }
      WriteElementFromInt64(out, flat, acc);
    } else {
      // A float exponent for Pow is first rounded to the base's dtype.
      auto operand = [&](size_t k) {
        const double v = ReadElementAsDouble(*inputs[k], offsets[k]);
        if (op == "Pow" && first.dtype() == DType::kFloat32) return double{static_cast<float>(v)};
        if (op == "Pow" && first.dtype() == DType::kFloat16) {
          return double{static_cast<float>(Float16(static_cast<float>(v)))};
        }
        if (op == "Pow" && first.dtype() == DType::kBFloat16) {
          return double{static_cast<float>(BFloat16(static_cast<float>(v)))};
        }
        return v;
      };
      double acc = operand(0);
      for (size_t k = 1; k < operands; ++k) acc = FloatBinary(op, attrs, acc, operand(k));
      if (op == "Mean") acc /= static_cast<double>(operands);
      WriteElementFromDouble(out, flat, acc);
    }
  }
  return out;
}

}  // namespace loom::kernels
