// Col2Im: the inverse gather of im2col. Each (n, c) image plane is owned by
// one task, which zero-fills it and adds its block columns in block order
// (element k of the block, then block position l), so the sum order, and
// the result, is the same for every thread count.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops_data.h"
#include "kernels/shape/shape_ops_util.h"
#include "kernels/spatial_geometry.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

template <typename T>
void Col2ImPlanes(const KernelContext& ctx, const SpatialGeometry& g, int64_t planes,
                  int64_t block_size, int64_t positions, const T* in, T* out) {
  const int s = g.rank();
  int64_t plane_size = 1;
  for (int d = 0; d < s; ++d) plane_size *= g.input[d];
  // Serial loop replaced: for each plane p (n * C + c): plane = 0; for each
  // block element k and block position l, plane[pixel(k, l)] += in[p, k, l]
  // when the pixel is inside the image (not padding).
  threading::ParallelFor(ctx.pool, planes, static_cast<double>(block_size * positions) * 2.0 + 10.0,
                         [&](int64_t begin, int64_t end) {
                           std::vector<int64_t> k_index(s), l_index(s);
                           for (int64_t p = begin; p < end; ++p) {
                             T* plane = out + p * plane_size;
                             for (int64_t i = 0; i < plane_size; ++i) plane[i] = T(0);
                             const T* column = in + p * block_size * positions;
                             std::fill(k_index.begin(), k_index.end(), 0);
                             for (int64_t k = 0; k < block_size; ++k) {
                               std::fill(l_index.begin(), l_index.end(), 0);
                               for (int64_t l = 0; l < positions; ++l) {
                                 int64_t pixel = 0;
                                 bool inside = true;
                                 for (int d = 0; d < s && inside; ++d) {
                                   const int64_t pos = l_index[d] * g.stride[d] - g.pad_begin[d] +
                                                       k_index[d] * g.dilation[d];
                                   inside = pos >= 0 && pos < g.input[d];
                                   pixel = pixel * g.input[d] + pos;
                                 }
                                 if (inside) plane[pixel] += column[k * positions + l];
                                 for (int d = s - 1; d >= 0; --d) {
                                   if (++l_index[d] < g.output[d]) break;
                                   l_index[d] = 0;
                                 }
                               }
                               for (int d = s - 1; d >= 0; --d) {
                                 if (++k_index[d] < g.kernel[d]) break;
                                 k_index[d] = 0;
                               }
                             }
                           }
                         });
}

}  // namespace

std::vector<Tensor> Col2ImKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  constexpr std::string_view kOp = "Col2Im";
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input");
  CheckDType(kOp, "input", x, {DType::kFloat32, DType::kFloat64});
  CheckRank(kOp, "input", x, 3);
  const std::vector<int64_t> image =
      shape_ops::ReadIndexList(kOp, "image_shape", RequiredInput(kOp, inputs, 1, "image_shape"));
  const std::vector<int64_t> block =
      shape_ops::ReadIndexList(kOp, "block_shape", RequiredInput(kOp, inputs, 2, "block_shape"));
  if (image.empty() || image.size() != block.size()) {
    ThrowKernelError(kOp,
                     "inputs 'image_shape' and 'block_shape' must have the same length >= 1 "
                     "(got " +
                         std::to_string(image.size()) + " and " + std::to_string(block.size()) +
                         ")");
  }
  for (int64_t d : image) {
    if (d <= 0)
      ThrowKernelError(kOp, "input 'image_shape' must be positive (got " + std::to_string(d) + ")");
  }
  const SpatialGeometry g = ResolveSpatialGeometry(kOp, attrs, image, block);
  const int64_t n = x.shape().dim(0);
  int64_t block_size = 1, positions = 1;
  for (int d = 0; d < g.rank(); ++d) {
    block_size = shape_ops::CheckedMul(kOp, "the block size", block_size, g.kernel[d]);
    positions = shape_ops::CheckedMul(kOp, "the block count", positions, g.output[d]);
  }
  if (x.shape().dim(1) % block_size != 0) {
    ThrowKernelError(kOp, "input 'input' dim 1 (" + std::to_string(x.shape().dim(1)) +
                              ") must be a multiple of the block size " +
                              std::to_string(block_size));
  }
  if (x.shape().dim(2) != positions) {
    ThrowKernelError(kOp, "input 'input' dim 2 (" + std::to_string(x.shape().dim(2)) +
                              ") must be the number of blocks " + std::to_string(positions));
  }
  const int64_t channels = x.shape().dim(1) / block_size;
  std::vector<int64_t> out_dims = {n, channels};
  out_dims.insert(out_dims.end(), image.begin(), image.end());
  Tensor out = Tensor::uninitialized(x.dtype(), Shape(out_dims));
  if (out.num_elements() == 0) return {out};
  if (x.dtype() == DType::kFloat32) {
    Col2ImPlanes(ctx, g, n * channels, block_size, positions, x.data<float>(), out.data<float>());
  } else {
    Col2ImPlanes(ctx, g, n * channels, block_size, positions, x.data<double>(), out.data<double>());
  }
  return {out};
}

}  // namespace loom::kernels
