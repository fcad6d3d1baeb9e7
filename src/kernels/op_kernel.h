// The calling convention every operator kernel shares, so the registry
// (registry.h), the graph executor and the eager API can call any of them:
//
//   std::vector<Tensor> Relu(const KernelContext& ctx, const Attributes& attrs,
//                            KernelInputs inputs);
//
// - ctx.pool is the intra-op pool; a kernel parallelizes only through
//   threading::ParallelFor on it (null = run everything on the caller).
//   Kernels never create threads and never read globals.
// - ctx.isa is the highest instruction set the kernel may use; the caller
//   has checked the CPU supports it. Tests force each level in turn.
// - inputs are in ONNX order; an absent optional input is a null pointer.
// - The kernel allocates and returns its outputs (ONNX order).
//
// Errors: wrong input counts, dtypes, shapes or attributes throw
// loom::InvalidArgumentError whose message starts with the op name and names
// the input and expected vs. actual, e.g.
//   "Conv: input 'W' must have rank 4 (got shape [3, 3])".
// The helpers below produce messages in that form.
//
// Thread safety: kernels are stateless functions; concurrent calls with
// distinct outputs are safe.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/isa.h"
#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::kernels {

struct KernelContext {
  threading::ThreadPool* pool = nullptr;
  Isa isa = Isa::kPortable;
  // How many outputs the node declares (the executor sets it), -1 when the
  // caller wants them all. A kernel may skip work for outputs past this
  // count (MaxPool's Indices) and return only these.
  int num_outputs = -1;
};

using KernelInputs = std::span<const Tensor* const>;

using KernelFn = std::vector<Tensor> (*)(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs);

// The prepare stage: a kernel bound once to a node's constant inputs
// (weights packed, attributes resolved). Run takes every input in ONNX order,
// the constants included (it ignores the ones it baked in).
// Thread safety: Run is const and may be called concurrently.
class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  virtual std::vector<Tensor> Run(const KernelContext& ctx, KernelInputs inputs) const = 0;
  // "prepared conv", "prepared nchwc conv", "prepared matmul": for tests and traces.
  virtual const char* kind() const = 0;
};

// What a family's prepare stage sees of a node: its attributes, for each
// input slot the constant value (null when the input is absent or computed
// at run time) and whether the slot is given at all, and the ISA the runs
// will use.
struct PrepareArgs {
  const Attributes& attrs;
  std::span<const Tensor* const> constants;
  std::span<const bool> present;
  Isa isa;

  const Tensor* constant(size_t i) const { return i < constants.size() ? constants[i] : nullptr; }
  bool is_present(size_t i) const { return i < present.size() && present[i]; }
  size_t num_inputs() const { return present.size(); }
  // Whether inputs 1 (weights) and 2 (bias, if given) are float32
  // constants and the node has at most `max_inputs` inputs: what the
  // convolutions need to pack their weights.
  bool HasConstantFloatWeights(size_t max_inputs) const;
};

// Returns the prepared kernel, or null when these inputs leave nothing to
// prepare (the plain KernelFn then runs). Throws InvalidArgumentError when
// the constants do not fit the attributes.
using PrepareFn = std::unique_ptr<PreparedKernel> (*)(const PrepareArgs& args);

// Throws InvalidArgumentError("<op>: <detail>").
[[noreturn]] void ThrowKernelError(std::string_view op, const std::string& detail);

// Checks min_count <= inputs.size() <= max_count.
void CheckInputCount(std::string_view op, KernelInputs inputs, size_t min_count, size_t max_count);

// A tensor seen as [outer, n, inner] around `axis` (normalized): the product
// of the dims before it, its length, the product of the dims after it.
struct AxisExtents {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisExtents ExtentsAroundAxis(const Shape& shape, int axis);

// inputs[index], which must be present; `name` is the ONNX input name ("X").
const Tensor& RequiredInput(std::string_view op, KernelInputs inputs, size_t index,
                            std::string_view name);

// inputs[index], or null when absent or beyond the end.
const Tensor* OptionalInput(KernelInputs inputs, size_t index);

// Checks the tensor's dtype is one of `allowed`.
void CheckDType(std::string_view op, std::string_view name, const Tensor& tensor,
                std::initializer_list<DType> allowed);

// Checks the tensor's rank is `rank`.
void CheckRank(std::string_view op, std::string_view name, const Tensor& tensor, int rank);

// Resolves a possibly negative axis against `rank` (-1 = last); throws when
// outside [-rank, rank).
int NormalizeAxis(std::string_view op, int64_t axis, int rank);

// Calls a kernel with tensors held by value (tests and the eager API).
std::vector<Tensor> CallKernel(KernelFn fn, const KernelContext& ctx, const Attributes& attrs,
                               std::initializer_list<const Tensor*> inputs);

}  // namespace loom::kernels
