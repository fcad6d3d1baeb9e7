#include "kernels/shape/shape_ops_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/reference/element_access.h"

namespace loom::kernels {
namespace {

// Every output element from the input element `source(output index)`.
template <typename Fn>
Tensor MapElements(const Tensor& x, const Shape& out_shape, Fn source) {
  Tensor out(x.dtype(), out_shape);
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    CopyElement(x, Ravel(source(Unravel(o, out_shape.dims())), x.shape().dims()), out, o);
  }
  return out;
}

// Selected positions along one axis, by the spec's clamping and stepping.
std::vector<int64_t> SlicePositions(int64_t start, int64_t end, int64_t step, int64_t dim) {
  std::vector<int64_t> positions;
  if (dim == 0) return positions;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::max<int64_t>(0, std::min(start, dim));
    end = std::max<int64_t>(0, std::min(end, dim));
    for (int64_t i = start; i < end; i += step) {
      positions.push_back(i);
      if (end - i <= step) break;  // the next step would pass end (or overflow)
    }
  } else {
    start = std::max<int64_t>(0, std::min(start, dim - 1));
    end = std::max<int64_t>(-1, std::min(end, dim - 1));
    for (int64_t i = start; i > end; i += step) {
      positions.push_back(i);
      if (i - end - 1 <= -(step + 1)) break;  // i + step <= end, without overflow
    }
  }
  return positions;
}

// Input coordinate of output coordinate o on an axis of size n padded by
// `begin`, or -1 for the constant; reflection is done step by step.
int64_t PadSource(int64_t o, int64_t begin, int64_t n, const std::string& mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "wrap") {
    while (i < 0) i += n;
    while (i >= n) i -= n;
    return i;
  }
  if (n == 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 ||
         d == DType::kBFloat16;
}

// Float to integer type T: NaN -> 0, truncate, saturate.
template <typename T>
T FloatToInt(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  if (t <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (t >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

// One source element: a float as a double (exact for every float dtype), or
// an integer as its 64 bits, read as unsigned for uint64 (values past
// int64's max) and as signed otherwise.
struct SourceValue {
  bool is_float = false;
  bool is_uint64 = false;
  double f = 0;
  uint64_t bits = 0;

  template <typename F>
  F AsFloat() const {
    if (is_float) return static_cast<F>(f);
    if (is_uint64) return static_cast<F>(bits);
    return static_cast<F>(static_cast<int64_t>(bits));
  }
  template <typename T>
  T AsInt() const {
    // Integer to integer keeps the low bits (two's complement wrap).
    return is_float ? FloatToInt<T>(f) : static_cast<T>(bits);
  }
};

template <typename T>
void StoreInt(Tensor& out, int64_t o, const SourceValue& v) {
  out.data<T>()[o] = v.AsInt<T>();
}

}  // namespace

Tensor TransposeReference(const Tensor& x, const std::vector<int>& perm) {
  std::vector<int64_t> dims;
  for (int p : perm) dims.push_back(x.shape().dims()[p]);
  return MapElements(x, Shape(dims), [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> i(o.size());
    for (size_t d = 0; d < o.size(); ++d) i[perm[d]] = o[d];
    return i;
  });
}

Tensor ConcatReference(const std::vector<Tensor>& inputs, int axis) {
  std::vector<int64_t> dims = inputs[0].shape().dims();
  dims[axis] = 0;
  for (const Tensor& t : inputs) dims[axis] += t.shape().dims()[axis];
  Tensor out(inputs[0].dtype(), Shape(dims));
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    std::vector<int64_t> index = Unravel(o, dims);
    for (const Tensor& t : inputs) {
      if (index[axis] < t.shape().dims()[axis]) {
        CopyElement(t, Ravel(index, t.shape().dims()), out, o);
        break;
      }
      index[axis] -= t.shape().dims()[axis];
    }
  }
  return out;
}

std::vector<Tensor> SplitReference(const Tensor& x, int axis, const std::vector<int64_t>& sizes) {
  std::vector<Tensor> outputs;
  int64_t first = 0;
  for (int64_t size : sizes) {
    std::vector<int64_t> dims = x.shape().dims();
    dims[axis] = size;
    outputs.push_back(MapElements(x, Shape(dims), [&](std::vector<int64_t> o) {
      o[axis] += first;
      return o;
    }));
    first += size;
  }
  return outputs;
}

Tensor SliceReference(const Tensor& x, const std::vector<int64_t>& starts,
                      const std::vector<int64_t>& ends, const std::vector<int>& axes,
                      const std::vector<int64_t>& steps) {
  std::vector<std::vector<int64_t>> positions(x.shape().dims().size());
  for (size_t d = 0; d < positions.size(); ++d) {
    for (int64_t i = 0; i < x.shape().dims()[d]; ++i) positions[d].push_back(i);
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    positions[axes[k]] = SlicePositions(starts[k], ends[k], steps[k], x.shape().dims()[axes[k]]);
  }
  std::vector<int64_t> dims;
  for (const auto& p : positions) dims.push_back(static_cast<int64_t>(p.size()));
  return MapElements(x, Shape(dims), [&](std::vector<int64_t> o) {
    for (size_t d = 0; d < o.size(); ++d) o[d] = positions[d][o[d]];
    return o;
  });
}

Tensor GatherReference(const Tensor& x, const Tensor& indices, int axis) {
  const std::vector<int64_t>& xd = x.shape().dims();
  const int q = indices.shape().rank();
  std::vector<int64_t> dims(xd.begin(), xd.begin() + axis);
  dims.insert(dims.end(), indices.shape().dims().begin(), indices.shape().dims().end());
  dims.insert(dims.end(), xd.begin() + axis + 1, xd.end());
  return MapElements(x, Shape(dims), [&](const std::vector<int64_t>& o) {
    const std::vector<int64_t> k(o.begin() + axis, o.begin() + axis + q);
    int64_t index = indices.data<int64_t>()[Ravel(k, indices.shape().dims())];
    if (index < 0) index += xd[axis];
    std::vector<int64_t> i(o.begin(), o.begin() + axis);
    i.push_back(index);
    i.insert(i.end(), o.begin() + axis + q, o.end());
    return i;
  });
}

Tensor GatherElementsReference(const Tensor& x, const Tensor& indices, int axis) {
  return MapElements(x, indices.shape(), [&](std::vector<int64_t> o) {
    int64_t index = indices.data<int64_t>()[Ravel(o, indices.shape().dims())];
    if (index < 0) index += x.shape().dims()[axis];
    o[axis] = index;
    return o;
  });
}

Tensor PadReference(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode,
                    const Tensor& constant) {
  const size_t rank = x.shape().dims().size();
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) dims[d] = x.shape().dims()[d] + pads[d] + pads[d + rank];
  Tensor out(x.dtype(), Shape(dims));
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    std::vector<int64_t> index = Unravel(o, dims);
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      index[d] = PadSource(index[d], pads[d], x.shape().dims()[d], mode);
      inside = inside && index[d] >= 0;
    }
    if (inside) {
      CopyElement(x, Ravel(index, x.shape().dims()), out, o);
    } else {
      CopyElement(constant, 0, out, o);
    }
  }
  return out;
}

