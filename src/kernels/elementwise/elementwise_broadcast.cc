#include "kernels/elementwise/elementwise_broadcast.h"

#include <string>

#include "loom/errors.h"

namespace loom::kernels {

BroadcastPlan MakeBroadcastPlan(std::string_view op, std::span<const Shape* const> shapes,
                                std::span<const std::string_view> names) {
  BroadcastPlan plan;
  plan.num_inputs = static_cast<int>(shapes.size());
  if (plan.num_inputs < 1 || plan.num_inputs > kMaxBroadcastInputs) {
    ThrowKernelError(op,
                     "internal: broadcast plan for " + std::to_string(shapes.size()) + " inputs");
  }
  plan.out_shape = *shapes[0];
  for (int k = 1; k < plan.num_inputs; ++k) {
    try {
      plan.out_shape = broadcast_shapes(plan.out_shape, *shapes[k]);
    } catch (const InvalidArgumentError& e) {
      std::string earlier;
      for (int j = 0; j < k; ++j) {
        earlier += (j ? " and '" : "'") + std::string(names[j]) + "' " + shapes[j]->to_string();
      }
      ThrowKernelError(op, "inputs " + earlier + " and '" + std::string(names[k]) + "' " +
                               shapes[k]->to_string() + " cannot be broadcast: " + e.what());
    }
  }

  // Per output dimension (size-1 dimensions dropped), each input's stride.
  const int rank = plan.out_shape.rank();
  std::vector<int64_t> dims;
  std::vector<InputOffsets> strides;
  InputOffsets running{};  // each input's stride for the dimension being visited
  for (int k = 0; k < plan.num_inputs; ++k) running[k] = 1;
  std::vector<InputOffsets> all_strides(static_cast<size_t>(rank), InputOffsets{});
  for (int d = rank - 1; d >= 0; --d) {
    for (int k = 0; k < plan.num_inputs; ++k) {
      const Shape& shape = *shapes[k];
      const int input_axis = d - (rank - shape.rank());
      const int64_t input_dim = input_axis >= 0 ? shape.dims()[input_axis] : 1;
      all_strides[d][k] = input_dim == 1 ? 0 : running[k];
      running[k] *= input_dim;
    }
  }
  for (int d = 0; d < rank; ++d) {
    const int64_t size = plan.out_shape.dims()[d];
    if (size == 1) continue;
    // Merge into the previous kept dimension when every input steps through
    // both as one: stride(prev) == stride(d) * size(d).
    bool mergeable = !dims.empty();
    for (int k = 0; mergeable && k < plan.num_inputs; ++k) {
      mergeable = strides.back()[k] == all_strides[d][k] * size;
    }
    if (mergeable) {
      dims.back() *= size;
      strides.back() = all_strides[d];
    } else {
      dims.push_back(size);
      strides.push_back(all_strides[d]);
    }
  }
  if (dims.empty()) {  // a scalar, or all dimensions of size 1
    dims.push_back(1);
    strides.push_back(InputOffsets{});
  }
  plan.dims = std::move(dims);
  plan.strides = std::move(strides);
  return plan;
}

}  // namespace loom::kernels
