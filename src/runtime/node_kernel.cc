#include "runtime/node_kernel.h"

#include <optional>

#include "graph/passes/kernel_attributes.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/registry.h"
#include "loom/errors.h"

namespace loom::runtime {
namespace {

class RegistryNodeKernel : public NodeKernel {
 public:
  RegistryNodeKernel(const kernels::KernelRegistration& registration, kernels::Attributes attrs)
      : registration_(registration), attrs_(std::move(attrs)) {}

  std::vector<Tensor> Run(const kernels::KernelContext& ctx,
                          kernels::KernelInputs inputs) const override {
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
  kernels::Attributes attrs_;
};

class PreparedConvNodeKernel : public NodeKernel {
 public:
  explicit PreparedConvNodeKernel(kernels::PreparedConv conv) : conv_(std::move(conv)) {}

  std::vector<Tensor> Run(const kernels::KernelContext& ctx,
                          kernels::KernelInputs inputs) const override {
    return {conv_.Run(ctx, kernels::RequiredInput("Conv", inputs, 0, "X"))};
  }
  const char* kind() const override { return "prepared conv"; }

 private:
  kernels::PreparedConv conv_;
};

class PreparedNchwcConvNodeKernel : public NodeKernel {
 public:
  explicit PreparedNchwcConvNodeKernel(kernels::PreparedNchwcConv conv) : conv_(std::move(conv)) {}

  std::vector<Tensor> Run(const kernels::KernelContext& ctx,
                          kernels::KernelInputs inputs) const override {
    return {conv_.Run(ctx, kernels::RequiredInput("NchwcConv", inputs, 0, "X"),
                      kernels::OptionalInput(inputs, 3))};
  }
  const char* kind() const override { return "prepared nchwc conv"; }

 private:
  kernels::PreparedNchwcConv conv_;
};

class PreparedMatMulNodeKernel : public NodeKernel {
 public:
  PreparedMatMulNodeKernel(std::string op, kernels::PreparedMatMul matmul)
      : op_(std::move(op)), matmul_(std::move(matmul)) {}

  std::vector<Tensor> Run(const kernels::KernelContext& ctx,
                          kernels::KernelInputs inputs) const override {
    const Tensor& a = kernels::RequiredInput(op_, inputs, 0, "A");
    const Tensor* c = kernels::OptionalInput(inputs, 2);
    return {matmul_.Run(ctx, a, c)};
  }
  const char* kind() const override { return "prepared matmul"; }

 private:
  std::string op_;
  kernels::PreparedMatMul matmul_;
};

bool IsFloat32(const Tensor* tensor) {
  return tensor != nullptr && tensor->dtype() == DType::kFloat32;
}

}  // namespace

std::unique_ptr<NodeKernel> MakeNodeKernel(const Node& node,
                                           const std::vector<const Tensor*>& constants,
                                           kernels::Isa isa) {
  const kernels::KernelRegistration* registration = kernels::FindKernel(node.op_type);
  if (registration == nullptr) {
    throw InvalidArgumentError("no kernel for op type '" + node.op_type + "'");
  }
  kernels::Attributes attrs = graph::ToKernelAttributes(node.attributes);
  auto constant = [&](size_t i) { return i < constants.size() ? constants[i] : nullptr; };
  auto present = [&](size_t i) { return i < node.inputs.size() && !node.inputs[i].empty(); };

  if (node.op_type == "Conv" && IsFloat32(constant(1)) && (!present(2) || IsFloat32(constant(2))) &&
      node.inputs.size() <= 3) {
    return std::make_unique<PreparedConvNodeKernel>(
        kernels::PreparedConv(attrs, *constant(1), constant(2), isa));
  }
  if (node.op_type == "NchwcConv" && IsFloat32(constant(1)) &&
      (!present(2) || IsFloat32(constant(2))) && node.inputs.size() <= 4) {
    return std::make_unique<PreparedNchwcConvNodeKernel>(
        kernels::PreparedNchwcConv(attrs, *constant(1), constant(2), isa));
  }
  const bool matmul = node.op_type == "MatMul" && node.inputs.size() == 2;
  const bool gemm = node.op_type == "Gemm" && node.inputs.size() <= 3;
  if ((matmul || gemm) && IsFloat32(constant(1)) && constant(1)->shape().rank() == 2) {
    return std::make_unique<PreparedMatMulNodeKernel>(
        node.op_type, kernels::PreparedMatMul(node.op_type, attrs, *constant(1), isa));
  }
  return std::make_unique<RegistryNodeKernel>(*registration, std::move(attrs));
}

}  // namespace loom::runtime
