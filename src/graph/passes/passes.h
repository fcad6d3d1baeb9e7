// Graph passes: each rewrites a Graph in place and returns whether it changed
// anything. One pass per file, each with a test comparing Graph::to_string()
// before and after and running both graphs (passes/testing/graph_eval.h) on
// random inputs.
//
// Passes keep the graph valid (verify_graph passes after each) and keep every
// graph input and output name. They never run kernels themselves: constant
// folding receives an evaluator from the runtime layer (layering:
// graph must not run kernels). A pass reads a value as constant only when it
// is an initializer that is not also a graph input (such an initializer is
// a default the caller may override). Rewrites that would need a shape the
// graph does not tell are skipped, never guessed. Stale value_types entries
// of removed values are dropped; new ones wait for InferTypes.
//
// Layout: ONNX models are NCHW; UseBlockedLayout moves convolution chains to
// the channel-blocked layout (kernels/nchwc/nchwc.h) with reorders at the
// edges only. It runs last, once, because the other passes match plain ops.
//
// Errors: FoldConstants rethrows a kernel error as InvalidArgumentError
// naming the node; the other passes throw nothing on a valid graph (a
// pattern that does not fit is simply not rewritten).
#pragma once

#include <functional>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

// Evaluates `node` on constant inputs (null = an absent optional input) and
// returns its outputs. Provided by the runtime (it runs the node's kernel).
using NodeEvaluator =
    std::function<std::vector<Tensor>(const Node& node, const std::vector<const Tensor*>& inputs)>;

// Replaces every node whose inputs are all constants (Constant nodes
// included) by initializers holding its outputs, computed by `evaluate`;
// chains fold in one call. Graph outputs stay produced by a node: the value
// goes into a fresh initializer "<output>_folded" read by an Identity that
// takes the folded node's name, so fetch names are unchanged. A node is left
// alone when its outputs would exceed max(16 MiB, 2 x its inputs' bytes)
// (ConstantOfShape, Expand, Tile, Range and Pad are sized before running).
// Initializers only the folded nodes read are removed. Throws
// InvalidArgumentError when `evaluate` is empty or fails on a node.
bool FoldConstants(Graph& graph, const NodeEvaluator& evaluate);

// Shape and Size nodes whose input shape type inference knows in full (every
// dimension a number, graph.value_types filled) become Constant nodes with
// the same name and output, for FoldConstants to fold along with the shape
// arithmetic that reads them. Returns whether any node changed.
bool FoldStaticShapes(Graph& graph);

// Bypasses Identity nodes whose output is not a graph output (consumers read
// the Identity's input), then removes nodes none of whose outputs reach a
// graph output, and initializers no remaining node uses (graph inputs, and
// initializers backing them, always stay).
bool EliminateDeadNodes(Graph& graph);

// Conv (or Gemm with a constant B) followed by an inference BatchNormalization
// (one output, training_mode 0) whose parameters are float32 constants:
// scales the weights and bias (fresh initializers "<W>_bn" and "<B>_bn", or
// "<node>_bias_bn" when it had none) so the BatchNormalization disappears. The Conv/Gemm keeps its
// name and takes the BatchNormalization's output name. Only when the conv output has no other
// consumer, is not a graph output, the Conv/Gemm has no fused activation
// and its bias (Gemm: C, with beta folded in) is absent or constant.
bool FoldBatchNormalization(Graph& graph);

// Conv/Gemm (+ Add of a constant per-channel bias when it has no bias yet)
// (+ an activation: Relu, LeakyRelu, Clip with constant bounds, Sigmoid,
// Tanh, HardSigmoid, HardSwish, Silu (Mul(x, Sigmoid(x)) too), Gelu) → one
// Conv/Gemm node with a bias input and the "activation"/"activation_params"
// attributes (kernels/fused_activation.h). Per-channel means varying along
// the channel axis only: Conv [1, M, 1, 1] or [M, 1, 1] (not [M], which
// broadcasts along the last axis); Gemm [N] or [1, N]. A MatMul whose B is
// a constant float32 matrix fuses the same way (bias varying along the
// last axis: [N], [1, N], [1, 1, N]; A's rank must be known) into the
// internal FusedMatMul (kernels/gemm/matmul.h). Only when each intermediate has
// one consumer and is not a graph output.
bool FuseBiasAndActivation(Graph& graph);

