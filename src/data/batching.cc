#include <cstring>

#include "data/nodes.h"

namespace loom::data::internal {

Element StackElements(const std::vector<Element>& elements) {
  if (elements.empty()) throw InvalidArgumentError("batch: no elements to stack");
  const Element& first = elements.front();
  for (size_t e = 1; e < elements.size(); ++e) {
    if (elements[e].size() != first.size()) {
      throw InvalidArgumentError("batch: element " + std::to_string(e) + " of the batch has " +
                                 std::to_string(elements[e].size()) +
                                 " components, element 0 has " + std::to_string(first.size()));
    }
  }
  Element batch;
  for (size_t c = 0; c < first.size(); ++c) {
    const Tensor& model = first[c];
    for (size_t e = 1; e < elements.size(); ++e) {
      const Tensor& t = elements[e][c];
      if (t.dtype() != model.dtype() || !(t.shape() == model.shape())) {
        throw InvalidArgumentError("batch: component " + std::to_string(c) + " of element " +
                                   std::to_string(e) + " of the batch is " +
                                   std::string(dtype_name(t.dtype())) + t.shape().to_string() +
                                   " but element 0's is " + std::string(dtype_name(model.dtype())) +
                                   model.shape().to_string() + " (batch needs equal shapes)");
      }
    }
    std::vector<int64_t> dims = model.shape().dims();
    dims.insert(dims.begin(), static_cast<int64_t>(elements.size()));
    Tensor stacked = Tensor::uninitialized(model.dtype(), Shape(std::move(dims)));
    auto* out = static_cast<std::byte*>(stacked.raw_data());
    const size_t bytes = model.nbytes();
    for (size_t e = 0; e < elements.size(); ++e) {
      if (bytes > 0) std::memcpy(out + e * bytes, elements[e][c].raw_data(), bytes);
    }
    batch.push_back(std::move(stacked));
  }
  return batch;
}

}  // namespace loom::data::internal
