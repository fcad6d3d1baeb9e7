// FuseQdqConv: the convolutions of a QDQ-format model (ONNX Runtime's
// quantize_static writes them) become QLinearConv. Each has the shape
//
//   xq → DequantizeLinear(x_scale, x_zp) ─┐
//   wq → DequantizeLinear(w_scale, w_zp) ─┼→ Conv → QuantizeLinear(y_scale, y_zp) → yq
//   bq → DequantizeLinear(b_scale, b_zp) ─┘ (optional)
//
// and runs as float32 between the two quantized ends: without the fusion
// every weight DQ folds into a float32 constant, the activation DQ and the Q
// run as elementwise passes, and the Conv is a float one. QLinearConv reads
// xq, wq and bq directly and requantizes the exact int32 sums once.
//
// What the fusion needs, per Conv (else that Conv stays as it is):
// - x and y per tensor: one-element float32 scales and int8/uint8 zero
//   points, all constants; x_zp's dtype is xq's (known from a prior
//   InferTypes). y_zp is present: it fixes the output type.
// - wq a constant int8/uint8 tensor of rank >= 3; w_scale a float32
//   constant with one element or one per output channel (1-D [M], the DQ's
//   axis 0); w_zp absent or a constant of wq's dtype and w_scale's shape.
// - A bias, if any, a DQ of a constant int32 [M] with zero (or no) zero
//   points whose b_scale is exactly x_scale * w_scale (float32, per
//   channel): QLinearConv adds bq to the sums at the scale x_scale *
//   w_scale, so any other b_scale would need rescaling, which rounds; ONNX
//   Runtime writes exactly that product.
// - No blocked quantization (block_size 0), DQ outputs of float32, a Q
//   whose output_dtype (if set) is y_zp's and whose precision (if set) is
//   float32, and a Conv with only the attributes QLinearConv shares (not an
//   activation a previous round fused).
// - The Conv's output is read by the Q alone and is not a graph output.
//
// The results may differ from the float path by one quantization step: the
// float path rounds the dequantized products and the bias, QLinearConv
// rounds once (quant.h).
//
// The QLinearConv takes the Conv's name and the Q's output. The DQs stay
// while something else reads them (a residual Add often reads x's);
// otherwise they go here, with the bias scale and zero point they read.
// Matches never overlap: each Conv has its own Q, and the DQs are only read.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"
#include "graph/passes/qdq_match.h"
#include "kernels/onnx_dtype.h"

namespace loom::graph {
namespace {

// The Conv attributes QLinearConv has too (ONNX lists the same six).
const std::set<std::string, std::less<>> kConvAttributes = {"auto_pad",     "dilations", "group",
                                                            "kernel_shape", "pads",      "strides"};

bool IsInt8Type(DType dtype) { return dtype == DType::kInt8 || dtype == DType::kUInt8; }

// Whether every element of the int32 constant is zero.
bool AllZero(const Tensor& t) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (t.data<int32_t>()[i] != 0) return false;
  }
  return true;
}

// The DQ's axis, normalized against an input of rank `rank` (ONNX's
// default is 1).
int64_t QuantAxis(const Node& dq, int64_t rank) {
  const int64_t axis = dq.attributes.get_int("axis", 1);
  return axis < 0 ? axis + rank : axis;
}

// The operands of one QLinearConv, in its input order.
struct QuantizedConv {
  std::string xq, x_scale, x_zp;
  std::string wq, w_scale, w_zp;  // w_zp "" when absent
  std::string y_scale, y_zp;
  std::string bq;  // "" when the Conv has no bias
};

class QdqConvFuser {
 public:
  explicit QdqConvFuser(Graph& graph)
      : graph_(graph), index_(graph), erase_(graph.nodes.size(), false) {}

