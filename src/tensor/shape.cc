#include <algorithm>
#include <string>

#include "loom/errors.h"
#include "loom/tensor.h"

namespace loom {

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}

Shape::Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {
  for (size_t axis = 0; axis < dims_.size(); ++axis) {
    if (dims_[axis] < 0) {
      throw InvalidArgumentError("shape " + to_string() + ": dimension " + std::to_string(axis) +
                                 " is negative");
    }
  }
  // A zero anywhere makes the count 0 whatever the other dimensions are, but
  // the product of the others must still be representable: [0, 2^40, 2^40]
  // would overflow as soon as the zero goes away in a reshape or broadcast.
  int64_t nonzero_product = 1;
  bool has_zero = false;
  for (int64_t dim : dims_) {
    if (dim == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(nonzero_product, dim, &nonzero_product)) {
      throw InvalidArgumentError("shape " + to_string() +
                                 ": the number of elements overflows a 64-bit integer");
    }
  }
  num_elements_ = has_zero ? 0 : nonzero_product;
}

int64_t Shape::dim(int axis) const {
  const int normalized = axis < 0 ? axis + rank() : axis;
  if (normalized < 0 || normalized >= rank()) {
    throw InvalidArgumentError("axis " + std::to_string(axis) + " is out of range for shape " +
                               to_string() + " of rank " + std::to_string(rank()));
  }
  return dims_[normalized];
}

std::string Shape::to_string() const {
  std::string text = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims_[i]);
  }
  return text + "]";
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  // Right-aligned: output axis i meets a's axis i - (rank - a.rank()).
  for (int i = 0; i < rank; ++i) {
    const int ai = i - (rank - a.rank());
    const int bi = i - (rank - b.rank());
    const int64_t da = ai >= 0 ? a.dims()[ai] : 1;
    const int64_t db = bi >= 0 ? b.dims()[bi] : 1;
    if (da != db && da != 1 && db != 1) {
      throw InvalidArgumentError("cannot broadcast shapes " + a.to_string() + " and " +
                                 b.to_string() + ": output axis " + std::to_string(i) + " has " +
                                 std::to_string(da) + " vs " + std::to_string(db));
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

}  // namespace loom
