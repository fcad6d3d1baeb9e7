// NodeKernel: how the executor runs one node — the prepared stage of the
// kernel lifecycle. Built once per session node: the registry's prepare
// stage for the op (kernels/registry.h: Conv, NchwcConv, MatMul and Gemm
// pack constant weights) when it has one and the constants allow it, else
// the registry kernel with the node's attributes converted once. Inputs
// arrive in ONNX order, constants included (a prepared kernel ignores the
// ones it has baked in).
//
// Control flow (If, Loop, Scan) and the sequence and optional ops get a
// kernel of the runtime layer instead (control_flow_kernel.h,
// sequence_kernels.h): a ValueNodeKernel, whose inputs and outputs may be
// sequences or empty optionals (loom/value.h), not only tensors.
//
// Thread safety: Run is const and may be called concurrently.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "kernels/op_kernel.h"
#include "loom/graph.h"
#include "loom/value.h"

namespace loom::kernels {
struct KernelRegistration;
}

namespace loom::runtime {

// What a node that runs subgraphs needs of the run it is part of: the
// executor's step implements it.
class RunControl {
 public:
  virtual ~RunControl() = default;
  // Throws the run's CancelledError or DeadlineExceededError (the errors
  // the executor itself gives) once it is cancelled or past its deadline.
  virtual void CheckInterruption() const = 0;
};

// A RunControl that never interrupts (tests, constant evaluation).
class NoRunControl : public RunControl {
 public:
  void CheckInterruption() const override {}
};

// A node's inputs as values, in ONNX order; null = absent.
using ValueInputs = std::span<const Value* const>;

class NodeKernel {
 public:
  virtual ~NodeKernel() = default;
  // Tensor kernels: the executor binds tensor inputs and calls Run.
  virtual std::vector<Tensor> Run(const kernels::KernelContext& ctx, kernels::KernelInputs inputs,
                                  const RunControl& control) const = 0;
  // Value kernels (takes_values()): the executor calls RunValues instead.
  virtual bool takes_values() const { return false; }
  virtual std::vector<Value> RunValues(const kernels::KernelContext& ctx, ValueInputs inputs,
                                       const RunControl& control) const;
  // "registry", or the prepared kernel's kind ("prepared conv", ...): for
  // tests and traces.
  virtual const char* kind() const = 0;
};

// The base of the runtime layer's value kernels: Run (tensors) refuses.
class ValueNodeKernel : public NodeKernel {
 public:
  std::vector<Tensor> Run(const kernels::KernelContext& ctx, kernels::KernelInputs inputs,
                          const RunControl& control) const final;
  bool takes_values() const final { return true; }
  std::vector<Value> RunValues(const kernels::KernelContext& ctx, ValueInputs inputs,
                               const RunControl& control) const override = 0;
};

// Builds the kernel for `node`; `constants[i]` is input i's value when it is
// an initializer, else null. Throws InvalidArgumentError when preparing
// fails (weights that do not fit the attributes).
std::unique_ptr<NodeKernel> MakeNodeKernel(const Node& node,
                                           const std::vector<const Tensor*>& constants,
                                           kernels::Isa isa);

}  // namespace loom::runtime
