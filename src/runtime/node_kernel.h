// NodeKernel: how the executor runs one node — the prepared stage of the
// kernel lifecycle. Built once per session node: the registry's prepare
// stage for the op (kernels/registry.h: Conv, NchwcConv, MatMul and Gemm
// pack constant weights) when it has one and the constants allow it, else
// the registry kernel with the node's attributes converted once. Inputs
// arrive in ONNX order, constants included (a prepared kernel ignores the
// ones it has baked in).
//
// Control flow (If, Loop, Scan) gets a kernel of the runtime layer instead
// (control_flow_kernel.h), which runs the node's subgraphs.
//
// Thread safety: Run is const and may be called concurrently.
#pragma once

#include <memory>
#include <vector>

#include "kernels/op_kernel.h"
#include "loom/graph.h"

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

class NodeKernel {
 public:
  virtual ~NodeKernel() = default;
  virtual std::vector<Tensor> Run(const kernels::KernelContext& ctx, kernels::KernelInputs inputs,
                                  const RunControl& control) const = 0;
  // "registry", or the prepared kernel's kind ("prepared conv", ...): for
  // tests and traces.
  virtual const char* kind() const = 0;
};

// Builds the kernel for `node`; `constants[i]` is input i's value when it is
// an initializer, else null. Throws InvalidArgumentError when preparing
// fails (weights that do not fit the attributes).
std::unique_ptr<NodeKernel> MakeNodeKernel(const Node& node,
                                           const std::vector<const Tensor*>& constants,
                                           kernels::Isa isa);

}  // namespace loom::runtime
