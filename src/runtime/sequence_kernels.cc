#include "runtime/sequence_kernels.h"

#include <cstring>
#include <string>
#include <vector>

#include "graph/control_flow.h"
#include "kernels/onnx_dtype.h"
#include "loom/errors.h"
#include "runtime/execution_plan.h"
#include "runtime/subgraph_runner.h"

namespace loom::runtime {
namespace {

[[noreturn]] void Fail(const std::string& op, const std::string& detail) {
  throw InvalidArgumentError(op + ": " + detail);
}

std::string Describe(const Tensor& tensor) {
  return std::string(dtype_name(tensor.dtype())) + tensor.shape().to_string();
}

const Value& Input(const std::string& op, ValueInputs inputs, size_t index,
                   const std::string& what) {
  if (index >= inputs.size() || inputs[index] == nullptr) Fail(op, what + " is absent");
  return *inputs[index];
}

const Tensor& TensorInput(const std::string& op, ValueInputs inputs, size_t index,
                          const std::string& what) {
  const Value& value = Input(op, inputs, index, what);
  if (!value.is_tensor()) Fail(op, what + " must be a tensor, got " + value.describe());
  return value.tensor();
}

const Value& SequenceInput(const std::string& op, ValueInputs inputs, size_t index,
                           const std::string& what) {
  const Value& value = Input(op, inputs, index, what);
  if (!value.is_sequence()) Fail(op, what + " must be a sequence, got " + value.describe());
  return value;
}

// A one-element int32 or int64 tensor's value.
int64_t ReadPosition(const std::string& op, const Tensor& tensor) {
  if (tensor.num_elements() != 1 ||
      (tensor.dtype() != DType::kInt32 && tensor.dtype() != DType::kInt64)) {
    Fail(op, "position must be a scalar int32 or int64 tensor, got " + Describe(tensor));
  }
  return tensor.dtype() == DType::kInt32 ? tensor.data<int32_t>()[0] : tensor.data<int64_t>()[0];
}

// `position` resolved against a sequence of `length` elements: valid in
// [-length, length - 1], or [-length, length] when `one_past_end`.
size_t ResolvePosition(const std::string& op, int64_t position, size_t length, bool one_past_end) {
  const auto n = static_cast<int64_t>(length);
  const int64_t last = one_past_end ? n : n - 1;
  if (position < -n || position > last) {
    Fail(op, "position " + std::to_string(position) + " is out of range for a sequence of " +
                 std::to_string(n) + " element" + (n == 1 ? "" : "s") + " (valid: " +
                 (n == 0 && !one_past_end
                      ? std::string("none")
                      : "[" + std::to_string(-n) + ", " + std::to_string(last) + "]") +
                 ")");
  }
  return static_cast<size_t>(position < 0 ? position + n : position);
}

// Elements [begin, begin + count) of `tensor` along `axis`, copied.
Tensor CopyRange(const Tensor& tensor, int axis, int64_t begin, int64_t count) {
  const std::vector<int64_t>& dims = tensor.shape().dims();
  std::vector<int64_t> out_dims = dims;
  out_dims[axis] = count;
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[i];
  int64_t inner = 1;
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const size_t row_bytes = static_cast<size_t>(inner) * dtype_size(tensor.dtype());
  Tensor out = Tensor::uninitialized(tensor.dtype(), Shape(out_dims));
  if (out.nbytes() == 0) return out;
  const auto* src = static_cast<const char*>(tensor.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + o * count * row_bytes, src + (o * dims[axis] + begin) * row_bytes,
                count * row_bytes);
  }
  return out;
}

class SequenceKernel : public ValueNodeKernel {
 public:
  explicit SequenceKernel(const Node& node) : node_(node), op_(node.op_type) {}
  const char* kind() const override { return "sequence"; }

 protected:
  const Node node_;
  const std::string op_;
};

class IdentityKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    return {Input(op_, inputs, 0, "input")};
  }
};

class SequenceEmptyKernel : public SequenceKernel {
 public:
  explicit SequenceEmptyKernel(const Node& node) : SequenceKernel(node) {
    constexpr int64_t kOnnxFloat = 1;
    const int64_t code = node.attributes.get_int("dtype", kOnnxFloat);
    const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(code);
    if (!dtype) Fail(op_, "dtype " + std::to_string(code) + " is not supported");
    dtype_ = *dtype;
  }
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs,
                               const RunControl&) const override {
    return {Value::Sequence(dtype_, {})};
  }

 private:
  DType dtype_ = DType::kFloat32;
};

class SequenceConstructKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    std::vector<Tensor> elements;
    for (size_t i = 0; i < inputs.size(); ++i) {
      elements.push_back(TensorInput(op_, inputs, i, "input " + std::to_string(i)));
      if (elements[i].dtype() != elements[0].dtype()) {
        Fail(op_, "input " + std::to_string(i) + " is " + Describe(elements[i]) + ", input 0 " +
                      Describe(elements[0]) + ": a sequence holds one dtype");
      }
    }
    if (elements.empty()) Fail(op_, "expected at least one input");
    const DType dtype = elements[0].dtype();
    return {Value::Sequence(dtype, std::move(elements))};
  }
};

class SequenceInsertKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    Value sequence = SequenceInput(op_, inputs, 0, "input_sequence");
    const Tensor& tensor = TensorInput(op_, inputs, 1, "tensor");
    if (tensor.dtype() != sequence.element_dtype()) {
      Fail(op_, "tensor " + Describe(tensor) + " does not have the sequence's dtype " +
                    std::string(dtype_name(sequence.element_dtype())));
    }
    std::vector<Tensor>& elements = sequence.elements();
    size_t at = elements.size();
    if (inputs.size() > 2 && inputs[2] != nullptr) {
      at = ResolvePosition(op_, ReadPosition(op_, TensorInput(op_, inputs, 2, "position")),
                           elements.size(), true);
    }
    elements.insert(elements.begin() + static_cast<std::ptrdiff_t>(at), tensor);
    return {std::move(sequence)};
  }
};

class SequenceAtKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    const Value& sequence = SequenceInput(op_, inputs, 0, "input_sequence");
    const std::vector<Tensor>& elements = sequence.elements();
    const size_t at = ResolvePosition(
        op_, ReadPosition(op_, TensorInput(op_, inputs, 1, "position")), elements.size(), false);
    return {elements[at]};
  }
};

class SequenceEraseKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    Value sequence = SequenceInput(op_, inputs, 0, "input_sequence");
    std::vector<Tensor>& elements = sequence.elements();
    const int64_t position = inputs.size() > 1 && inputs[1] != nullptr
                                 ? ReadPosition(op_, TensorInput(op_, inputs, 1, "position"))
                                 : -1;
    const size_t at = ResolvePosition(op_, position, elements.size(), false);
    elements.erase(elements.begin() + static_cast<std::ptrdiff_t>(at));
    return {std::move(sequence)};
  }
};

class SequenceLengthKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    const Value& sequence = SequenceInput(op_, inputs, 0, "input_sequence");
    const auto length = static_cast<int64_t>(sequence.elements().size());
    return {Tensor::from_vector(Shape(), std::vector<int64_t>{length})};
  }
};

class SplitToSequenceKernel : public SequenceKernel {
 public:
  explicit SplitToSequenceKernel(const Node& node)
      : SequenceKernel(node),
        axis_(node.attributes.get_int("axis", 0)),
        keepdims_(node.attributes.get_int("keepdims", 1) != 0) {}

  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    const Tensor& input = TensorInput(op_, inputs, 0, "input");
    const int rank = input.shape().rank();
    if (axis_ < -rank || axis_ >= rank) {
      Fail(op_, "axis " + std::to_string(axis_) + " is out of range for input " + Describe(input));
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int64_t length = input.shape().dim(axis);
    std::vector<int64_t> sizes;
    const bool has_split = inputs.size() > 1 && inputs[1] != nullptr;
    if (!has_split) {
      sizes.assign(static_cast<size_t>(length), 1);
    } else {
      const Tensor& split = TensorInput(op_, inputs, 1, "split");
      if (split.dtype() != DType::kInt32 && split.dtype() != DType::kInt64) {
        Fail(op_, "split must be int32 or int64, got " + Describe(split));
      }
      if (split.shape().rank() > 1)
        Fail(op_, "split must be a scalar or 1-D, got " + Describe(split));
      std::vector<int64_t> values;
      for (int64_t i = 0; i < split.num_elements(); ++i) {
        values.push_back(split.dtype() == DType::kInt32 ? split.data<int32_t>()[i]
                                                        : split.data<int64_t>()[i]);
      }
      if (split.shape().rank() == 0) {
        if (values[0] <= 0) {
          Fail(op_, "split is " + std::to_string(values[0]) + "; a chunk size must be positive");
        }
        for (int64_t begin = 0; begin < length; begin += values[0]) {
          sizes.push_back(std::min(values[0], length - begin));
        }
      } else {
        int64_t total = 0;
        for (int64_t size : values) {
          // Each part fits in the dim, so the running total cannot overflow.
          if (size < 0 || size > length) {
            Fail(op_, "split " + IntsToString(values) + " has a size outside [0, " +
                          std::to_string(length) + "]");
          }
          total += size;
          if (total > length) break;
        }
        if (total != length) {
          Fail(op_, "split " + IntsToString(values) + " sums to " +
                        (total > length ? "more than " + std::to_string(length)
                                        : std::to_string(total)) +
                        ", but input " + Describe(input) + " has " + std::to_string(length) +
                        " along axis " + std::to_string(axis));
        }
        sizes = std::move(values);
      }
    }
    std::vector<Tensor> parts;
    int64_t begin = 0;
    for (int64_t size : sizes) {
      Tensor part = CopyRange(input, axis, begin, size);
      begin += size;
      if (!has_split && !keepdims_) {
        std::vector<int64_t> dims = part.shape().dims();
        dims.erase(dims.begin() + axis);
        part = part.reshape(Shape(dims));
      }
      parts.push_back(std::move(part));
    }
    return {Value::Sequence(input.dtype(), std::move(parts))};
  }

