// Scalar-math unary ops: the trigonometric and hyperbolic functions, the
// smooth activations ONNX defines as their own ops (Softplus, Softsign, Elu,
// Selu, Celu, Mish, ThresholdedRelu, Shrink), Round, IsNaN and IsInf.
//
// Each is one std:: formula per element, evaluated in the element type
// (float16 through float32), in parallel over the elements through
// ParallelElements: the serial loop `for i: y[i] = f(x[i])`; with one thread
// or a small tensor it is that loop. Results do not depend on the thread
// count. None is in a hot path of the models Loom is tuned for, so there
// are no vector variants yet; a model that makes one hot gets one in the
// ISA table.
//
// Calling convention and errors as in elementwise.h.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> SinKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> CosKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> TanKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> AsinKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> AcosKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> AtanKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> SinhKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> CoshKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> AsinhKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
std::vector<Tensor> AcoshKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
std::vector<Tensor> AtanhKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
// log(1 + exp(x)), without overflow for large x.
std::vector<Tensor> SoftplusKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
// x / (1 + |x|).
std::vector<Tensor> SoftsignKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
// x < 0 ? alpha * (exp(x) - 1) : x; alpha defaults to 1.
std::vector<Tensor> EluKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
// gamma * (x <= 0 ? alpha * exp(x) - alpha : x), ONNX's default alpha/gamma.
std::vector<Tensor> SeluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); float32 only (ONNX).
std::vector<Tensor> CeluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
// x * tanh(softplus(x)).
std::vector<Tensor> MishKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
// x > alpha ? x : 0; alpha defaults to 1.
std::vector<Tensor> ThresholdedReluKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);
// x < -lambd ? x + bias : (x > lambd ? x - bias : 0), any numeric type
// (integers compute in double and convert back, as ONNX's reference does).
std::vector<Tensor> ShrinkKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
// Round half to even (numpy.round).
std::vector<Tensor> RoundKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
// Bool outputs: x is NaN; x is +inf (detect_positive, default 1) or -inf
// (detect_negative, default 1).
std::vector<Tensor> IsNaNKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
std::vector<Tensor> IsInfKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);

}  // namespace loom::kernels
