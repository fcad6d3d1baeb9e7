#include "kernels/reduce/reduce_geometry.h"

#include <algorithm>
#include <string>

namespace loom::kernels {

std::vector<int> ResolveReduceAxes(std::string_view op, const Attributes& attrs,
                                   const Tensor* axes_input, int rank) {
  std::vector<int64_t> raw;
  bool given = false;
  if (axes_input != nullptr) {
    CheckDType(op, "axes", *axes_input, {DType::kInt64});
    CheckRank(op, "axes", *axes_input, 1);
    const int64_t* p = axes_input->data<int64_t>();
    raw.assign(p, p + axes_input->num_elements());
    given = true;
  } else if (attrs.has("axes")) {
    raw = attrs.get_ints("axes");
    given = true;
  }
  std::vector<int> axes;
  if (!given || raw.empty()) {
    if (attrs.get_int("noop_with_empty_axes", 0) != 0) return axes;
    for (int a = 0; a < rank; ++a) axes.push_back(a);
    return axes;
  }
  for (int64_t a : raw) axes.push_back(NormalizeAxis(op, a, rank));
  std::sort(axes.begin(), axes.end());
  auto repeated = std::adjacent_find(axes.begin(), axes.end());
  if (repeated != axes.end()) {
    ThrowKernelError(op, "input 'axes' names axis " + std::to_string(*repeated) +
                             " more than once (rank " + std::to_string(rank) + ")");
  }
  return axes;
}

ReduceGeometry MakeReduceGeometry(const Shape& input, const std::vector<int>& axes, bool keepdims) {
  ReduceGeometry g;
  const int rank = input.rank();
  std::vector<bool> is_reduced(static_cast<size_t>(rank), false);
  for (int a : axes) is_reduced[static_cast<size_t>(a)] = true;

  std::vector<int64_t> out_dims;
  for (int a = 0; a < rank; ++a) {
    const int64_t size = input.dim(a);
    if (is_reduced[static_cast<size_t>(a)]) {
      g.reduce_count *= size;
      if (keepdims) out_dims.push_back(1);
    } else {
      out_dims.push_back(size);
    }
  }
  g.output_shape = Shape(out_dims);
  g.num_outputs = g.output_shape.num_elements();
  if (input.num_elements() == 0) return g;

  // Merge into groups, innermost first, then reverse.
  struct Group {
    int64_t size;
    bool reduced;
  };
  std::vector<Group> groups;
  for (int a = rank - 1; a >= 0; --a) {
    const int64_t size = input.dim(a);
    if (size == 1) continue;
    const bool reduced = is_reduced[static_cast<size_t>(a)];
    if (!groups.empty() && groups.back().reduced == reduced) {
      groups.back().size *= size;
    } else {
      groups.push_back({size, reduced});
    }
  }
  if (groups.empty()) groups.push_back({1, false});  // a single element
  g.inner_reduced = groups.front().reduced;
  g.inner = groups.front().size;
  int64_t stride = 1;
  for (const Group& group : groups) {
    (group.reduced ? g.reduced : g.kept).push_back({group.size, stride});
    stride *= group.size;
  }
  std::reverse(g.kept.begin(), g.kept.end());
  std::reverse(g.reduced.begin(), g.reduced.end());
  return g;
}

ReduceOdometer::ReduceOdometer(const std::vector<ReduceDim>& dims, size_t count, int64_t start)
    : dims_(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(count)), index_(count, 0) {
  // Position `start` in row-major order over dims_.
  for (size_t k = count; k-- > 0;) {
    index_[k] = start % dims_[k].size;
    start /= dims_[k].size;
    offset_ += index_[k] * dims_[k].stride;
  }
}

void ReduceOdometer::Next() {
  for (size_t k = dims_.size(); k-- > 0;) {
    offset_ += dims_[k].stride;
    if (++index_[k] < dims_[k].size) return;
    offset_ -= dims_[k].size * dims_[k].stride;
    index_[k] = 0;
  }
}

void ReduceOdometer::Reset() {
  std::fill(index_.begin(), index_.end(), 0);
  offset_ = 0;
}

}  // namespace loom::kernels
