#include "kernels/elementwise/elementwise_bitwise_reference.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/reference/element_access.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

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

Shape BroadcastShape(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int da = d - (rank - a.rank()), db = d - (rank - b.rank());
    const int64_t x = da >= 0 ? a.dims()[da] : 1, y = db >= 0 ? b.dims()[db] : 1;
    dims[d] = x == 1 ? y : x;
  }
  return Shape(dims);
}

// Calls fn(out_index, a_offset, b_offset) for every output element.
template <typename Fn>
void ForEachElement(const Shape& out, const Shape& a, const Shape& b, Fn fn) {
  std::vector<int64_t> index(static_cast<size_t>(out.rank()), 0);
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t rest = i;
    for (int d = out.rank() - 1; d >= 0; --d) {
      index[d] = rest % out.dims()[d];
      rest /= out.dims()[d];
    }
    fn(i, BroadcastOffset(a, index), BroadcastOffset(b, index));
  }
}

uint64_t Bits(const Tensor& t, int64_t i) {
  return static_cast<uint64_t>(ReadElementAsInt64(t, i));
}

}  // namespace

Tensor BitwiseReference(std::string_view op, const Attributes& attrs, const Tensor& a,
                        const Tensor* b) {
  if (b == nullptr) {
    Tensor out(a.dtype(), a.shape());
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      WriteElementFromInt64(out, i, static_cast<int64_t>(~Bits(a, i)));
    }
    return out;
  }
  const Shape shape = BroadcastShape(a.shape(), b->shape());
  Tensor out(a.dtype(), shape);
  const uint64_t width = dtype_size(a.dtype()) * 8;
  ForEachElement(shape, a.shape(), b->shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    const uint64_t x = Bits(a, ia), y = Bits(*b, ib);
    uint64_t r = 0;
    if (op == "BitwiseAnd") {
      r = x & y;
    } else if (op == "BitwiseOr") {
      r = x | y;
    } else if (op == "BitwiseXor") {
      r = x ^ y;
    } else if (op == "BitShift") {
      // Unsigned inputs only: x and y are their zero-extended values.
      const bool left = attrs.get_string("direction") == "LEFT";
      r = y >= width ? 0 : (left ? x << y : x >> y);
    } else {
      throw InvalidArgumentError("BitwiseReference: unknown op " + std::string(op));
    }
    WriteElementFromInt64(out, i, static_cast<int64_t>(r));
  });
  return out;
}

Tensor PReluReference(const Tensor& x, const Tensor& slope) {
  Tensor out(x.dtype(), x.shape());
  ForEachElement(x.shape(), x.shape(), slope.shape(), [&](int64_t i, int64_t ix, int64_t is) {
    if (dtype_is_float(x.dtype())) {
      const double v = ReadElementAsDouble(x, ix);
      WriteElementFromDouble(out, i, v < 0 ? ReadElementAsDouble(slope, is) * v : v);
    } else {
      const int64_t v = ReadElementAsInt64(x, ix);
      const bool negative = x.dtype() != DType::kUInt32 && x.dtype() != DType::kUInt64 && v < 0;
      WriteElementFromInt64(
          out, i,
          negative ? static_cast<int64_t>(static_cast<uint64_t>(ReadElementAsInt64(slope, is)) *
                                          static_cast<uint64_t>(v))
                   : v);
    }
  });
  return out;
}

}  // namespace loom::kernels
