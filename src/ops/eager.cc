// The eager API (include/loom/ops.h): each function builds the ONNX
// attributes of its op and calls the registry's kernel with the eager
// context. No op logic lives here.
#include <utility>

#include "kernels/onnx_dtype.h"
#include "kernels/registry.h"
#include "loom/errors.h"
#include "loom/ops.h"
#include "ops/eager_context.h"
#include "ops/onnx_attribute_names.h"
#include "threading/cpu_budget.h"
#include "threading/thread_pool.h"

namespace loom::ops {
namespace {

const Tensor* FirstPresent(const std::vector<const Tensor*>& inputs) {
  for (const Tensor* t : inputs) {
    if (t != nullptr) return t;
  }
  return nullptr;
}

Tensor One(std::string_view op, const std::vector<const Tensor*>& inputs,
           const Attributes& attributes = {}) {
  return run_optional(op, inputs, attributes).at(0);
}

Attributes WindowAttributes(const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                            const std::string& auto_pad) {
  Attributes attrs;
  if (!strides.empty()) attrs["strides"] = strides;
  if (!pads.empty()) attrs["pads"] = pads;
  attrs["auto_pad"] = auto_pad;
  return attrs;
}

Attributes PoolAttributes(const PoolOptions& o) {
  Attributes attrs = WindowAttributes(o.strides, o.pads, o.auto_pad);
  attrs["kernel_shape"] = o.kernel_shape;
  attrs["ceil_mode"] = int64_t{o.ceil_mode};
  return attrs;
}

Tensor Reduce(std::string_view op, const Tensor& x, const std::vector<int64_t>& axes,
              bool keepdims) {
  const Tensor axes_tensor =
      Tensor::from_vector<int64_t>(Shape({static_cast<int64_t>(axes.size())}), axes);
  return One(op, {&x, axes.empty() ? nullptr : &axes_tensor}, {{"keepdims", int64_t{keepdims}}});
}

}  // namespace

std::vector<Tensor> run_optional(std::string_view op, const std::vector<const Tensor*>& inputs,
                                 const Attributes& attributes) {
  const kernels::KernelRegistration* registration = kernels::FindKernel(op);
  if (registration == nullptr) {
    throw InvalidArgumentError("no operator '" + std::string(op) +
                               "' (supported_ops() lists them)");
  }
  CheckOnnxAttributeNames(op, attributes);
  const kernels::KernelContext ctx = EagerContext();
  const Tensor* first = FirstPresent(inputs);
  if (first != nullptr && (registration->dtypes & kernels::DTypeBit(first->dtype())) == 0) {
    kernels::LookupKernel(op, first->dtype());  // throws, naming the dtypes
  }
  // The op computes under a token of the process's CPU budget.
  const threading::CpuBudgetScope token(ctx.pool != nullptr ? ctx.pool->cpu_budget() : nullptr,
                                        threading::CpuBudgetScope::Mode::kWait);
  return kernels::RunKernel(*registration, ctx, attributes,
                            kernels::KernelInputs(inputs.data(), inputs.size()));
}

std::vector<Tensor> run(std::string_view op, const std::vector<Tensor>& inputs,
                        const Attributes& attributes) {
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : inputs) pointers.push_back(&t);
  return run_optional(op, pointers, attributes);
}

std::vector<std::string> supported_ops() {
  std::vector<std::string> ops;
  for (const auto& r : kernels::KernelRegistry()) ops.emplace_back(r.op);
  return ops;
}

std::string kernel_isa() { return std::string(kernels::IsaName(EagerContext().isa)); }

Tensor matmul(const Tensor& a, const Tensor& b) { return One("MatMul", {&a, &b}); }

Tensor gemm(const Tensor& a, const Tensor& b, const Tensor* c, const GemmOptions& o) {
  return One("Gemm", {&a, &b, c},
             {{"transA", int64_t{o.transpose_a}},
              {"transB", int64_t{o.transpose_b}},
              {"alpha", o.alpha},
              {"beta", o.beta}});
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvOptions& o) {
  if (x.shape().rank() != 4) {
    throw InvalidArgumentError("Conv: conv2d needs input 'X' of rank 4 [N, C, H, W] (got shape " +
                               x.shape().to_string() + ")");
  }
  Attributes attrs = WindowAttributes(o.strides, o.pads, o.auto_pad);
  if (!o.dilations.empty()) attrs["dilations"] = o.dilations;
  attrs["group"] = o.group;
  return One("Conv", {&x, &w, bias}, attrs);
}

