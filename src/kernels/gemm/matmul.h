// Matrix products as ONNX operators, on top of f32_gemm (gemm.h):
//
// MatMul (NumPy matmul): A [..., M, K] x B [..., K, N] -> [..., M, N], the
// batch dimensions broadcast; a 1-D A is a row [1, K] and a 1-D B a column
// [K, 1], whose unit dimension is dropped from the result. float32 runs the
// packed GEMM; float64, int32, uint32, int64 and uint64 a plain loop (integer
// arithmetic wraps modulo 2^bits).
// When B has no batch dimensions, A's batch is folded into M: one large
// GEMM instead of many small ones.
//
// Gemm: Y = alpha * op(A) * op(B) + beta * C, A and B 2-D (transA, transB),
// C optional and broadcast to [M, N] ([], [N], [1, N], [M, 1], [M, N]),
// float32, then the fused activation (fused_activation.h).
//
// FusedMatMul (Loom-internal, written by the graph optimizer): MatMul(A, B)
// with B float32 2-D, then + bias (optional input 2, [N]) and the fused
// activation (fused_activation.h attributes), both applied to each finished
// tile while it is in cache. It replaces MatMul → Add(bias) → activation.
//
// Prepare stage: PreparedMatMul holds a constant B (MatMul's B, or Gemm's B
// with transB) packed for the ISA; the graph builds one when B is a
// constant initializer.
//
// Determinism: bit-exact across thread counts (as f32_gemm is).
// Errors: InvalidArgumentError "MatMul: ..." / "Gemm: ..." naming the
// inputs and shapes for mismatched inner dimensions, unbroadcastable batch
// dimensions or C, wrong ranks or dtypes.
// Thread safety: PreparedMatMul is immutable; Run may be called concurrently.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "kernels/elementwise/activation.h"
#include "kernels/gemm/gemm.h"
#include "kernels/op_kernel.h"
#include "loom/tensor.h"

namespace loom::kernels {

std::vector<Tensor> MatMulKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
std::vector<Tensor> FusedMatMulKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
std::vector<Tensor> GemmKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// The registry's prepare stages: a PreparedMatMul when B is a constant 2-D
// float32 matrix (MatMul: exactly two inputs; Gemm: C optional); else null.
std::unique_ptr<PreparedKernel> PrepareMatMul(const PrepareArgs& args);
std::unique_ptr<PreparedKernel> PrepareGemm(const PrepareArgs& args);
std::unique_ptr<PreparedKernel> PrepareFusedMatMul(const PrepareArgs& args);

// The plain loops (double accumulation for float32), the test oracles.
Tensor MatMulReference(const Tensor& a, const Tensor& b);
Tensor GemmReference(const Attributes& attrs, const Tensor& a, const Tensor& b, const Tensor* c);

class PreparedMatMul {
 public:
  // `op` is "MatMul", "FusedMatMul" or "Gemm" (attrs: transA, transB, alpha, beta, fused
  // activation); B must be float32 and 2-D (MatMul's 1-D B is allowed).
  PreparedMatMul(std::string_view op, const Attributes& attrs, const Tensor& b, Isa isa);

  // MatMul: run(a); FusedMatMul: run(a, bias); Gemm: run(a, c).
  Tensor Run(const KernelContext& ctx, const Tensor& a, const Tensor* c = nullptr) const;

 private:
  std::string op_;
  Attributes attrs_;
  Tensor b_;
  Isa isa_;
  std::optional<PackedGemmMatrix> packed_b_;
};

}  // namespace loom::kernels
