#include "runtime/control_flow_kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "graph/control_flow.h"
#include "loom/errors.h"
#include "runtime/execution_plan.h"
#include "runtime/subgraph_runner.h"

namespace loom::runtime {
namespace {

// Copies `bytes` of elements of `dtype`: strings as objects (their bytes are
// std::string objects, not text), everything else as bytes.
void CopyBytesOf(DType dtype, char* dst, const char* src, size_t bytes) {
  if (dtype == DType::kString) {
    const auto* from = reinterpret_cast<const std::string*>(src);
    std::copy(from, from + bytes / sizeof(std::string), reinterpret_cast<std::string*>(dst));
  } else {
    std::memcpy(dst, src, bytes);
  }
}

[[noreturn]] void Fail(const std::string& op, const std::string& detail) {
  throw InvalidArgumentError(op + ": " + detail);
}

std::string Describe(const Tensor& tensor) {
  return std::string(dtype_name(tensor.dtype())) + tensor.shape().to_string();
}

// A prepared subgraph and what its runs need to know about it.
struct Subgraph {
  std::shared_ptr<const Graph> graph;   // typed; keeps the plan's source alive
  std::unique_ptr<ExecutionPlan> plan;  // null: could not be prepared (error)
  std::string where;                    // "subgraph 'body'"
  std::string error;
};

// `may_fail`: an If branch that type inference could not type for the
// node's inputs (graph/control_flow.h) fails only if it is taken.
Subgraph Prepare(const Node& node, const std::string& attribute, kernels::Isa isa,
                 bool may_fail = false) {
  Subgraph subgraph;
  subgraph.graph = node.attributes.get_graph(attribute);
  subgraph.where = "subgraph '" + attribute + "'";
  const graph::SubgraphDepthGuard depth("node '" + node.name + "'");
  try {
    subgraph.plan = std::make_unique<ExecutionPlan>(*subgraph.graph, isa);
  } catch (const graph::SubgraphDepthError&) {
    throw;
  } catch (const InvalidArgumentError& e) {
    if (!may_fail) throw;
    subgraph.error = e.what();
  }
  return subgraph;
}

bool ReadCondition(const std::string& op, const std::string& what, const Tensor& tensor) {
  if (tensor.dtype() != DType::kBool || tensor.num_elements() != 1) {
    Fail(op, what + " must be a one-element bool tensor, got " + Describe(tensor));
  }
  return tensor.data<bool>()[0];
}

std::vector<Value> Captures(const Node& node, ValueInputs inputs) {
  std::vector<Value> captures;
  for (size_t i = node.num_onnx_inputs(); i < inputs.size(); ++i) {
    if (inputs[i] == nullptr)
      Fail(node.op_type, "outer-scope value " + node.inputs[i] + " is absent");
    captures.push_back(*inputs[i]);
  }
  return captures;
}

// The elements' bytes as [outer, inner] blocks around the new axis.
Tensor Stack(const std::string& op, const std::string& what, const std::vector<Tensor>& elements,
             int axis, bool reverse) {
  const Tensor& first = elements.front();
  for (size_t t = 1; t < elements.size(); ++t) {
    if (elements[t].dtype() != first.dtype() || elements[t].shape() != first.shape()) {
      Fail(op, what + " is " + Describe(elements[t]) + " at iteration " + std::to_string(t) +
                   " but " + Describe(first) + " at iteration 0");
    }
  }
  const std::vector<int64_t>& dims = first.shape().dims();
  const int rank = static_cast<int>(dims.size());
  if (axis < 0) axis += rank + 1;
  if (axis < 0 || axis > rank) {
    Fail(op, what + ": axis out of range for rank " + std::to_string(rank + 1));
  }
  std::vector<int64_t> out_dims = dims;
  const auto length = static_cast<int64_t>(elements.size());
  out_dims.insert(out_dims.begin() + axis, length);
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[i];
  const size_t inner_bytes = first.nbytes() / static_cast<size_t>(outer == 0 ? 1 : outer);
  Tensor out = Tensor::uninitialized(first.dtype(), Shape(out_dims));
  auto* dst = static_cast<char*>(out.raw_data());
  if (outer == 0 || inner_bytes == 0) return out;
  // Serial: a copy the size of the scan output, once per node run.
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t t = 0; t < length; ++t) {
      const Tensor& element = elements[reverse ? length - 1 - t : t];
      const char* src = static_cast<const char*>(element.raw_data()) + o * inner_bytes;
      CopyBytesOf(first.dtype(), dst + (o * length + t) * inner_bytes, src, inner_bytes);
    }
  }
  return out;
}

