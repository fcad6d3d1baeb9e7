// Elementwise operators (ONNX semantics, latest opset), all with the shared
// calling convention of op_kernel.h:
//
//   std::vector<Tensor> AddKernel(const KernelContext& ctx, const Attributes& attrs,
//                                 KernelInputs inputs);
//
// Broadcasting: binary ops, the variadic Max/Min/Sum/Mean and Where use
// NumPy / ONNX multidirectional broadcasting (loom::broadcast_shapes).
//
// Dtypes (an input of any other dtype is an InvalidArgumentError naming the
// input, the allowed dtypes and the actual one; inputs that must agree but
// do not name both dtypes). "Numeric" is float32, float64, float16,
// bfloat16 and the signed and unsigned integers of 8, 16, 32 and 64 bits;
// each op takes what ONNX's type constraints allow:
//   - Add Sub Mul Div Mod Max Min, comparisons: every numeric dtype (Equal
//     also bool). Integer Add, Sub, Mul wrap around (modulo 2^bits); integer
//     Div truncates toward zero like C++ and division by zero is an
//     InvalidArgumentError (never SIGFPE); INT_MIN / -1 wraps to INT_MIN.
//     Unsigned types compare and divide as unsigned (uint64 2^63 > 1).
//   - Sum: the float dtypes (ONNX), plus int8, uint8, int32, int64 (a Loom
//     extension kept from before the 16-bit and unsigned wide types). Mean:
//     the float dtypes only.
//   - Pow: base float32/float64/float16/bfloat16/int32/int64; the exponent
//     may be any numeric dtype and is converted to the base's dtype (ONNX T,
//     T1).
//   - Mod: fmod=0 (default) is the integer remainder with the sign of the
//     divisor (Python %); fmod=1 is C fmod. Float inputs require fmod=1.
//   - Equal Less Greater LessOrEqual GreaterOrEqual produce bool.
//   - And Or Xor Not: bool only. Where: condition bool, X and Y any equal
//     dtype.
//   - Abs Sign Clip: every numeric dtype. Neg: the signed ones (float and
//     int8/16/32/64). Relu: the float dtypes and int8/16/32/64, plus uint8
//     (a Loom extension). Integer Neg/Abs of INT_MIN wrap to INT_MIN.
//   - Sqrt Reciprocal Exp Log Erf LeakyRelu Sigmoid Tanh HardSigmoid
//     HardSwish Gelu Silu Floor Ceil: float32, float64, float16, bfloat16.
//   - float16 and bfloat16 are computed by converting through float32 and
//     rounding each result back once (to nearest even; the float32 result is
//     correctly rounded for + - * /, so the final value is float32's rounded
//     again).
//
// Attributes: LeakyRelu alpha=0.01; HardSigmoid alpha=0.2, beta=0.5; Gelu
// approximate="none"|"tanh"; Mod fmod=0|1; Clip min/max as optional inputs
// 1 and 2 (opset >= 11) or float attributes (opset 6); an input wins over an
// attribute, and an absent bound means no bound.
//
// Speed: float32 is the fast path. Broadcasting collapses the shapes to
// runs (same shape, scalar, row broadcast, strided outer loop with a
// contiguous or stride-0 innermost run), so there is no index math per
// element. Exp, Log, Erf, Sigmoid, Tanh, Gelu and Silu use polynomial
// approximations on the AVX2+FMA path (see activation.h for their errors);
// the portable path calls std:: functions.
//
// Determinism: every kernel here is bit-exact across thread counts (each
// output element is computed by the same code whatever the sharding).
// Results may differ between ISA levels only for the polynomial
// transcendentals.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

// Binary arithmetic (inputs A, B).
std::vector<Tensor> AddKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> SubKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> MulKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> DivKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> PowKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);  // inputs X, Y
std::vector<Tensor> ModKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);

// Variadic (inputs data_0 ... data_{N-1}, N >= 1).
std::vector<Tensor> MaxKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> MinKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> SumKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> MeanKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// Comparisons and logic (inputs A, B; output bool).
std::vector<Tensor> EqualKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
std::vector<Tensor> LessKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> GreaterKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
std::vector<Tensor> LessOrEqualKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
std::vector<Tensor> GreaterOrEqualKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs);
std::vector<Tensor> AndKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> OrKernel(const KernelContext& ctx, const Attributes& attrs,
                             KernelInputs inputs);
std::vector<Tensor> XorKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> NotKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);  // input X
std::vector<Tensor> WhereKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);  // inputs condition, X, Y

// Unary (input X, output Y of the same shape and dtype).
std::vector<Tensor> NegKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> AbsKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> SqrtKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> ReciprocalKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> ExpKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> LogKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> ErfKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> FloorKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
std::vector<Tensor> CeilKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> SignKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> ReluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> LeakyReluKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
// LoomDropout(data, ratio?, training_mode?) -> {output, mask}: the
// importer's form of an ONNX Dropout whose training_mode and ratio are both
// run-time inputs. The identity with an all-true bool mask, unless
// training_mode is true and the ratio is not 0, which is refused ("is not
// supported": training drops random elements) (elementwise_dropout.cc).
std::vector<Tensor> LoomDropoutKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
// PRelu(X, slope): x < 0 ? slope * x : x, slope broadcast to X's shape
// (unidirectional); the float dtypes, int32, int64, uint32, uint64
// (elementwise_prelu.cc).
std::vector<Tensor> PReluKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
std::vector<Tensor> ClipKernel(
    const KernelContext& ctx, const Attributes& attrs,
    KernelInputs inputs);  // inputs input, min (optional), max (optional)
std::vector<Tensor> SigmoidKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
std::vector<Tensor> TanhKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> HardSigmoidKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
std::vector<Tensor> HardSwishKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> GeluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> SiluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);  // x * sigmoid(x); not an ONNX op

}  // namespace loom::kernels