 private:
  static std::string IntsToString(const std::vector<int64_t>& values) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
  }

  const int64_t axis_;
  const bool keepdims_;
};

class ConcatFromSequenceKernel : public SequenceKernel {
 public:
  explicit ConcatFromSequenceKernel(const Node& node)
      : SequenceKernel(node),
        axis_(node.attributes.get_int("axis")),
        new_axis_(node.attributes.get_int("new_axis", 0) != 0) {}

  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    const Value& sequence = SequenceInput(op_, inputs, 0, "input_sequence");
    const std::vector<Tensor>& elements = sequence.elements();
    if (elements.empty()) Fail(op_, "the sequence is empty; there is nothing to concatenate");
    // With new_axis, each element is seen with a dim of 1 inserted at axis.
    const int element_rank = elements[0].shape().rank();
    const int rank = element_rank + (new_axis_ ? 1 : 0);
    if (axis_ < -rank || axis_ >= rank) {
      Fail(op_, "axis " + std::to_string(axis_) + " is out of range for elements " +
                    Describe(elements[0]) + (new_axis_ ? " with new_axis" : ""));
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const auto viewed = [&](const Tensor& element) {
      std::vector<int64_t> dims = element.shape().dims();
      if (new_axis_) dims.insert(dims.begin() + axis, 1);
      return dims;
    };
    const std::vector<int64_t> first = viewed(elements[0]);
    std::vector<int64_t> out_dims = first;
    out_dims[axis] = 0;
    std::vector<int64_t> counts;  // each element's size along axis
    for (size_t e = 0; e < elements.size(); ++e) {
      const std::vector<int64_t> dims = viewed(elements[e]);
      bool fits = static_cast<int>(dims.size()) == rank;
      for (int i = 0; fits && i < rank; ++i) fits = i == axis || dims[i] == first[i];
      if (!fits) {
        Fail(op_,
             "element " + std::to_string(e) + " " + Describe(elements[e]) +
                 " does not fit element 0 " + Describe(elements[0]) +
                 (new_axis_ ? " (new_axis: every shape must be equal)"
                            : " (all dims but axis " + std::to_string(axis) + " must be equal)"));
      }
      counts.push_back(dims[axis]);
      // Elements with an empty dim elsewhere may be long along axis.
      if (__builtin_add_overflow(out_dims[axis], dims[axis], &out_dims[axis])) {
        Fail(op_, "the concatenated size along axis " + std::to_string(axis) + " overflows");
      }
    }
    int64_t outer = 1;
    for (int i = 0; i < axis; ++i) outer *= out_dims[i];
    int64_t inner = 1;
    for (int i = axis + 1; i < rank; ++i) inner *= out_dims[i];
    const size_t row_bytes = static_cast<size_t>(inner) * dtype_size(elements[0].dtype());
    Tensor out = Tensor::uninitialized(elements[0].dtype(), Shape(out_dims));
    if (out.nbytes() == 0) return {std::move(out)};
    auto* dst = static_cast<char*>(out.raw_data());
    // Serial: each outer row takes every element's block in turn.
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t e = 0; e < elements.size(); ++e) {
        const size_t bytes = static_cast<size_t>(counts[e]) * row_bytes;
        std::memcpy(dst, static_cast<const char*>(elements[e].raw_data()) + o * bytes, bytes);
        dst += bytes;
      }
    }
    return {std::move(out)};
  }

 private:
  const int64_t axis_;
  const bool new_axis_;
};

class SequenceMapKernel : public SequenceKernel {
 public:
  SequenceMapKernel(const Node& node, kernels::Isa isa)
      : SequenceKernel(node), body_(node.attributes.get_graph("body")) {
    const graph::SubgraphDepthGuard depth("node '" + node.name + "'");
    plan_ = std::make_unique<ExecutionPlan>(*body_, isa);
  }