// Slice `index` of `tensor` along `axis`, without that axis.
Tensor SliceAlong(const Tensor& tensor, int axis, int64_t index) {
  const std::vector<int64_t>& dims = tensor.shape().dims();
  std::vector<int64_t> out_dims = dims;
  out_dims.erase(out_dims.begin() + axis);
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[i];
  int64_t inner = 1;
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const size_t inner_bytes = static_cast<size_t>(inner) * dtype_size(tensor.dtype());
  Tensor out = Tensor::uninitialized(tensor.dtype(), Shape(out_dims));
  if (inner_bytes == 0) return out;
  const auto* src = static_cast<const char*>(tensor.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  const int64_t length = dims[axis];
  for (int64_t o = 0; o < outer; ++o) {
    CopyBytesOf(tensor.dtype(), dst + o * inner_bytes, src + (o * length + index) * inner_bytes,
                inner_bytes);
  }
  return out;
}

// A scan output after zero iterations: length 0 along axis, the rest from
// the body's type (unknown dims as 0, so the tensor is empty either way).
Tensor EmptyScanOutput(const TensorType& element, int axis) {
  std::vector<int64_t> dims;
  if (element.shape) {
    for (const Dim& dim : *element.shape) dims.push_back(dim.is_known() ? dim.size() : 0);
  }
  const int rank = static_cast<int>(dims.size());
  if (axis < 0) axis += rank + 1;
  if (axis < 0 || axis > rank) axis = 0;
  dims.insert(dims.begin() + axis, 0);
  return Tensor(element.dtype, Shape(dims));
}

// A loop-carried value or state may not change what it is between
// iterations (an empty optional may become full and back).
void CheckCarried(const std::string& op, size_t k, const Value& before, const Value& after) {
  if (before.is_none() || after.is_none()) return;
  const bool same = before.kind() == after.kind() &&
                    (before.is_tensor() ? before.tensor().dtype() == after.tensor().dtype()
                                        : before.element_dtype() == after.element_dtype());
  if (!same) {
    Fail(op, "loop-carried value " + std::to_string(k) + " changed from " + before.describe() +
                 " to " + after.describe());
  }
}

// A scan output's element: a tensor (ONNX's scan outputs are tensors).
Tensor ScanElement(const std::string& op, size_t k, Value value) {
  if (!value.is_tensor()) {
    Fail(op, "scan output " + std::to_string(k) + " is " + value.describe() +
                 "; scan outputs must be tensors");
  }
  return std::move(value.tensor());
}

const Tensor& TensorInput(const std::string& op, const std::string& what, const Value* value) {
  if (value == nullptr) Fail(op, what + " is absent");
  if (!value->is_tensor()) Fail(op, what + " must be a tensor, got " + value->describe());
  return value->tensor();
}

class IfKernel : public ValueNodeKernel {
 public:
  IfKernel(const Node& node, kernels::Isa isa)
      : node_(node),
        then_(Prepare(node, "then_branch", isa, true)),
        else_(Prepare(node, "else_branch", isa, true)) {}

  std::vector<Value> RunValues(const kernels::KernelContext& ctx, ValueInputs inputs,
                               const RunControl& control) const override {
    if (inputs.empty() || inputs[0] == nullptr) Fail("If", "cond is absent");
    const bool cond = ReadCondition("If", "cond", TensorInput("If", "cond", inputs[0]));
    const Subgraph& branch = cond ? then_ : else_;
    if (branch.plan == nullptr) Fail("If", branch.where + " cannot run: " + branch.error);
    return RunSubgraph(*branch.plan, Captures(node_, inputs), ctx.pool, control, branch.where);
  }
  const char* kind() const override { return "control flow"; }

 private:
  const Node node_;
  Subgraph then_;
  Subgraph else_;
};

class LoopKernel : public ValueNodeKernel {
 public:
  LoopKernel(const Node& node, kernels::Isa isa) : node_(node), body_(Prepare(node, "body", isa)) {}

  std::vector<Value> RunValues(const kernels::KernelContext& ctx, ValueInputs inputs,
                               const RunControl& control) const override {
    const size_t onnx_inputs = node_.num_onnx_inputs();
    const size_t carried = onnx_inputs - 2;
    const size_t scan_outputs = body_.graph->outputs.size() - 1 - carried;
    int64_t trip_count = std::numeric_limits<int64_t>::max();
    if (inputs[0] != nullptr) {
      const Tensor& m = TensorInput("Loop", "M", inputs[0]);
      if (m.dtype() != DType::kInt64 || m.num_elements() != 1) {
        Fail("Loop", "M must be a one-element int64 tensor, got " + Describe(m));
      }
      trip_count = m.data<int64_t>()[0];
      if (trip_count < 0) {
        Fail("Loop", "M (the maximum trip count) is " + std::to_string(trip_count) +
                         "; it must not be negative");
      }
    }
    bool cond = inputs[1] == nullptr ||
                ReadCondition("Loop", "cond", TensorInput("Loop", "cond", inputs[1]));
    std::vector<Value> values;
    for (size_t i = 0; i < carried; ++i) {
      if (inputs[2 + i] == nullptr)
        Fail("Loop", "loop-carried input " + std::to_string(i) + " is absent");
      values.push_back(*inputs[2 + i]);
    }
    const std::vector<Value> captures = Captures(node_, inputs);
    std::vector<std::vector<Tensor>> scans(scan_outputs);
    for (int64_t i = 0; i < trip_count && cond; ++i) {
      control.CheckInterruption();
      std::vector<Value> body_inputs;
      body_inputs.reserve(2 + carried + captures.size());
      body_inputs.push_back(Tensor::from_vector(Shape(), std::vector<int64_t>{i}));
      body_inputs.push_back(Tensor::from_vector(Shape(), std::vector<bool>{cond}));
      for (Value& value : values) body_inputs.push_back(std::move(value));
      body_inputs.insert(body_inputs.end(), captures.begin(), captures.end());
      std::vector<Value> outputs =
          RunSubgraph(*body_.plan, std::move(body_inputs), ctx.pool, control, body_.where);
      cond = ReadCondition("Loop", "the body's condition output",
                           TensorInput("Loop", "the body's condition output", &outputs[0]));
      for (size_t k = 0; k < carried; ++k) {
        CheckCarried("Loop", k, *inputs[2 + k], outputs[1 + k]);
        values[k] = std::move(outputs[1 + k]);
      }
      for (size_t k = 0; k < scan_outputs; ++k) {
        scans[k].push_back(ScanElement("Loop", k, std::move(outputs[1 + carried + k])));
      }
    }
    std::vector<Value> results = std::move(values);
    for (size_t k = 0; k < scan_outputs; ++k) {
      const std::string what = "scan output " + std::to_string(k);
      results.push_back(scans[k].empty()
                            ? EmptyScanOutput(body_.graph->outputs[1 + carried + k].type, 0)
                            : Stack("Loop", what, scans[k], 0, false));
    }
    return results;
  }
  const char* kind() const override { return "control flow"; }

 private:
  const Node node_;
  Subgraph body_;
};

class ScanKernel : public ValueNodeKernel {
 public:
  ScanKernel(const Node& node, kernels::Isa isa) : node_(node), body_(Prepare(node, "body", isa)) {
    const Attributes& attrs = node.attributes;
    scan_inputs_ = static_cast<size_t>(attrs.get_int("num_scan_inputs"));
    states_ = node.num_onnx_inputs() - scan_inputs_;
    scan_outputs_ = body_.graph->outputs.size() - states_;
    input_axes_ = attrs.get_ints("scan_input_axes", std::vector<int64_t>(scan_inputs_, 0));
    input_directions_ =
        attrs.get_ints("scan_input_directions", std::vector<int64_t>(scan_inputs_, 0));
    output_axes_ = attrs.get_ints("scan_output_axes", std::vector<int64_t>(scan_outputs_, 0));
    output_directions_ =
        attrs.get_ints("scan_output_directions", std::vector<int64_t>(scan_outputs_, 0));
  }

  std::vector<Value> RunValues(const kernels::KernelContext& ctx, ValueInputs inputs,
                               const RunControl& control) const override {
    std::vector<Value> states;
    for (size_t i = 0; i < states_; ++i) {
      if (inputs[i] == nullptr) Fail("Scan", "state input " + std::to_string(i) + " is absent");
      states.push_back(*inputs[i]);
    }
    int64_t length = -1;
    std::vector<int> axes;
    for (size_t j = 0; j < scan_inputs_; ++j) {
      const Tensor* input =
          &TensorInput("Scan", "scan input " + std::to_string(j), inputs[states_ + j]);
      const int rank = input->shape().rank();
      int64_t axis = input_axes_[j];
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) {
        Fail("Scan", "scan_input_axes[" + std::to_string(j) +
                         "] = " + std::to_string(input_axes_[j]) +
                         " is out of range for scan input " + Describe(*input));
      }
      axes.push_back(static_cast<int>(axis));
      const int64_t here = input->shape().dim(static_cast<int>(axis));
      if (length >= 0 && here != length) {
        Fail("Scan", "scan input " + std::to_string(j) + " " + Describe(*input) + " has " +
                         std::to_string(here) + " iterations along axis " + std::to_string(axis) +
                         ", scan input 0 has " + std::to_string(length));
      }
      length = here;
    }
    const std::vector<Value> captures = Captures(node_, inputs);
    std::vector<std::vector<Tensor>> scans(scan_outputs_);
    for (int64_t t = 0; t < length; ++t) {
      control.CheckInterruption();
      std::vector<Value> body_inputs;
      for (Value& state : states) body_inputs.push_back(std::move(state));
      for (size_t j = 0; j < scan_inputs_; ++j) {
        const int64_t index = input_directions_[j] == 1 ? length - 1 - t : t;
        body_inputs.push_back(SliceAlong(inputs[states_ + j]->tensor(), axes[j], index));
      }
      body_inputs.insert(body_inputs.end(), captures.begin(), captures.end());
      std::vector<Value> outputs =
          RunSubgraph(*body_.plan, std::move(body_inputs), ctx.pool, control, body_.where);
      states.assign(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(states_));
      for (size_t k = 0; k < scan_outputs_; ++k) {
        scans[k].push_back(ScanElement("Scan", k, std::move(outputs[states_ + k])));
      }
    }
    std::vector<Value> results = std::move(states);
    for (size_t k = 0; k < scan_outputs_; ++k) {
      const int axis = static_cast<int>(output_axes_[k]);
      results.push_back(scans[k].empty()
                            ? EmptyScanOutput(body_.graph->outputs[states_ + k].type, axis)
                            : Stack("Scan", "scan output " + std::to_string(k), scans[k], axis,
                                    output_directions_[k] == 1));
    }
    return results;
  }
  const char* kind() const override { return "control flow"; }

 private:
  const Node node_;
  Subgraph body_;
  size_t scan_inputs_ = 0;
  size_t states_ = 0;
  size_t scan_outputs_ = 0;
  std::vector<int64_t> input_axes_, input_directions_, output_axes_, output_directions_;
};

}  // namespace

std::unique_ptr<NodeKernel> MakeControlFlowKernel(const Node& node, kernels::Isa isa) {
  if (node.op_type == "If") return std::make_unique<IfKernel>(node, isa);
  if (node.op_type == "Loop") {
    if (node.num_onnx_inputs() < 2) Fail("Loop", "expected at least 2 inputs (M, cond)");
    return std::make_unique<LoopKernel>(node, isa);
  }
  if (node.op_type == "Scan") return std::make_unique<ScanKernel>(node, isa);
  Fail(node.op_type, "not a control-flow op");
}

}  // namespace loom::runtime
