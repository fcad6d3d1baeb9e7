#include "runtime/node_kernel.h"

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "graph/control_flow.h"
#include "graph/sequence_ops.h"
#include "kernels/registry.h"
#include "loom/errors.h"
#include "runtime/control_flow_kernel.h"
#include "runtime/sequence_kernels.h"

namespace loom::runtime {
namespace {

class RegistryNodeKernel : public NodeKernel {
 public:
  RegistryNodeKernel(const kernels::KernelRegistration& registration, Attributes attrs)
      : registration_(registration), attrs_(std::move(attrs)) {}

  std::vector<Tensor> Run(const kernels::KernelContext& ctx, kernels::KernelInputs inputs,
                          const RunControl&) const override {
    const Tensor* first = nullptr;
    for (const Tensor* input : inputs) {
      if (input != nullptr) {
        first = input;
        break;
      }
    }
    if (first != nullptr && (registration_.dtypes & kernels::DTypeBit(first->dtype())) == 0) {
      kernels::LookupKernel(registration_.op, first->dtype());  // throws, naming the dtypes
    }
    return kernels::RunKernel(registration_, ctx, attrs_, inputs);
  }
  const char* kind() const override { return "registry"; }

 private:
  const kernels::KernelRegistration& registration_;
  Attributes attrs_;
};

// A family's prepared kernel (the registry's prepare stage).
class PreparedNodeKernel : public NodeKernel {
 public:
  explicit PreparedNodeKernel(std::unique_ptr<kernels::PreparedKernel> kernel)
      : kernel_(std::move(kernel)) {}

  std::vector<Tensor> Run(const kernels::KernelContext& ctx, kernels::KernelInputs inputs,
                          const RunControl&) const override {
    return kernel_->Run(ctx, inputs);
  }
  const char* kind() const override { return kernel_->kind(); }

 private:
  std::unique_ptr<kernels::PreparedKernel> kernel_;
};

}  // namespace

std::vector<Value> NodeKernel::RunValues(const kernels::KernelContext&, ValueInputs,
                                         const RunControl&) const {
  throw RuntimeError("a tensor kernel was run as a value kernel");
}

std::vector<Tensor> ValueNodeKernel::Run(const kernels::KernelContext&, kernels::KernelInputs,
                                         const RunControl&) const {
  throw RuntimeError("a value kernel was run as a tensor kernel");
}

std::unique_ptr<NodeKernel> MakeNodeKernel(const Node& node,
                                           const std::vector<const Tensor*>& constants,
                                           kernels::Isa isa) {
  if (graph::IsControlFlowOp(node.op_type)) return MakeControlFlowKernel(node, isa);
  if (graph::IsSequenceOp(node.op_type)) return MakeSequenceKernel(node, isa);
  const kernels::KernelRegistration* registration = kernels::FindKernel(node.op_type);
  if (registration == nullptr) {
    throw InvalidArgumentError("no kernel for op type '" + node.op_type + "'");
  }
  Attributes attrs = node.attributes;
  if (registration->prepare != nullptr) {
    std::vector<const Tensor*> slots(node.inputs.size(), nullptr);
    std::unique_ptr<bool[]> present(new bool[node.inputs.size()]);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      slots[i] = i < constants.size() ? constants[i] : nullptr;
      present[i] = !node.inputs[i].empty();
    }
    const kernels::PrepareArgs args{attrs, slots,
                                    std::span<const bool>(present.get(), node.inputs.size()), isa};
    if (std::unique_ptr<kernels::PreparedKernel> prepared = registration->prepare(args)) {
      return std::make_unique<PreparedNodeKernel>(std::move(prepared));
    }
  }
  return std::make_unique<RegistryNodeKernel>(*registration, std::move(attrs));
}

}  // namespace loom::runtime
