#include "kernels/reference/element_access.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/dtype_visit.h"

namespace loom::kernels {
namespace {

template <typename T>
T SaturateToInt(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  if (t <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (t >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

}  // namespace

double ReadElementAsDouble(const Tensor& t, int64_t i) {
  return VisitDType(t.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      return static_cast<float>(t.data<T>()[i]);
    } else if constexpr (std::is_same_v<T, bool>) {
      return t.data<T>()[i] ? 1.0 : 0.0;
    } else {
      return static_cast<double>(t.data<T>()[i]);
    }
  });
}

int64_t ReadElementAsInt64(const Tensor& t, int64_t i) {
  return VisitDType(t.dtype(), [&](auto tag) -> int64_t {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(t.data<T>()[i]);
    } else {
      return SaturateToInt<int64_t>(ReadElementAsDouble(t, i));
    }
  });
}

void WriteElementFromDouble(Tensor& t, int64_t i, double v) {
  VisitDType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      t.data<T>()[i] = v != 0;
    } else if constexpr (std::is_integral_v<T>) {
      t.data<T>()[i] = SaturateToInt<T>(v);
    } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      t.data<T>()[i] = T(static_cast<float>(v));  // double -> float -> T, as the kernels round
    } else {
      t.data<T>()[i] = static_cast<T>(v);
    }
  });
}

void WriteElementFromInt64(Tensor& t, int64_t i, int64_t v) {
  VisitDType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      t.data<T>()[i] = v != 0;
    } else if constexpr (std::is_integral_v<T>) {
      t.data<T>()[i] = static_cast<T>(v);  // modular since C++20
    } else {
      WriteElementFromDouble(t, i, static_cast<double>(v));
    }
  });
}

std::vector<int64_t> Unravel(int64_t linear, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = linear % dims[d];
    linear /= dims[d];
  }
  return index;
}

int64_t Ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

void CopyElement(const Tensor& in, int64_t i, Tensor& out, int64_t o) {
  const size_t size = dtype_size(in.dtype());
  std::memcpy(static_cast<std::byte*>(out.raw_data()) + o * static_cast<int64_t>(size),
              static_cast<const std::byte*>(in.raw_data()) + i * static_cast<int64_t>(size), size);
}

}  // namespace loom::kernels
