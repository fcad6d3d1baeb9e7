// Eager operators: run one kernel now, on the global runtime's intra-op
// pool, and return the result.
//
//   loom::Tensor y = loom::ops::relu(loom::ops::matmul(x, w));
//
// The first eager op starts the runtime, which freezes the threading
// configuration from then on (as TensorFlow's eager ops do); an invalid
// LOOM_*/TF_* environment variable makes that first call throw. Every op
// runs with the best instruction set this CPU supports, capped by
// LOOM_MAX_ISA (portable | avx2_fma | avx512f).
//
// Semantics are those of the ONNX operator of the same name (latest opset);
// image tensors are NCHW. Wrong shapes, dtypes or attributes throw
// loom::InvalidArgumentError whose message starts with the ONNX op name and
// names the input and expected vs. actual ("Conv: input 'X' has 5 channels
// ... expects 3").
//
// Thread safety: every function may be called from many threads at once;
// each call parallelizes over the shared intra-op pool.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::ops {

// ---- Any registered operator by its ONNX name ----

using AttributeValue = loom::AttributeValue;
using Attributes = loom::Attributes;

// Runs ONNX op `op` on `inputs` (a default-constructed Tensor is NOT an
// absent input; use run_optional for ops with optional inputs in the middle).
std::vector<Tensor> run(std::string_view op, const std::vector<Tensor>& inputs,
                        const Attributes& attributes = {});
// Inputs as pointers; null = an absent optional input.
std::vector<Tensor> run_optional(std::string_view op, const std::vector<const Tensor*>& inputs,
                                 const Attributes& attributes = {});

// Every op `run` accepts, sorted.
std::vector<std::string> supported_ops();
// The instruction set eager ops use ("avx2_fma", ...). Starts the runtime.
std::string kernel_isa();

// ---- Linear algebra ----

Tensor matmul(const Tensor& a, const Tensor& b);

struct GemmOptions {
  bool transpose_a = false;
  bool transpose_b = false;
  float alpha = 1.0f;
  float beta = 1.0f;
};
// alpha * op(a) * op(b) + beta * c (c broadcast; null = none).
Tensor gemm(const Tensor& a, const Tensor& b, const Tensor* c = nullptr,
            const GemmOptions& options = {});

// ---- Convolution and pooling (NCHW) ----

struct ConvOptions {
  std::vector<int64_t> strides;    // empty = all 1
  std::vector<int64_t> pads;       // [begin..., end...]; empty = all 0
  std::vector<int64_t> dilations;  // empty = all 1
  int64_t group = 1;
  std::string auto_pad = "NOTSET";  // or SAME_UPPER, SAME_LOWER, VALID
};
// x [N, C, H, W], w [M, C/group, kH, kW], bias [M] or null.
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias = nullptr,
              const ConvOptions& options = {});

struct PoolOptions {
  std::vector<int64_t> kernel_shape;  // required
  std::vector<int64_t> strides;       // empty = all 1
  std::vector<int64_t> pads;          // empty = all 0
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;
  bool count_include_pad = false;  // average_pool only
};
Tensor max_pool(const Tensor& x, const PoolOptions& options);
Tensor average_pool(const Tensor& x, const PoolOptions& options);
Tensor global_average_pool(const Tensor& x);
Tensor global_max_pool(const Tensor& x);

// ---- Elementwise (binary ops broadcast like NumPy) ----

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor relu(const Tensor& x);
Tensor leaky_relu(const Tensor& x, float alpha = 0.01f);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor gelu(const Tensor& x);
Tensor silu(const Tensor& x);
Tensor clip(const Tensor& x, float min, float max);

// ---- Reductions (axes empty = all axes) ----

Tensor reduce_sum(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_mean(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_max(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_min(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor argmax(const Tensor& x, int64_t axis = 0, bool keepdims = true);

// ---- Normalization ----

Tensor softmax(const Tensor& x, int64_t axis = -1);
Tensor log_softmax(const Tensor& x, int64_t axis = -1);
Tensor layer_norm(const Tensor& x, const Tensor& scale, const Tensor* bias = nullptr,
                  int64_t axis = -1, float epsilon = 1e-5f);
Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                  const Tensor& variance, float epsilon = 1e-5f);

// ---- Shape and data movement ----

Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape);
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm = {});
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis);
Tensor flatten(const Tensor& x, int64_t axis = 1);
Tensor cast(const Tensor& x, DType dtype);

}  // namespace loom::ops
