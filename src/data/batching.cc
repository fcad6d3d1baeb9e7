// Stacking elements into batches: batch's equal shapes, padded_batch's
// padding, and what both say about their output before running.
#include <algorithm>
#include <cstring>

#include "data/nodes.h"

namespace loom::data::internal {
namespace {

std::string Describe(const Tensor& t) {
  return std::string(dtype_name(t.dtype())) + t.shape().to_string();
}

// The shape component `c` of every element is padded to.
std::vector<int64_t> PaddedShape(const std::vector<Element>& elements, size_t c,
                                 const Padding& padding) {
  const Tensor& model = elements.front()[c];
  if (!padding.shape) return model.shape().dims();
  std::vector<int64_t> target = *padding.shape;
  for (size_t e = 0; e < elements.size(); ++e) {
    const Shape& shape = elements[e][c].shape();
    if (shape.rank() != static_cast<int>(target.size())) {
      throw InvalidArgumentError("padded_batch: component " + std::to_string(c) + " of element " +
                                 std::to_string(e) + " of the batch has shape " +
                                 shape.to_string() + ", of another rank than the padded shape (" +
                                 std::to_string(padding.shape->size()) + " dimensions)");
    }
    for (size_t d = 0; d < target.size(); ++d) {
      const int64_t want = (*padding.shape)[d];
      if (want >= 0 && shape.dim(static_cast<int>(d)) > want) {
        throw InvalidArgumentError("padded_batch: component " + std::to_string(c) + " of element " +
                                   std::to_string(e) + " of the batch has shape " +
                                   shape.to_string() + ", larger than the padded size " +
                                   std::to_string(want) + " in dimension " + std::to_string(d));
      }
      // -1 (the largest so far) starts below any size.
      if (want < 0) target[d] = std::max(target[d], shape.dim(static_cast<int>(d)));
    }
  }
  return target;
}

// Copies `from` into the leading corner of `to` (same rank, each dimension
// no larger), row by row along the last axis.
void CopyIntoCorner(const Tensor& from, std::byte* to, const std::vector<int64_t>& to_dims) {
  const size_t item = dtype_size(from.dtype());
  const auto* src = static_cast<const std::byte*>(from.raw_data());
  const int rank = from.shape().rank();
  if (from.num_elements() == 0) return;
  if (rank == 0) {
    std::memcpy(to, src, item);
    return;
  }
  const std::vector<int64_t>& dims = from.shape().dims();
  const size_t row_bytes = static_cast<size_t>(dims.back()) * item;
  const int64_t rows = from.num_elements() / dims.back();
  std::vector<int64_t> index(static_cast<size_t>(rank - 1), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;  // in items, within `to`
    for (int d = 0; d < rank - 1; ++d) offset = (offset + index[d]) * to_dims[d + 1];
    std::memcpy(to + static_cast<size_t>(offset) * item, src + r * row_bytes, row_bytes);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

void Fill(std::byte* out, size_t items, const Tensor& value) {
  const size_t item = dtype_size(value.dtype());
  for (size_t i = 0; i < items; ++i) std::memcpy(out + i * item, value.raw_data(), item);
}

// Throws unless every element has as many components as the first.
void CheckComponentCounts(const std::vector<Element>& elements, const char* stage) {
  const size_t count = elements.front().size();
  for (size_t e = 1; e < elements.size(); ++e) {
    if (elements[e].size() != count) {
      throw InvalidArgumentError(std::string(stage) + ": element " + std::to_string(e) +
                                 " of the batch has " + std::to_string(elements[e].size()) +
                                 " components, element 0 has " + std::to_string(count));
    }
  }
}

}  // namespace

std::optional<std::vector<Element>> BatchGatherer::Next(IteratorNode& input) {
  while (!input_done_ && static_cast<int64_t>(pending_.size()) < batch_size_) {
    std::optional<Element> element = input.GetNext();
    if (!element) {
      input_done_ = true;
      break;
    }
    pending_.push_back(std::move(*element));
  }
  if (pending_.empty()) return std::nullopt;
  if (static_cast<int64_t>(pending_.size()) < batch_size_ && drop_remainder_) {
    pending_.clear();
    return std::nullopt;
  }
  std::vector<Element> elements = std::move(pending_);
  pending_.clear();
  return elements;
}

Element StackElements(const std::vector<Element>& elements) {
  if (elements.empty()) throw InvalidArgumentError("batch: no elements to stack");
  const Element& first = elements.front();
  CheckComponentCounts(elements, "batch");
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

Element PadAndStackElements(const std::vector<Element>& elements,
                            const std::vector<Padding>& padding) {
  if (elements.empty()) throw InvalidArgumentError("padded_batch: no elements to stack");
  const Element& first = elements.front();
  if (padding.size() != first.size()) {
    throw InvalidArgumentError("padded_batch: " + std::to_string(padding.size()) +
                               " padded shapes for elements of " + std::to_string(first.size()) +
                               " components");
  }
  CheckComponentCounts(elements, "padded_batch");
  Element batch;
  for (size_t c = 0; c < first.size(); ++c) {
    const Tensor& model = first[c];
    for (size_t e = 1; e < elements.size(); ++e) {
      const Tensor& t = elements[e][c];
      if (t.dtype() != model.dtype() || (!padding[c].shape && !(t.shape() == model.shape()))) {
        throw InvalidArgumentError("batch: component " + std::to_string(c) + " of element " +
                                   std::to_string(e) + " of the batch is " + Describe(t) +
                                   " but element 0's is " + Describe(model) +
                                   " (batch needs equal shapes)");
      }
    }
    const std::optional<Tensor>& value = padding[c].value;
    if (value && (value->dtype() != model.dtype() || value->num_elements() != 1)) {
      throw InvalidArgumentError("padded_batch: the padding value for component " +
                                 std::to_string(c) + " is " + Describe(*value) +
                                 "; it must be one " + std::string(dtype_name(model.dtype())) +
                                 " value");
    }
    const std::vector<int64_t> target = PaddedShape(elements, c, padding[c]);
    std::vector<int64_t> dims = target;
    dims.insert(dims.begin(), static_cast<int64_t>(elements.size()));
    Tensor stacked = Tensor::uninitialized(model.dtype(), Shape(std::move(dims)));
    auto* out = static_cast<std::byte*>(stacked.raw_data());
    const size_t items = static_cast<size_t>(Shape(target).num_elements());
    const size_t bytes = items * dtype_size(model.dtype());
    if (bytes > 0) {
      if (value) {
        Fill(out, items * elements.size(), *value);
      } else {
        std::memset(out, 0, bytes * elements.size());
      }
      for (size_t e = 0; e < elements.size(); ++e) {
        CopyIntoCorner(elements[e][c], out + e * bytes, target);
      }
    }
    batch.push_back(std::move(stacked));
  }
  return batch;
}

int64_t BatchCardinality(int64_t n, int64_t batch_size, bool drop_remainder) {
  if (n < 0) return n;  // infinite or unknown
  return n / batch_size + (n % batch_size == 0 || drop_remainder ? 0 : 1);
}

Spec BatchSpec(Spec input, int64_t batch_size, bool drop_remainder) {
  if (!input) return input;
  for (ComponentSpec& c : *input) c.shape.insert(c.shape.begin(), drop_remainder ? batch_size : -1);
  return input;
}

}  // namespace loom::data::internal
