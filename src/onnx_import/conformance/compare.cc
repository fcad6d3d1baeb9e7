#include "onnx_import/conformance/compare.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/dtype_visit.h"

namespace loom::conformance {
namespace {

// "(1, 0, 2)": the coordinates of flat index `index` in `shape`.
std::string Coordinates(const Shape& shape, int64_t index) {
  std::vector<int64_t> coords(shape.rank());
  for (int axis = shape.rank() - 1; axis >= 0; --axis) {
    const int64_t dim = shape.dims()[axis];
    coords[axis] = index % dim;
    index /= dim;
  }
  std::string out = "(";
  for (size_t i = 0; i < coords.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(coords[i]);
  }
  return out + ")";
}

std::string FormatDouble(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, double> || kIsHalf<T>;

template <typename T>
double ToDouble(T value) {
  if constexpr (kIsHalf<T>) {
    return static_cast<float>(value);
  } else {
    return static_cast<double>(value);
  }
}

template <typename T>
std::optional<std::string> CompareElements(const Tensor& expected, const Tensor& actual,
                                           const Tolerance& tolerance) {
  const T* want = expected.data<T>();
  const T* got = actual.data<T>();
  const int64_t count = expected.num_elements();
  int64_t mismatches = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < count; ++i) {
    bool same;
    if constexpr (kIsFloat<T>) {
      same = CloseEnough(ToDouble(want[i]), ToDouble(got[i]), tolerance);
    } else {
      same = want[i] == got[i];
    }
    if (same) continue;
    if (first < 0) first = i;
    ++mismatches;
  }
  if (mismatches == 0) return std::nullopt;

  std::string message = std::to_string(mismatches) + " of " + std::to_string(count) +
                        " elements differ; first at index " + std::to_string(first) + " " +
                        Coordinates(expected.shape(), first) + ": expected ";
  if constexpr (kIsFloat<T>) {
    const double e = ToDouble(want[first]);
    const double a = ToDouble(got[first]);
    message += FormatDouble(e) + ", got " + FormatDouble(a);
    if (std::isfinite(e) && std::isfinite(a)) {
      message += " (|diff| " + FormatDouble(std::fabs(a - e)) + " > allowed " +
                 FormatDouble(tolerance.atol + tolerance.rtol * std::fabs(e)) + ")";
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    message +=
        std::string(want[first] ? "true" : "false") + ", got " + (got[first] ? "true" : "false");
  } else {
    message += std::to_string(want[first]) + ", got " + std::to_string(got[first]);
  }
  return message;
}

}  // namespace

bool CloseEnough(double expected, double actual, const Tolerance& tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  // Infinities: numpy requires the same infinity at the same place.
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

std::optional<std::string> CompareTensors(const Tensor& expected, const Tensor& actual,
                                          const Tolerance& tolerance) {
  if (expected.dtype() != actual.dtype()) {
    return "dtype differs: expected " + std::string(dtype_name(expected.dtype())) + ", got " +
           std::string(dtype_name(actual.dtype()));
  }
  if (!(expected.shape() == actual.shape())) {
    return "shape differs: expected " + expected.shape().to_string() + ", got " +
           actual.shape().to_string();
  }
  if (expected.num_elements() == 0) return std::nullopt;
  if (expected.dtype() == DType::kString) {
    const std::string* want = expected.data<std::string>();
    const std::string* got = actual.data<std::string>();
    int64_t first = -1;
    int64_t mismatches = 0;
    for (int64_t i = 0; i < expected.num_elements(); ++i) {
      if (want[i] == got[i]) continue;
      if (first < 0) first = i;
      ++mismatches;
    }
    if (mismatches == 0) return std::nullopt;
    return std::to_string(mismatches) + " of " + std::to_string(expected.num_elements()) +
           " elements differ; first at index " + std::to_string(first) + " " +
           Coordinates(expected.shape(), first) + ": expected \"" + want[first] + "\", got \"" +
           got[first] + "\"";
  }
  return kernels::VisitDType(expected.dtype(), [&](auto tag) {
    return CompareElements<decltype(tag)>(expected, actual, tolerance);
  });
}

std::optional<std::string> CompareValues(const Value& expected, const Value& actual,
                                         const Tolerance& tolerance) {
  if (expected.kind() != actual.kind()) {
    return "expected " + expected.describe() + ", got " + actual.describe();
  }
  if (expected.is_none()) return std::nullopt;
  if (expected.is_tensor()) return CompareTensors(expected.tensor(), actual.tensor(), tolerance);
  const std::vector<Tensor>& want = expected.elements();
  const std::vector<Tensor>& got = actual.elements();
  if (expected.element_dtype() != actual.element_dtype() || want.size() != got.size()) {
    return "expected " + expected.describe() + ", got " + actual.describe();
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (auto mismatch = CompareTensors(want[i], got[i], tolerance)) {
      return "element " + std::to_string(i) + ": " + *mismatch;
    }
  }
  return std::nullopt;
}

}  // namespace loom::conformance