Tensor max_pool(const Tensor& x, const PoolOptions& o) {
  return One("MaxPool", {&x}, PoolAttributes(o));
}
Tensor average_pool(const Tensor& x, const PoolOptions& o) {
  Attributes attrs = PoolAttributes(o);
  attrs["count_include_pad"] = int64_t{o.count_include_pad};
  return One("AveragePool", {&x}, attrs);
}
Tensor global_average_pool(const Tensor& x) { return One("GlobalAveragePool", {&x}); }
Tensor global_max_pool(const Tensor& x) { return One("GlobalMaxPool", {&x}); }

Tensor add(const Tensor& a, const Tensor& b) { return One("Add", {&a, &b}); }
Tensor sub(const Tensor& a, const Tensor& b) { return One("Sub", {&a, &b}); }
Tensor mul(const Tensor& a, const Tensor& b) { return One("Mul", {&a, &b}); }
Tensor div(const Tensor& a, const Tensor& b) { return One("Div", {&a, &b}); }
Tensor pow(const Tensor& a, const Tensor& b) { return One("Pow", {&a, &b}); }
Tensor maximum(const Tensor& a, const Tensor& b) { return One("Max", {&a, &b}); }
Tensor minimum(const Tensor& a, const Tensor& b) { return One("Min", {&a, &b}); }
Tensor relu(const Tensor& x) { return One("Relu", {&x}); }
Tensor leaky_relu(const Tensor& x, float alpha) {
  return One("LeakyRelu", {&x}, {{"alpha", alpha}});
}
Tensor sigmoid(const Tensor& x) { return One("Sigmoid", {&x}); }
Tensor tanh(const Tensor& x) { return One("Tanh", {&x}); }
Tensor exp(const Tensor& x) { return One("Exp", {&x}); }
Tensor log(const Tensor& x) { return One("Log", {&x}); }
Tensor sqrt(const Tensor& x) { return One("Sqrt", {&x}); }
Tensor gelu(const Tensor& x) { return One("Gelu", {&x}); }
Tensor silu(const Tensor& x) { return One("Silu", {&x}); }
Tensor clip(const Tensor& x, float min, float max) {
  // ONNX Clip wants its bounds in x's dtype.
  const Tensor lo = cast(Tensor::from_vector<float>(Shape(), {min}), x.dtype());
  const Tensor hi = cast(Tensor::from_vector<float>(Shape(), {max}), x.dtype());
  return One("Clip", {&x, &lo, &hi});
}

Tensor reduce_sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return Reduce("ReduceSum", x, axes, keepdims);
}
Tensor reduce_mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return Reduce("ReduceMean", x, axes, keepdims);
}
Tensor reduce_max(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return Reduce("ReduceMax", x, axes, keepdims);
}
Tensor reduce_min(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return Reduce("ReduceMin", x, axes, keepdims);
}
Tensor argmax(const Tensor& x, int64_t axis, bool keepdims) {
  return One("ArgMax", {&x}, {{"axis", axis}, {"keepdims", int64_t{keepdims}}});
}

Tensor softmax(const Tensor& x, int64_t axis) { return One("Softmax", {&x}, {{"axis", axis}}); }
Tensor log_softmax(const Tensor& x, int64_t axis) {
  return One("LogSoftmax", {&x}, {{"axis", axis}});
}
Tensor layer_norm(const Tensor& x, const Tensor& scale, const Tensor* bias, int64_t axis,
                  float epsilon) {
  return One("LayerNormalization", {&x, &scale, bias}, {{"axis", axis}, {"epsilon", epsilon}});
}
Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                  const Tensor& variance, float epsilon) {
  return One("BatchNormalization", {&x, &scale, &bias, &mean, &variance}, {{"epsilon", epsilon}});
}

Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape) {
  const Tensor s = Tensor::from_vector<int64_t>(Shape({static_cast<int64_t>(shape.size())}), shape);
  return One("Reshape", {&x, &s});
}
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  Attributes attrs;
  if (!perm.empty()) attrs["perm"] = perm;
  return One("Transpose", {&x}, attrs);
}
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis) {
  return run("Concat", tensors, {{"axis", axis}}).at(0);
}
Tensor flatten(const Tensor& x, int64_t axis) { return One("Flatten", {&x}, {{"axis", axis}}); }
Tensor cast(const Tensor& x, DType dtype) {
  return One("Cast", {&x}, {{"to", kernels::OnnxDataType(dtype)}});
}

}  // namespace loom::ops