  std::vector<Value> RunValues(const kernels::KernelContext& ctx, ValueInputs inputs,
                               const RunControl& control) const override {
    const size_t onnx_inputs = node_.num_onnx_inputs();
    const size_t length = SequenceInput(op_, inputs, 0, "input_sequence").elements().size();
    for (size_t j = 1; j < onnx_inputs; ++j) {
      const Value& extra = Input(op_, inputs, j, "input " + std::to_string(j));
      if (extra.is_none()) Fail(op_, "input " + std::to_string(j) + " is an empty optional");
      if (extra.is_sequence() && extra.elements().size() != length) {
        Fail(op_, "input " + std::to_string(j) + " has " + std::to_string(extra.elements().size()) +
                      " elements, input_sequence " + std::to_string(length));
      }
    }
    const size_t outputs = body_->outputs.size();
    std::vector<std::vector<Tensor>> results(outputs);
    for (size_t i = 0; i < length; ++i) {
      control.CheckInterruption();
      std::vector<Value> body_inputs;
      body_inputs.reserve(inputs.size());
      for (size_t j = 0; j < onnx_inputs; ++j) {
        const Value& input = *inputs[j];
        body_inputs.push_back(input.is_sequence() ? Value(input.elements()[i]) : input);
      }
      for (size_t j = onnx_inputs; j < inputs.size(); ++j) {
        body_inputs.push_back(Input(op_, inputs, j, "outer-scope value " + node_.inputs[j]));
      }
      std::vector<Value> out =
          RunSubgraph(*plan_, std::move(body_inputs), ctx.pool, control, "subgraph 'body'");
      for (size_t k = 0; k < outputs; ++k) {
        if (!out[k].is_tensor()) {
          Fail(op_, "body output " + std::to_string(k) + " is " + out[k].describe() +
                        "; it must be a tensor");
        }
        results[k].push_back(std::move(out[k].tensor()));
      }
    }
    std::vector<Value> sequences;
    for (size_t k = 0; k < outputs; ++k) {
      sequences.push_back(Value::Sequence(body_->outputs[k].type.dtype, std::move(results[k])));
    }
    return sequences;
  }

 private:
  std::shared_ptr<const Graph> body_;  // typed; keeps the plan's source alive
  std::unique_ptr<ExecutionPlan> plan_;
};

class OptionalKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    if (inputs.empty() || inputs[0] == nullptr) return {Value::None()};
    return {*inputs[0]};
  }
};

class OptionalHasElementKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    const bool has = !inputs.empty() && inputs[0] != nullptr && !inputs[0]->is_none();
    return {Tensor::from_vector(Shape(), std::vector<bool>{has})};
  }
};

class OptionalGetElementKernel : public SequenceKernel {
 public:
  using SequenceKernel::SequenceKernel;
  std::vector<Value> RunValues(const kernels::KernelContext&, ValueInputs inputs,
                               const RunControl&) const override {
    const Value& optional = Input(op_, inputs, 0, "input");
    if (optional.is_none()) Fail(op_, "the optional is empty; it holds no element to get");
    return {optional};
  }
};

}  // namespace

std::unique_ptr<NodeKernel> MakeSequenceKernel(const Node& node, kernels::Isa isa) {
  const std::string& op = node.op_type;
  if (op == "Identity") return std::make_unique<IdentityKernel>(node);
  if (op == "SequenceEmpty") return std::make_unique<SequenceEmptyKernel>(node);
  if (op == "SequenceConstruct") return std::make_unique<SequenceConstructKernel>(node);
  if (op == "SequenceInsert") return std::make_unique<SequenceInsertKernel>(node);
  if (op == "SequenceAt") return std::make_unique<SequenceAtKernel>(node);
  if (op == "SequenceErase") return std::make_unique<SequenceEraseKernel>(node);
  if (op == "SequenceLength") return std::make_unique<SequenceLengthKernel>(node);
  if (op == "SplitToSequence") return std::make_unique<SplitToSequenceKernel>(node);
  if (op == "ConcatFromSequence") return std::make_unique<ConcatFromSequenceKernel>(node);
  if (op == "SequenceMap") return std::make_unique<SequenceMapKernel>(node, isa);
  if (op == "Optional") return std::make_unique<OptionalKernel>(node);
  if (op == "OptionalHasElement") return std::make_unique<OptionalHasElementKernel>(node);
  if (op == "OptionalGetElement") return std::make_unique<OptionalGetElementKernel>(node);
  Fail(op, "not a sequence or optional op");
}

}  // namespace loom::runtime
