// TopK along one axis. The input is viewed as [outer, n, inner]; each of
// the outer * inner lines (n elements, `inner` apart) is independent: its
// positions are ordered by a strict total order (value, then position) with
// std::nth_element + std::sort on the first k, so the result is unique and
// does not depend on the algorithm or the thread count.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/reduce/reduce.h"
#include "loom/bfloat16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "TopK";

// Guess: ~4 ns per element for the copy and a selection pass, plus the
// sort of k positions (charged per element of the line, as an upper bound).
double CostPerLineNs(int64_t n, int64_t k) {
  return static_cast<double>(n) * 4.0 + static_cast<double>(k) * std::log2(2.0 + k) * 4.0;
}

// float16 and bfloat16 are ordered through float (exact); other dtypes as
// themselves.
template <typename T>
using KeyOf =
    std::conditional_t<std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>, float, T>;

// a before b in the output. NaN ranks above every number (the ONNX
// reference's lexsort order): first when largest, last when smallest.
// Equal values (and NaNs) keep the lower position first.
template <typename K, bool kLargest>
struct Before {
  const K* key;
  bool operator()(int64_t a, int64_t b) const {
    const K x = key[a], y = key[b];
    if constexpr (std::is_floating_point_v<K>) {
      const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
      if (x_nan || y_nan) {
        if (x_nan && y_nan) return a < b;
        return kLargest ? x_nan : y_nan;
      }
    }
    if (x != y) return kLargest ? x > y : x < y;
    return a < b;
  }
};

template <typename T, bool kLargest>
void TopKLines(const KernelContext& ctx, const T* x, int64_t outer, int64_t n, int64_t inner,
               int64_t k, T* values, int64_t* indices) {
  using K = KeyOf<T>;
  // Serial loop replaced: for each line (o, i): order its positions, keep
  // the first k. Lines write disjoint outputs.
  threading::ParallelFor(
      ctx.pool, outer * inner, CostPerLineNs(n, k), [&](int64_t begin, int64_t end) {
        std::vector<K> key(static_cast<size_t>(n));
        std::vector<int64_t> order(static_cast<size_t>(n));
        for (int64_t line = begin; line < end; ++line) {
          const int64_t o = line / inner, i = line % inner;
          const T* in = x + o * n * inner + i;
          for (int64_t j = 0; j < n; ++j) {
            key[static_cast<size_t>(j)] = static_cast<K>(in[j * inner]);
            order[static_cast<size_t>(j)] = j;
          }
          const Before<K, kLargest> before{key.data()};
          if (k < n) std::nth_element(order.begin(), order.begin() + k, order.end(), before);
          std::sort(order.begin(), order.begin() + k, before);
          T* v = values + o * k * inner + i;
          int64_t* idx = indices + o * k * inner + i;
          for (int64_t j = 0; j < k; ++j) {
            const int64_t from = order[static_cast<size_t>(j)];
            v[j * inner] = in[from * inner];
            idx[j * inner] = from;
          }
        }
      });
}

template <typename T>
void Dispatch(const KernelContext& ctx, bool largest, const Tensor& x, int64_t outer, int64_t n,
              int64_t inner, int64_t k, Tensor& values, Tensor& indices) {
  if (largest) {
    TopKLines<T, true>(ctx, x.data<T>(), outer, n, inner, k, values.data<T>(),
                       indices.data<int64_t>());
  } else {
    TopKLines<T, false>(ctx, x.data<T>(), outer, n, inner, k, values.data<T>(),
                        indices.data<int64_t>());
  }
}

}  // namespace

std::vector<Tensor> TopKKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& k_input = RequiredInput(kOp, inputs, 1, "K");
  CheckDType(kOp, "X", x,
             {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
              DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32, DType::kUInt32,
              DType::kInt64, DType::kUInt64});
  CheckDType(kOp, "K", k_input, {DType::kInt64});
  if (k_input.num_elements() != 1 || k_input.shape().rank() > 1) {
    ThrowKernelError(
        kOp, "input 'K' must hold one value (got shape " + k_input.shape().to_string() + ")");
  }
  const int rank = x.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'X' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", -1), rank);
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t n = dims[axis];
  const int64_t k = k_input.data<int64_t>()[0];
  if (k < 0 || k > n) {
    ThrowKernelError(kOp, "K = " + std::to_string(k) + " is outside [0, " + std::to_string(n) +
                              "] (axis " + std::to_string(axis) + " of 'X' shape " +
                              x.shape().to_string() + ")");
  }
  // "sorted" = 0 leaves the order open; the sorted order is one such order.
  const bool largest = attrs.get_int("largest", 1) != 0;
  std::vector<int64_t> out_dims = dims;
  out_dims[axis] = k;
  Tensor values = Tensor::uninitialized(x.dtype(), Shape(out_dims));
  Tensor indices = Tensor::uninitialized(DType::kInt64, Shape(out_dims));
  if (values.num_elements() == 0) return {values, indices};

  const AxisExtents extents = ExtentsAroundAxis(x.shape(), axis);
  const int64_t outer = extents.outer, inner = extents.inner;
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {  // bool: refused by CheckDType above
      Dispatch<T>(ctx, largest, x, outer, n, inner, k, values, indices);
    }
  });
  return {values, indices};
}

}  // namespace loom::kernels
