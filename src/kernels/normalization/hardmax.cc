// Hardmax (opset 13) along one axis. The input is viewed as [outer, n,
// inner]; a unit is one outer index and a block of up to kColumnBlock inner
// columns, scanned along the axis together (best value and position per
// column, the inner loop across contiguous columns), then the output block
// is zeroed and a 1 written per column. Units write disjoint outputs and
// compare exactly: bit-exact across thread counts.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/normalization/normalization.h"
#include "loom/bfloat16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// 1024 best values and positions (16 KiB at most) stay in L1.
constexpr int64_t kColumnBlock = 1024;
// Guess: one compare-and-select per element, ~0.7 ns (as ArgMax).
constexpr double kCostPerElementNs = 0.7;

// Whether x replaces the current best: a larger value, or the first NaN.
template <typename K>
bool Better(K x, K best) {
  if (std::isnan(best)) return false;
  return std::isnan(x) || x > best;
}

template <typename T>
void HardmaxLines(const KernelContext& ctx, const T* x, T* y, int64_t outer, int64_t n,
                  int64_t inner) {
  // Float16 compares through float (exact).
  using K =
      std::conditional_t<(std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>), float, T>;
  const T one = static_cast<T>(1.0f);
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  // Serial loop replaced: for each (o, column block): for each column c,
  // best = the first maximum of x[o, :, c]; y[o, :, c] = 0 but y[o, best, c] = 1.
  threading::ParallelFor(ctx.pool, outer * blocks,
                         static_cast<double>(n * std::min(inner, kColumnBlock)) * kCostPerElementNs,
                         [&](int64_t begin, int64_t end) {
                           const auto block = static_cast<size_t>(std::min(inner, kColumnBlock));
                           std::vector<K> best(block);
                           std::vector<int64_t> where(block);
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t o = unit / blocks;
                             const int64_t c0 = unit % blocks * kColumnBlock;
                             const int64_t width = std::min(kColumnBlock, inner - c0);
                             const T* in = x + o * n * inner + c0;
                             T* out = y + o * n * inner + c0;
                             for (int64_t c = 0; c < width; ++c) best[c] = static_cast<K>(in[c]);
                             std::fill(where.begin(), where.begin() + width, int64_t{0});
                             for (int64_t i = 1; i < n; ++i) {
                               const T* line = in + i * inner;
                               for (int64_t c = 0; c < width; ++c) {
                                 const K v = static_cast<K>(line[c]);
                                 if (Better(v, best[c])) {
                                   best[c] = v;
                                   where[c] = i;
                                 }
                               }
                             }
                             for (int64_t i = 0; i < n; ++i) {
                               std::memset(static_cast<void*>(out + i * inner), 0,
                                           static_cast<size_t>(width) * sizeof(T));
                             }
                             for (int64_t c = 0; c < width; ++c) out[where[c] * inner + c] = one;
                           }
                         });
}

}  // namespace

std::vector<Tensor> HardmaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "Hardmax";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input");
  CheckDType(kOp, "input", x, {DType::kFloat32, DType::kFloat64, DType::kFloat16});
  const int rank = x.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'input' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", -1), rank);
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  if (y.num_elements() == 0) return {y};

  const std::vector<int64_t>& dims = x.shape().dims();
  const AxisExtents extents = ExtentsAroundAxis(x.shape(), axis);
  const int64_t outer = extents.outer, inner = extents.inner;
  const int64_t n = dims[axis];
  switch (x.dtype()) {
    case DType::kFloat32:
      HardmaxLines(ctx, x.data<float>(), y.data<float>(), outer, n, inner);
      break;
    case DType::kFloat64:
      HardmaxLines(ctx, x.data<double>(), y.data<double>(), outer, n, inner);
      break;
    case DType::kFloat16:
      HardmaxLines(ctx, x.data<Float16>(), y.data<Float16>(), outer, n, inner);
      break;
    default:
      break;  // refused by CheckDType above
  }
  return {y};
}

}  // namespace loom::kernels