// Pow(x, c) with a constant one-element exponent c of 2, 0.5 or 1 (rank 0,
// or no higher than x's) and float32 x becomes Mul(x, x), Sqrt(x) or
// Identity(x); the node keeps its name and output. Needs x's dtype: an
// initializer's, a graph input's or one a prior InferTypes found; a Pow whose
// base type is unknown stays. Exponents no node reads any more are removed.
bool SimplifyPow(Graph& graph);

// ReduceMean over axes {2, 3} (or {-2, -1}; attribute or constant input) of
// a float32 value of known rank 4 becomes GlobalAveragePool, which the NCHWc
// layout keeps blocked; with keepdims 0 a Flatten(axis 1) after it writes
// the original output. Other ReduceMeans stay.
bool PoolSpatialMeans(Graph& graph);

// The layer norm PyTorch exports before opset 17: ReduceMean(x) → Sub(x,
// mean) → Pow(d, 2) or Mul(d, d) → ReduceMean → Add(eps) → Sqrt → Div(d, std)
// (or Mul(d, Reciprocal(std))) → optional Mul(scale) → optional Add(bias)
// becomes one LayerNormalization(x, scale, bias) {axis=-1, epsilon} with one
// output. Both ReduceMeans reduce the last axis only (axes [-1] or [rank-1],
// as attribute or constant input) with keepdims 1; eps is a one-element
// float32 constant; Mul/Add operands in either order. Scale and bias are
// absorbed when they are float32 constants varying along the last axis only
// ([C], [1, C], a scalar: expanded into a fresh "<node>_scale"/"<node>_bias"
// [C] unless already [C]); otherwise the Mul/Add stays after the fused node,
// and a missing scale becomes ones. Only when every intermediate is read
// only by the next step of the pattern and is not a graph output, x is
// float32 and its rank and last dim C are known (needs a prior InferTypes
// for values nodes produce). The fused node takes the last matched node's
// name and output.
bool FuseLayerNormalization(Graph& graph);

// x * 0.5 * (1 + Erf(x / sqrt(2))) (or Erf(x * 1/sqrt(2))) → Gelu(x)
// {approximate="none"}; x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 *
// x^3))), x^3 as Mul(x, Mul(x, x)) in any grouping or Pow(x, 3) → Gelu(x)
// {approximate="tanh"}. Products match in any grouping and operand order;
// constants are one-element float32 initializers within 1e-4 (relative) of
// the exact value. Only when every intermediate is read only by the next step
// and is not a graph output (x may have other readers). The Gelu takes the
// outer Mul's name and output.
bool FuseGelu(Graph& graph);

// Scaled-dot-product attention, MatMul(Q, Kᵀ) → Div/Mul(constant scale)? →
// Add(float mask) or Where(bool mask, ·, constant fill)? → Softmax(last
// axis) → MatMul(·, V), becomes one LoomAttention
// (kernels/attention/attention.h) reading Q, K and V from before the
// exporters' Transposes ([B, S, H, D] "bshd" layouts; Kᵀ must come from a
// Transpose, perm [0, 2, 3, 1] or [0, 1, 3, 2] of [0, 2, 1, 3] or of a
// [B, H, S, D] K); transposes only the pattern read are removed. Only when
// Q, K, V are float32 rank 4 with known, matching shapes (needs a prior
// InferTypes), the mask's known shape broadcasts to the scores without
// growing them, and each intermediate has the next step as its only reader
// and is not a graph output. A constant causal mask becomes the kernel's
// causal attribute. The fused node takes the last MatMul's name and output
// (attention_fusion.cc has the details).
bool FuseAttention(Graph& graph);

// The convolutions of a QDQ model (ONNX Runtime's QDQ format):
// DequantizeLinear of xq, of constant int8/uint8 weights wq and (optional)
// of a constant int32 bias bq → Conv → QuantizeLinear → yq becomes one
// QLinearConv(xq, x_scale, x_zp, wq, w_scale, w_zp, y_scale, y_zp, bq?)
// with the Conv's attributes and name, writing yq. Only when x and y are
// quantized per tensor (one-element constant float32 scales and int8/uint8
// zero points, x_zp of xq's known dtype, y_zp present), the weights per
// tensor or per output channel (axis 0), the bias's scale is exactly
// x_scale * w_scale (float32) with zero offsets, no DQ/Q is blocked, and
// the Conv's output is read by the QuantizeLinear alone and is not a graph
// output (qdq_conv_fusion.cc lists the details). DQs nothing else reads are
// removed; the others stay. Must run before FoldConstants, which folds the
// weights' DQ into a float constant.
bool FuseQdqConv(Graph& graph);

