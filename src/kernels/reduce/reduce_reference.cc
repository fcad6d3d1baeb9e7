#include "kernels/reduce/reduce_reference.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace loom::kernels {
namespace {

// Input offsets of the elements of output `o`, in row-major order of the
// reduced axes.
struct Gather {
  std::vector<int64_t> dims, strides;
  std::vector<bool> reduced;
  std::vector<int64_t> Offsets(int64_t o) const {
    const int rank = static_cast<int>(dims.size());
    // Kept indices of output o (row-major over kept axes).
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    for (int a = rank - 1; a >= 0; --a) {
      if (reduced[static_cast<size_t>(a)]) continue;
      index[static_cast<size_t>(a)] = o % dims[static_cast<size_t>(a)];
      o /= dims[static_cast<size_t>(a)];
    }
    int64_t count = 1;
    for (int a = 0; a < rank; ++a) {
      if (reduced[static_cast<size_t>(a)]) count *= dims[static_cast<size_t>(a)];
    }
    std::vector<int64_t> offsets;
    for (int64_t r = 0; r < count; ++r) {
      int64_t rest = r;
      for (int a = rank - 1; a >= 0; --a) {
        if (!reduced[static_cast<size_t>(a)]) continue;
        index[static_cast<size_t>(a)] = rest % dims[static_cast<size_t>(a)];
        rest /= dims[static_cast<size_t>(a)];
      }
      int64_t offset = 0;
      for (int a = 0; a < rank; ++a) {
        offset += index[static_cast<size_t>(a)] * strides[static_cast<size_t>(a)];
      }
      offsets.push_back(offset);
    }
    return offsets;
  }
};

Gather MakeGather(const Shape& shape, const std::vector<int>& axes, bool keepdims,
                  Shape* out_shape) {
  Gather g;
  g.dims = shape.dims();
  g.reduced.assign(g.dims.size(), false);
  for (int a : axes) g.reduced[static_cast<size_t>(a)] = true;
  g.strides.assign(g.dims.size(), 1);
  for (int a = static_cast<int>(g.dims.size()) - 2; a >= 0; --a) {
    g.strides[static_cast<size_t>(a)] =
        g.strides[static_cast<size_t>(a) + 1] * g.dims[static_cast<size_t>(a) + 1];
  }
  std::vector<int64_t> out;
  for (size_t a = 0; a < g.dims.size(); ++a) {
    if (!g.reduced[a]) {
      out.push_back(g.dims[a]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  *out_shape = Shape(out);
  return g;
}

double FloatResult(std::string_view op, const std::vector<double>& v) {
  const double inf = std::numeric_limits<double>::infinity();
  double r = 0;
  if (op == "ReduceSum" || op == "ReduceMean") {
    for (double e : v) r += e;
    if (op == "ReduceMean") r /= static_cast<double>(v.size());
  } else if (op == "ReduceProd") {
    r = 1;
    for (double e : v) r *= e;
  } else if (op == "ReduceMax" || op == "ReduceMin" || op == "ReduceLogSumExp") {
    const bool is_min = op == "ReduceMin";
    r = is_min ? inf : -inf;
    for (double e : v) {
      if (std::isnan(e)) return e;
      r = is_min ? std::fmin(r, e) : std::fmax(r, e);
    }
    if (op == "ReduceLogSumExp" && std::isfinite(r)) {
      double s = 0;
      for (double e : v) s += std::exp(e - r);
      r += std::log(s);
    }
  } else if (op == "ReduceLogSum") {
    for (double e : v) r += e;
    r = std::log(r);
  } else if (op == "ReduceL1") {
    for (double e : v) r += std::fabs(e);
  } else if (op == "ReduceL2" || op == "ReduceSumSquare") {
    for (double e : v) r += e * e;
    if (op == "ReduceL2") r = std::sqrt(r);
  } else {
    throw std::invalid_argument("ReduceReference: unknown op " + std::string(op));
  }
  return r;
}

template <typename T>
T IntResult(std::string_view op, const std::vector<T>& v) {
  uint64_t r = 0;  // wraps like two's complement
  if (op == "ReduceMax" || op == "ReduceMin") {
    T best = op == "ReduceMax" ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    for (T e : v) best = op == "ReduceMax" ? (e > best ? e : best) : (e < best ? e : best);
    return best;
  }
  if (op == "ReduceProd") {
    r = 1;
    for (T e : v) r *= static_cast<uint64_t>(static_cast<int64_t>(e));
    return static_cast<T>(r);
  }
  for (T e : v) {
    const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(e));
    if (op == "ReduceSum" || op == "ReduceMean") {
      r += u;
    } else if (op == "ReduceL1") {
      bool negative = false;
      if constexpr (std::is_signed_v<T>) negative = e < 0;
      r += negative ? uint64_t{0} - u : u;
    } else if (op == "ReduceL2" || op == "ReduceSumSquare") {
      r += u * u;
    } else {
      throw std::invalid_argument("ReduceReference: unsupported op for integers " +
                                  std::string(op));
    }
  }
  const T sum = static_cast<T>(r);
  if (op == "ReduceMean") {
    if (v.empty()) return T{0};
    if constexpr (std::is_unsigned_v<T>) return static_cast<T>(sum / v.size());
    return static_cast<T>(static_cast<int64_t>(sum) / static_cast<int64_t>(v.size()));
  }
  if (op == "ReduceL2") return static_cast<T>(std::sqrt(static_cast<double>(sum)));
  return sum;
}

template <typename T>
Tensor ReduceTyped(std::string_view op, const Tensor& x, const std::vector<int>& axes,
                   bool keepdims) {
  Shape out_shape;
  const Gather g = MakeGather(x.shape(), axes, keepdims, &out_shape);
  Tensor y(x.dtype(), out_shape);
  const T* in = x.data<T>();
  T* out = y.data<T>();
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    const std::vector<int64_t> offsets = g.Offsets(o);
    if constexpr (std::is_same_v<T, BFloat16>) {
      std::vector<double> values;
      for (int64_t off : offsets) values.push_back(static_cast<float>(in[off]));
      out[o] = BFloat16(static_cast<float>(FloatResult(op, values)));
    } else if constexpr (std::is_floating_point_v<T>) {
      std::vector<double> values;
      for (int64_t off : offsets) values.push_back(in[off]);
      out[o] = static_cast<T>(FloatResult(op, values));
    } else {
      std::vector<T> values;
      for (int64_t off : offsets) values.push_back(in[off]);
      out[o] = IntResult<T>(op, values);
    }
  }
  return y;
}

// Whether value v at a later position replaces the best so far, b.
template <typename T>
bool Takes(bool is_max, bool last, T v, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return last && std::isnan(v);  // NaN is the extreme; first or last NaN
    if (std::isnan(v)) return true;
  }
  if (v == b) return last;
  return is_max ? v > b : v < b;
}

template <typename T>
Tensor ArgTyped(bool is_max, const Tensor& x, int axis, bool keepdims, bool last) {
  Shape out_shape;
  const Gather g = MakeGather(x.shape(), {axis}, keepdims, &out_shape);
  Tensor y(DType::kInt64, out_shape);
  const T* in = x.data<T>();
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    const std::vector<int64_t> offsets = g.Offsets(o);
    int64_t best = -1;
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (best < 0) {
        best = static_cast<int64_t>(i);
        continue;
      }
      const T v = in[offsets[i]];
      const T b = in[offsets[static_cast<size_t>(best)]];
      bool take;
      if constexpr (std::is_same_v<T, BFloat16>) {
        take = Takes(is_max, last, static_cast<float>(v), static_cast<float>(b));
      } else {
        take = Takes(is_max, last, v, b);  // compared in T: exact for 64-bit integers
      }
      if (take) best = static_cast<int64_t>(i);
    }
    y.data<int64_t>()[o] = best;
  }
  return y;
}

}  // namespace

