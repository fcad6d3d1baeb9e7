// Einsum's plain oracle (einsum.h): one loop over every combination of
// label values.
#include <algorithm>
#include <vector>

#include "kernels/einsum/einsum.h"
#include "kernels/reference/element_access.h"

namespace loom::kernels::einsum {

Tensor EinsumReference(const Equation& eq, const std::vector<const Tensor*>& inputs) {
  std::vector<std::vector<int64_t>> dims;
  for (const Tensor* t : inputs) dims.push_back(t->shape().dims());
  const std::vector<int64_t> sizes = LabelSizes(eq, dims);
  std::vector<int> used;
  for (const auto& in : eq.inputs) {
    for (int l : in) {
      if (std::find(used.begin(), used.end(), l) == used.end()) used.push_back(l);
    }
  }
  std::vector<int64_t> out_dims;
  for (int l : eq.output) out_dims.push_back(sizes[static_cast<size_t>(l)]);
  const DType dtype = inputs[0]->dtype();
  const bool is_float = dtype == DType::kFloat32 || dtype == DType::kFloat64;
  const Shape out_shape(out_dims);
  std::vector<double> acc(static_cast<size_t>(out_shape.num_elements()), 0.0);
  std::vector<int64_t> iacc(acc.size(), 0);
  std::vector<int64_t> value(sizes.size(), 0);
  int64_t combos = 1;
  for (int l : used) combos *= sizes[static_cast<size_t>(l)];
  for (int64_t c = 0; c < combos; ++c) {
    int64_t rest = c;
    for (size_t u = used.size(); u-- > 0;) {
      const int64_t s = sizes[static_cast<size_t>(used[u])];
      value[static_cast<size_t>(used[u])] = rest % s;
      rest /= s;
    }
    double prod = 1.0;
    uint64_t iprod = 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      int64_t offset = 0;
      for (size_t a = 0; a < eq.inputs[i].size(); ++a) {
        const int64_t idx = dims[i][a] == 1 ? 0 : value[static_cast<size_t>(eq.inputs[i][a])];
        offset = offset * dims[i][a] + idx;
      }
      if (is_float) {
        prod *= ReadElementAsDouble(*inputs[i], offset);
      } else {
        iprod *= static_cast<uint64_t>(ReadElementAsInt64(*inputs[i], offset));
      }
    }
    int64_t o = 0;
    for (size_t a = 0; a < eq.output.size(); ++a) {
      o = o * out_dims[a] + value[static_cast<size_t>(eq.output[a])];
    }
    if (is_float) {
      acc[static_cast<size_t>(o)] += prod;
    } else {
      iacc[static_cast<size_t>(o)] =
          static_cast<int64_t>(static_cast<uint64_t>(iacc[static_cast<size_t>(o)]) + iprod);
    }
  }
  Tensor out(dtype, out_shape);
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    if (is_float) {
      WriteElementFromDouble(out, i, acc[static_cast<size_t>(i)]);
    } else {
      WriteElementFromInt64(out, i, iacc[static_cast<size_t>(i)]);
    }
  }
  return out;
}

}  // namespace loom::kernels::einsum
