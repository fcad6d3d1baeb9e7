// The kernel registry: one explicit table of every operator Loom runs, with
// the dtypes its type-determining input may have, the ISA variants it has
// inside, the function (op_kernel.h calling convention) and, for ops whose
// constant inputs are worth binding once (weights to pack), the prepare
// stage the session runs per node. The graph
// verifier, the ONNX importer's "unsupported ops" list, the eager API and
// `loom kernels` all read this table; nothing registers itself.
//
// ISA choice happens inside each family, from a small table of the same kind
// through one helper (isa_variant.h): the registry says which levels have
// code, the context's isa says which may run, and registry_test checks the
// column against the families' tables.
//
// Thread safety: the table is immutable; lookups may run concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/isa_variant.h"
#include "kernels/op_kernel.h"

namespace loom::kernels {

using DTypeMask = uint16_t;
static_assert(kNumDTypes <= 16, "DTypeMask has one bit per dtype");
constexpr DTypeMask DTypeBit(DType dtype) {
  return static_cast<DTypeMask>(1u << static_cast<int>(dtype));
}

struct KernelRegistration {
  std::string_view op;  // ONNX op type ("Conv"); Loom-only ops say so in their header
  DTypeMask dtypes;     // accepted dtypes of the input that fixes T
  IsaMask isas;         // ISA levels with their own code path
  KernelFn fn;
  PrepareFn prepare = nullptr;  // the prepare stage, for ops with one (op_kernel.h)
};

// Whether `op` is one of Loom's internal ops (the blocked layout's
// "Nchwc*", kernels/nchwc/nchwc.h; "Loom*" such as LoomAttention,
// kernels/attention/attention.h; FusedMatMul, kernels/gemm/matmul.h): written
// by the graph optimizer only, so the ONNX importer refuses them in a model
// file.
bool IsInternalOp(std::string_view op);

// Every registration, sorted by op name.
std::span<const KernelRegistration> KernelRegistry();

// The registration of `op`, or null.
const KernelRegistration* FindKernel(std::string_view op);

// The kernel for `op` on inputs whose type-determining dtype is `dtype`.
// Throws InvalidArgumentError naming the op and the dtypes it supports.
KernelFn LookupKernel(std::string_view op, DType dtype);

// Calls kernel.fn; an InvalidArgumentError whose message does not start
// with "<op>:" (one from Attributes or Shape) is rethrown with that prefix.
std::vector<Tensor> RunKernel(const KernelRegistration& kernel, const KernelContext& ctx,
                              const Attributes& attrs, KernelInputs inputs);

// "float32, int64" for a mask.
std::string DTypeMaskToString(DTypeMask mask);

}  // namespace loom::kernels
