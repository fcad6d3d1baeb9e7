// AffineGrid (vision.h): base coordinates per spatial axis, then theta
// applied to each point's homogeneous coordinates.
#include <string>
#include <vector>

#include "kernels/vision/vision.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "AffineGrid";
constexpr int64_t kMaxPoints = int64_t{1} << 30;

// The normalized coordinates of an axis of `size` points in [-1, 1]:
// the corners' centers with align_corners, else the cells' centers.
std::vector<double> BaseCoordinates(int64_t size, bool align_corners) {
  std::vector<double> v(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    const double d = static_cast<double>(i);
    if (align_corners) {
      v[static_cast<size_t>(i)] = size == 1 ? -1.0 : -1.0 + d * 2.0 / static_cast<double>(size - 1);
    } else {
      const double step = 2.0 / static_cast<double>(size);
      v[static_cast<size_t>(i)] = -1.0 + step / 2 + d * step;
    }
  }
  return v;
}

template <typename T>
void Fill(const KernelContext& ctx, const Tensor& theta, const std::vector<int64_t>& spatial,
          bool align_corners, Tensor& grid) {
  const size_t k = spatial.size();  // 2 or 3
  std::vector<std::vector<double>> base;
  for (int64_t s : spatial) base.push_back(BaseCoordinates(s, align_corners));
  int64_t points = 1;
  for (int64_t s : spatial) points *= s;
  const int64_t batch = theta.shape().dim(0);
  const int64_t rows = points / spatial.back();
  const T* th = theta.data<T>();
  T* out = grid.data<T>();
  // Serial loop replaced: for each (n, row of the last spatial axis), each point:
  // out = theta[n] . (x, y[, z], 1), x from the last spatial axis.
  threading::ParallelFor(ctx.pool, batch * rows, static_cast<double>(spatial.back()) * 10.0,
                         [&](int64_t begin, int64_t end) {
                           double h[4];
                           for (int64_t u = begin; u < end; ++u) {
                             const int64_t n = u / rows;
                             const T* t = th + n * static_cast<int64_t>(k * (k + 1));
                             for (int64_t col = 0; col < spatial.back(); ++col) {
                               const int64_t p = (u % rows) * spatial.back() + col;
                               int64_t rest = p;
                               for (size_t d = k; d-- > 0;) {
                                 // homogeneous order: x (last axis) first
                                 h[k - 1 - d] = base[d][static_cast<size_t>(rest % spatial[d])];
                                 rest /= spatial[d];
                               }
                               h[k] = 1.0;
                               T* o = out + (n * points + p) * static_cast<int64_t>(k);
                               for (size_t r = 0; r < k; ++r) {
                                 double sum = 0;
                                 for (size_t c = 0; c <= k; ++c) {
                                   sum += static_cast<double>(t[r * (k + 1) + c]) * h[c];
                                 }
                                 o[r] = static_cast<T>(sum);
                               }
                             }
                           }
                         });
}

}  // namespace

std::vector<Tensor> AffineGridKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& theta = RequiredInput(kOp, inputs, 0, "theta");
  const Tensor& size = RequiredInput(kOp, inputs, 1, "size");
  CheckDType(kOp, "theta", theta, {DType::kFloat32, DType::kFloat64});
  CheckDType(kOp, "size", size, {DType::kInt64});
  if (size.shape().rank() != 1 || (size.num_elements() != 4 && size.num_elements() != 5)) {
    ThrowKernelError(kOp, "input 'size' must be [N, C, H, W] or [N, C, D, H, W] (got shape " +
                              size.shape().to_string() + ")");
  }
  const int64_t* sz = size.data<int64_t>();
  const int64_t k = size.num_elements() - 2;
  const Shape want({sz[0], k, k + 1});
  if (theta.shape() != want) {
    ThrowKernelError(kOp, "input 'theta' must have shape " + want.to_string() + " for size " +
                              "with N = " + std::to_string(sz[0]) + " (got " +
                              theta.shape().to_string() + ")");
  }
  std::vector<int64_t> spatial(sz + 2, sz + size.num_elements());
  int64_t points = 1;
  for (int64_t s : spatial) {
    if (s < 0 || (s > 0 && points > kMaxPoints / s)) {
      ThrowKernelError(kOp, "input 'size' has a negative or too large spatial size");
    }
    points *= s;
  }
  std::vector<int64_t> out_dims = {sz[0]};
  out_dims.insert(out_dims.end(), spatial.begin(), spatial.end());
  out_dims.push_back(k);
  Tensor grid = Tensor::uninitialized(theta.dtype(), Shape(out_dims));
  if (grid.num_elements() == 0) return {grid};
  const int64_t align = attrs.get_int("align_corners", 0);
  if (align != 0 && align != 1) {
    ThrowKernelError(
        kOp, "attribute 'align_corners' must be 0 or 1 (got " + std::to_string(align) + ")");
  }
  if (theta.dtype() == DType::kFloat64) {
    Fill<double>(ctx, theta, spatial, align == 1, grid);
  } else {
    Fill<float>(ctx, theta, spatial, align == 1, grid);
  }
  return {grid};
}

}  // namespace loom::kernels
