#include "kernels/gemm/matmul_shapes.h"

#include <string>

#include "kernels/op_kernel.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

// Element offsets of each output batch in an operand with `dims` batch
// dimensions (right-aligned against `out`; size-1 dimensions repeat).
std::vector<int64_t> BatchOffsets(const std::vector<int64_t>& out, const std::vector<int64_t>& dims,
                                  int64_t matrix_size) {
  int64_t count = 1;
  for (int64_t d : out) count *= d;
  std::vector<int64_t> offsets(static_cast<size_t>(count), 0);
  const size_t lead = out.size() - dims.size();
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = matrix_size;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[lead + i] = dims[i] == 1 ? 0 : stride;
    stride *= dims[i];
  }
  std::vector<int64_t> index(out.size(), 0);
  for (int64_t b = 0; b < count; ++b) {
    int64_t offset = 0;
    for (size_t i = 0; i < out.size(); ++i) offset += index[i] * strides[i];
    offsets[static_cast<size_t>(b)] = offset;
    for (size_t i = out.size(); i-- > 0 && ++index[i] == out[i];) index[i] = 0;
  }
  return offsets;
}

}  // namespace

MatMulShapes ResolveMatMulShapes(std::string_view op, const Shape& a, const Shape& b) {
  if (a.rank() == 0 || b.rank() == 0) {
    ThrowKernelError(
        op, "inputs must have rank >= 1 (got A " + a.to_string() + ", B " + b.to_string() + ")");
  }
  std::vector<int64_t> a_dims = a.dims(), b_dims = b.dims();
  const bool a_vector = a_dims.size() == 1, b_vector = b_dims.size() == 1;
  if (a_vector) a_dims.insert(a_dims.begin(), 1);
  if (b_vector) b_dims.push_back(1);
  MatMulShapes s;
  s.m = a_dims[a_dims.size() - 2];
  s.k = a_dims.back();
  s.n = b_dims.back();
  if (b_dims[b_dims.size() - 2] != s.k) {
    ThrowKernelError(op, "inner dimensions differ: A " + a.to_string() +
                             " has K = " + std::to_string(s.k) + ", B " + b.to_string() +
                             " has K = " + std::to_string(b_dims[b_dims.size() - 2]));
  }
  const std::vector<int64_t> a_batch(a_dims.begin(), a_dims.end() - 2);
  const std::vector<int64_t> b_batch(b_dims.begin(), b_dims.end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(Shape(a_batch), Shape(b_batch));
  } catch (const InvalidArgumentError& e) {
    ThrowKernelError(op, "batch dimensions of A " + a.to_string() + " and B " + b.to_string() +
                             " do not broadcast (" + e.what() + ")");
  }
  s.b_has_batch = false;
  for (int64_t d : b_batch) s.b_has_batch = s.b_has_batch || d != 1;
  s.a_offset = BatchOffsets(batch.dims(), a_batch, s.m * s.k);
  s.b_offset = BatchOffsets(batch.dims(), b_batch, s.k * s.n);
  s.output = batch.dims();
  if (!a_vector) s.output.push_back(s.m);
  if (!b_vector) s.output.push_back(s.n);
  // Checks the output's size before anything is allocated.
  Shape checked(s.output);
  (void)checked;
  return s;
}

}  // namespace loom::kernels