  bool Run() {
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (graph_.nodes[i].op_type == "Conv") changed = Fuse(i) || changed;
    }
    if (!changed) return false;
    // A DQ no node reads any more goes, and with it the constants only it
    // read (the bias scale and zero point; wq is QLinearConv's now).
    FinishQdqRewrite(graph_, erase_, dequantizers_, {});
    return true;
  }

 private:
  // The index of the DequantizeLinear writing `value` when the fusion can
  // read through it: 2 or 3 inputs, one output, float32 out, not blocked.
  std::optional<size_t> Dequantizer(const std::string& value) const {
    const std::optional<size_t> p = index_.producer(value);
    if (!p) return std::nullopt;
    const Node& dq = graph_.nodes[*p];
    if (dq.op_type != "DequantizeLinear" || dq.inputs.size() < 2 || dq.outputs.size() != 1 ||
        dq.attributes.get_int("block_size", 0) != 0) {
      return std::nullopt;
    }
    const int64_t output_dtype = dq.attributes.get_int("output_dtype", 0);
    if (output_dtype != 0 && kernels::DTypeFromOnnxDataType(output_dtype) != DType::kFloat32) {
      return std::nullopt;
    }
    return p;
  }

  // The DQ's zero point input, "" when absent.
  static const std::string& ZeroPoint(const Node& dq) {
    static const std::string kAbsent;
    return dq.inputs.size() >= 3 ? dq.inputs[2] : kAbsent;
  }

  // The per-tensor activation DQ: fills xq, x_scale and x_zp.
  bool MatchInput(const Node& dq, QuantizedConv& q) const {
    const std::optional<PerTensorQuant> p = MatchPerTensorDequantize(graph_, dq);
    if (!p) return false;
    q.xq = dq.inputs[0];
    q.x_scale = p->scale;
    q.x_zp = p->zero_point;
    return true;
  }

  // The weight DQ (per tensor, or per output channel along axis 0): fills
  // wq, w_scale and w_zp.
  bool MatchWeights(const Node& dq, QuantizedConv& q) const {
    const Tensor* w = FindConstant(graph_, dq.inputs[0]);
    const Tensor* scale = FindConstant(graph_, dq.inputs[1]);
    if (w == nullptr || !IsInt8Type(w->dtype()) || w->shape().rank() < 3 || scale == nullptr ||
        scale->dtype() != DType::kFloat32) {
      return false;
    }
    const int64_t out_channels = w->shape().dim(0);
    const bool per_tensor = scale->num_elements() == 1;
    const bool per_channel = scale->shape().rank() == 1 && scale->num_elements() == out_channels &&
                             QuantAxis(dq, w->shape().rank()) == 0;
    if (!per_tensor && !per_channel) return false;
    if (!ZeroPoint(dq).empty()) {
      const Tensor* zp = FindConstant(graph_, ZeroPoint(dq));
      // One value each is per tensor whatever the shapes ([] vs [1]), as
      // the DequantizeLinear kernel reads it.
      const bool same_shape = zp != nullptr && (zp->shape() == scale->shape() ||
                                                (per_tensor && zp->num_elements() == 1));
      if (!same_shape || zp->dtype() != w->dtype()) return false;
    }
    q.wq = dq.inputs[0];
    q.w_scale = dq.inputs[1];
    q.w_zp = ZeroPoint(dq);
    return true;
  }

  // The bias DQ: an int32 [M] at exactly x_scale * w_scale with no offset.
  bool MatchBias(const Node& dq, QuantizedConv& q) const {
    const Tensor* b = FindConstant(graph_, dq.inputs[0]);
    const Tensor* scale = FindConstant(graph_, dq.inputs[1]);
    const Tensor* w = FindConstant(graph_, q.wq);
    const int64_t out_channels = w->shape().dim(0);
    if (b == nullptr || b->dtype() != DType::kInt32 || b->shape().rank() != 1 ||
        b->num_elements() != out_channels || scale == nullptr ||
        scale->dtype() != DType::kFloat32) {
      return false;
    }
    const bool per_channel = scale->num_elements() != 1;
    if (per_channel && !(scale->shape().rank() == 1 && scale->num_elements() == out_channels &&
                         QuantAxis(dq, 1) == 0)) {
      return false;
    }
    if (!ZeroPoint(dq).empty()) {
      const Tensor* zp = FindConstant(graph_, ZeroPoint(dq));
      if (zp == nullptr || zp->dtype() != DType::kInt32 || !AllZero(*zp)) return false;
    }
    const float x_scale = FindConstant(graph_, q.x_scale)->data<float>()[0];
    const Tensor* w_scale = FindConstant(graph_, q.w_scale);
    for (int64_t m = 0; m < out_channels; ++m) {
      const float ws = w_scale->data<float>()[w_scale->num_elements() == 1 ? 0 : m];
      const float bs = scale->data<float>()[per_channel ? m : 0];
      // Exact: the product of two float32 values rounded once, as ORT's
      // float32 numpy product is.
      if (bs != x_scale * ws) return false;
    }
    q.bq = dq.inputs[0];
    return true;
  }

  // The QuantizeLinear reading the Conv's output: fills y_scale and y_zp.
  bool MatchOutput(const Node& quant, const std::string& y, QuantizedConv& q) const {
    const std::optional<PerTensorQuant> p = MatchPerTensorQuantize(graph_, quant);
    if (!p || quant.inputs[0] != y) return false;
    q.y_scale = p->scale;
    q.y_zp = p->zero_point;
    return true;
  }

  bool Fuse(size_t conv_index) {
    const Node& conv = graph_.nodes[conv_index];
    if (conv.inputs.size() < 2 || conv.inputs.size() > 3 || conv.outputs.size() != 1) {
      return false;
    }
    for (const auto& attribute : conv.attributes) {
      if (kConvAttributes.count(attribute.first) == 0) return false;
    }
    const std::string& y = conv.outputs[0];
    if (!index_.has_single_private_use(y)) return false;
    const size_t quant_index = index_.consumers(y)[0];
    QuantizedConv q;
    if (!MatchOutput(graph_.nodes[quant_index], y, q)) return false;

    const std::optional<size_t> x_dq = Dequantizer(conv.inputs[0]);
    const std::optional<size_t> w_dq = Dequantizer(conv.inputs[1]);
    if (!x_dq || !w_dq || !MatchInput(graph_.nodes[*x_dq], q) ||
        !MatchWeights(graph_.nodes[*w_dq], q)) {
      return false;
    }
    std::optional<size_t> b_dq;
    if (conv.inputs.size() == 3 && !conv.inputs[2].empty()) {
      b_dq = Dequantizer(conv.inputs[2]);
      if (!b_dq || !MatchBias(graph_.nodes[*b_dq], q)) return false;
    }

    Node& fused = graph_.nodes[conv_index];
    fused.op_type = "QLinearConv";
    fused.inputs = {q.xq, q.x_scale, q.x_zp, q.wq, q.w_scale, q.w_zp, q.y_scale, q.y_zp};
    if (!q.bq.empty()) fused.inputs.push_back(q.bq);
    fused.outputs = graph_.nodes[quant_index].outputs;
    erase_[quant_index] = true;
    dequantizers_.insert(*x_dq);
    dequantizers_.insert(*w_dq);
    if (b_dq) dequantizers_.insert(*b_dq);
    return true;
  }

  Graph& graph_;
  const GraphIndex index_;
  std::vector<bool> erase_;
  // The DQs fused Convs read, erased at the end when nothing else does.
  std::set<size_t> dequantizers_;
};

}  // namespace

bool FuseQdqConv(Graph& graph) { return QdqConvFuser(graph).Run(); }

}  // namespace loom::graph