// The Q/DQ pairs a QDQ model puts around operators that only select input
// elements: xq → DequantizeLinear(s, z) → op → QuantizeLinear(s, z) → yq
// becomes op(xq) → yq for op MaxPool (one output, no Indices), Reshape,
// Flatten, Transpose, Squeeze or Unsqueeze, which then runs on int8/uint8.
// Exact (qdq_elision.cc says why): only when both sides are per tensor
// with bit-identical one-element constant parameters (a float32 scale that
// is positive, normal and at most FLT_MAX / 256; int8/uint8 zero points of
// xq's known dtype), the op's other inputs do not read the DQ, and the op's
// output is read by the Q alone and is not a graph output. The op keeps its
// name and takes the Q's output; a DQ nothing else reads is removed.
bool DropQdqAroundSelection(Graph& graph);

// The residual Adds of a QDQ model: DequantizeLinear(aq, sa, za) and
// DequantizeLinear(bq, sb, zb) → Add → optional Relu → QuantizeLinear(sy,
// zy) → yq becomes one LoomQLinearAdd(aq, sa, za, bq, sb, zb, sy, zy)
// (kernels/quant/quant.h; relu = 1 when the Relu was there) named after
// the Add, writing yq, with the same bits as the float path. Only when all
// three are per tensor (one-element constant float32 scales and int8/uint8
// zero points, aq's and bq's of their known dtypes), aq and bq have equal
// known shapes (same number or same symbol per dimension: the op does not
// broadcast), and the Add's (and Relu's) output is read by the next step
// alone and is not a graph output. DQs nothing else reads are removed.
bool FuseQdqAdd(Graph& graph);

// Converts runs of 2-D Conv / pooling / elementwise / channel Concat nodes to
// the NCHWc ops of kernels/nchwc/nchwc.h with blocks of `block` (8 or 16)
// channels; NchwcReorderInput/NchwcReorderOutput nodes convert at the edges,
// and every value an unconverted node or a graph output reads keeps its name
// (nchwc_layout.cc lists the conditions). Needs the value types of a prior
// InferTypes; a node whose shapes are unknown stays NCHW. Throws
// InvalidArgumentError for another block size.
// winograd = false marks every NchwcConv `winograd = 0` (direct kernel only,
// to compare; by default the kernel picks Winograd F(4x4, 3x3) where it wins).
bool UseBlockedLayout(Graph& graph, int block, bool winograd = true);

struct OptimizationOptions {
  // 0: none; 1: constant folding and dead-node elimination; 2: 1 plus the
  // fusions (the default).
  int level = 2;
  NodeEvaluator evaluate;  // required for level >= 1
  // At level 2: the channel block of the blocked layout (8 or 16, from the
  // ISA: kernels::NchwcBlockSize), or 0 to keep every node NCHW.
  int nchwc_block = 0;
  // With the blocked layout: whether NchwcConv may use Winograd F(4x4, 3x3)
  // for 3x3 stride-1 convolutions (UseBlockedLayout).
  bool winograd = true;
};

// Level >= 1 verifies the graph, then repeats dead-node elimination, static
// shape folding (after type inference), (level 2) QDQ convolution fusion,
// QDQ elision around selecting ops and QDQ Add fusion, constant folding and (level 2) Pow
// simplification, layer-norm, GELU and attention fusion, batch-norm folding and bias/activation
// fusion until none changes anything, then (level 2, nchwc_block set) chooses the blocked layout;
// every level ends with type inference. Throws InvalidArgumentError for a level outside 0..2, a
// missing evaluator at level >= 1, or an invalid graph.
// Control flow's subgraphs are optimized the same way (OptimizeSubgraphs).
void OptimizeGraph(Graph& graph, const OptimizationOptions& options);

// OptimizeGraph on each subgraph of each control-flow node, after typing
// them for their node's inputs (InferTypes). Captured constants (outer
// initializers that are not graph inputs) become initializers of the
// subgraphs first, so their kernels prepare for them once.
void OptimizeSubgraphs(Graph& graph, const OptimizationOptions& options);

}  // namespace loom::graph