Tensor ExpandReference(const Tensor& x, const Shape& shape) {
  const std::vector<int64_t>& xd = x.shape().dims();
  const size_t shift = shape.dims().size() - xd.size();
  return MapElements(x, shape, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> i(xd.size());
    for (size_t d = 0; d < xd.size(); ++d) i[d] = xd[d] == 1 ? 0 : o[d + shift];
    return i;
  });
}

Tensor TileReference(const Tensor& x, const std::vector<int64_t>& repeats) {
  const std::vector<int64_t>& xd = x.shape().dims();
  std::vector<int64_t> dims(xd.size());
  for (size_t d = 0; d < xd.size(); ++d) dims[d] = xd[d] * repeats[d];
  return MapElements(x, Shape(dims), [&](std::vector<int64_t> o) {
    for (size_t d = 0; d < o.size(); ++d) o[d] %= xd[d];
    return o;
  });
}

Tensor CastReference(const Tensor& x, DType to) {
  Tensor out(to, x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    SourceValue v;
    v.is_float = IsFloat(x.dtype());
    v.is_uint64 = x.dtype() == DType::kUInt64;
    if (v.is_float) {
      v.f = ReadElementAsDouble(x, i);
    } else if (v.is_uint64) {
      v.bits = x.data<uint64_t>()[i];
    } else {
      v.bits = static_cast<uint64_t>(ReadElementAsInt64(x, i));
    }
    switch (to) {
      case DType::kFloat32:
        out.data<float>()[i] = v.AsFloat<float>();
        break;
      case DType::kFloat64:
        out.data<double>()[i] = v.AsFloat<double>();
        break;
      case DType::kFloat16:
        out.data<Float16>()[i] = Float16(v.AsFloat<float>());
        break;
      case DType::kBFloat16:
        out.data<BFloat16>()[i] = BFloat16(v.AsFloat<float>());
        break;
      case DType::kBool:
        out.data<bool>()[i] = v.is_float ? v.f != 0.0 : v.bits != 0;
        break;
      case DType::kInt8:
        StoreInt<int8_t>(out, i, v);
        break;
      case DType::kUInt8:
        StoreInt<uint8_t>(out, i, v);
        break;
      case DType::kInt16:
        StoreInt<int16_t>(out, i, v);
        break;
      case DType::kUInt16:
        StoreInt<uint16_t>(out, i, v);
        break;
      case DType::kInt32:
        StoreInt<int32_t>(out, i, v);
        break;
      case DType::kUInt32:
        StoreInt<uint32_t>(out, i, v);
        break;
      case DType::kInt64:
        StoreInt<int64_t>(out, i, v);
        break;
      case DType::kUInt64:
        StoreInt<uint64_t>(out, i, v);
        break;
      case DType::kString:
        throw std::invalid_argument("CastReference: strings have no reference here");
    }
  }
  return out;
}

}  // namespace loom::kernels
