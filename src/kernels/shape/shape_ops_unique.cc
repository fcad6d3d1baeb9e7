// Unique: sorts the positions of X's elements (or slices along axis) by
// value with a stable sort, so equal runs come out in order of first
// occurrence; each run is one unique value. The unsorted variant then
// orders the runs by their first occurrence. Runs serially: the sort is
// the whole cost and its result must not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/shape/shape_ops_data.h"

namespace loom::kernels {
namespace {

// The value compared for an element: half floats widen to float.
template <typename T>
auto Key(T value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(value);
  } else {
    return value;
  }
}

// A strict weak order on element values: NaN after every number and equal
// to every NaN (numpy's unique groups NaNs the same way).
template <typename K>
bool KeyLess(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// Sorted unique runs: `order` holds slice positions sorted by value (ties by
// position), `run_start[g]` the index in `order` where run g begins.
struct Runs {
  std::vector<int64_t> order;
  std::vector<int64_t> run_start;
};

template <typename T>
Runs FindRuns(const T* x, const AxisExtents& e) {
  // -1, 0, 1: slice a vs slice b, element by element in (outer, inner) order.
  auto compare = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < e.outer; ++o) {
      const T* pa = x + (o * e.n + a) * e.inner;
      const T* pb = x + (o * e.n + b) * e.inner;
      for (int64_t j = 0; j < e.inner; ++j) {
        const auto ka = Key(pa[j]);
        const auto kb = Key(pb[j]);
        if (KeyLess(ka, kb)) return -1;
        if (KeyLess(kb, ka)) return 1;
      }
    }
    return 0;
  };
  Runs runs;
  runs.order.resize(static_cast<size_t>(e.n));
  std::iota(runs.order.begin(), runs.order.end(), int64_t{0});
  std::stable_sort(runs.order.begin(), runs.order.end(),
                   [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  for (int64_t i = 0; i < e.n; ++i) {
    if (i == 0 || compare(runs.order[i - 1], runs.order[i]) != 0) runs.run_start.push_back(i);
  }
  return runs;
}

Tensor Int64Vector(const std::vector<int64_t>& values) {
  return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
}

}  // namespace

std::vector<Tensor> UniqueKernel(const KernelContext& /*ctx*/, const Attributes& attrs,
                                 KernelInputs inputs) {
  constexpr std::string_view kOp = "Unique";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const bool sorted = attrs.get_int("sorted", 1) != 0;
  const bool has_axis = attrs.has("axis");
  AxisExtents e;
  int axis = 0;
  if (has_axis) {
    if (x.shape().rank() == 0) {
      ThrowKernelError(kOp, "attribute 'axis' needs an input 'X' of rank >= 1 (got a scalar)");
    }
    axis = NormalizeAxis(kOp, attrs.get_int("axis"), x.shape().rank());
    e = ExtentsAroundAxis(x.shape(), axis);
  } else {
    e.n = x.num_elements();
  }

  const Runs runs = VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return FindRuns(x.data<T>(), e);
  });
  const auto num_runs = static_cast<int64_t>(runs.run_start.size());
  // first[g], count[g] per run g in sorted order; the stable sort puts each
  // run's first occurrence at its start.
  std::vector<int64_t> first(num_runs), count(num_runs);
  for (int64_t g = 0; g < num_runs; ++g) {
    const int64_t begin = runs.run_start[g];
    const int64_t end = g + 1 < num_runs ? runs.run_start[g + 1] : e.n;
    first[g] = runs.order[begin];
    count[g] = end - begin;
  }
  // Output position of each sorted run.
  std::vector<int64_t> position(num_runs);
  std::iota(position.begin(), position.end(), int64_t{0});
  if (!sorted) {
    std::vector<int64_t> by_first(num_runs);
    std::iota(by_first.begin(), by_first.end(), int64_t{0});
    std::sort(by_first.begin(), by_first.end(),
              [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    for (int64_t p = 0; p < num_runs; ++p) position[by_first[p]] = p;
  }
  std::vector<int64_t> indices(num_runs), counts(num_runs), inverse(e.n);
  for (int64_t g = 0; g < num_runs; ++g) {
    indices[position[g]] = first[g];
    counts[position[g]] = count[g];
    const int64_t end = g + 1 < num_runs ? runs.run_start[g + 1] : e.n;
    for (int64_t i = runs.run_start[g]; i < end; ++i) inverse[runs.order[i]] = position[g];
  }

  std::vector<int64_t> y_dims = {num_runs};
  if (has_axis) {
    y_dims = x.shape().dims();
    y_dims[axis] = num_runs;
  }
  Tensor y = Tensor::uninitialized(x.dtype(), Shape(y_dims));
  const size_t slice_bytes = static_cast<size_t>(e.inner) * dtype_size(x.dtype());
  const auto* in = static_cast<const std::byte*>(x.raw_data());
  auto* out = static_cast<std::byte*>(y.raw_data());
  for (int64_t o = 0; o < e.outer; ++o) {
    for (int64_t p = 0; p < num_runs; ++p) {
      if (slice_bytes == 0) continue;
      std::memcpy(out + static_cast<size_t>(o * num_runs + p) * slice_bytes,
                  in + static_cast<size_t>(o * e.n + indices[p]) * slice_bytes, slice_bytes);
    }
  }
  return {y, Int64Vector(indices), Int64Vector(inverse), Int64Vector(counts)};
}

}  // namespace loom::kernels