Tensor ReduceReference(std::string_view op, const Tensor& x, const std::vector<int>& axes,
                       bool keepdims) {
  switch (x.dtype()) {
    case DType::kFloat32:
      return ReduceTyped<float>(op, x, axes, keepdims);
    case DType::kFloat64:
      return ReduceTyped<double>(op, x, axes, keepdims);
    case DType::kInt8:
      return ReduceTyped<int8_t>(op, x, axes, keepdims);
    case DType::kUInt8:
      return ReduceTyped<uint8_t>(op, x, axes, keepdims);
    case DType::kInt32:
      return ReduceTyped<int32_t>(op, x, axes, keepdims);
    case DType::kInt64:
      return ReduceTyped<int64_t>(op, x, axes, keepdims);
    case DType::kUInt32:
      return ReduceTyped<uint32_t>(op, x, axes, keepdims);
    case DType::kUInt64:
      return ReduceTyped<uint64_t>(op, x, axes, keepdims);
    case DType::kBFloat16:
      return ReduceTyped<BFloat16>(op, x, axes, keepdims);
    default:
      throw std::invalid_argument("ReduceReference: unsupported dtype");
  }
}

Tensor ArgReduceReference(bool is_max, const Tensor& x, int axis, bool keepdims,
                          bool select_last_index) {
  switch (x.dtype()) {
    case DType::kFloat32:
      return ArgTyped<float>(is_max, x, axis, keepdims, select_last_index);
    case DType::kFloat64:
      return ArgTyped<double>(is_max, x, axis, keepdims, select_last_index);
    case DType::kInt8:
      return ArgTyped<int8_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kUInt8:
      return ArgTyped<uint8_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kInt32:
      return ArgTyped<int32_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kInt64:
      return ArgTyped<int64_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kInt16:
      return ArgTyped<int16_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kUInt16:
      return ArgTyped<uint16_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kUInt32:
      return ArgTyped<uint32_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kUInt64:
      return ArgTyped<uint64_t>(is_max, x, axis, keepdims, select_last_index);
    case DType::kBFloat16:
      return ArgTyped<BFloat16>(is_max, x, axis, keepdims, select_last_index);
    default:
      throw std::invalid_argument("ArgReduceReference: unsupported dtype");
  }
}

}  // namespace loom::kernels
