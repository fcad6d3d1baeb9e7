// UseBlockedLayout: moves runs of 2-D convolutions, pools and the
// elementwise ops between them to the channel-blocked layout
// (kernels/nchwc/nchwc.h), with reorders only where a plain NCHW value is
// needed.
//
// One sweep in topological order keeps a map from each original NCHW value
// to the blocked value that now carries it. A node is converted when:
//   Conv           2-D, float32, constant weights (and bias), a known channel
//                  count and groups NchwcConvSupports; its input is the
//                  blocked value when there is one, the plain input for a
//                  first layer with fewer channels than a block, else a
//                  fresh NchwcReorderInput (one per value). A private
//                  residual Add of another blocked value of the same shape
//                  becomes its Sum input, and a Relu after that Add its
//                  activation (Conv + Add + Relu in one kernel).
//   MaxPool (one output), AveragePool, GlobalAveragePool, GlobalMaxPool
//                  on a blocked input;
//   unary activations on a blocked input;
//   Add, Sub, Mul  on two blocked inputs with the same channel count whose
//                  other axes broadcast;
//   NchwcChannelAffine for a blocked input times, plus or minus a
//                  per-channel constant, for squeeze-excitation's
//                  x * scale[N, C, 1, 1], and for an inference
//                  BatchNormalization with constant parameters (DenseNet's
//                  BN -> ReLU -> Conv, whose BN folds into no conv), each
//                  with a private Relu after it fused;
//   Pad            adding nothing: bypassed;
//   Concat         along channels, at least one input blocked, every channel
//                  count a multiple of the block (no padding lanes inside);
//                  plain inputs are reordered in.
// Converted nodes keep their names and read and write fresh "<value>_nchwc"
// values. Afterwards every original value that an unconverted node or a
// graph output still reads is produced again by an NchwcReorderOutput
// under its original name, so graph outputs and fetch names are unchanged.
//
// Padding lanes: elementwise ops apply to them too; they start at zero
// (reorder) or act(0) (a conv with zero-padded weights and bias), stay
// finite through the ops above (no Div), and reach no real channel, since
// the next conv's weights for them are zero and Concat never sees them.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"
#include "graph/topological_order.h"
#include "kernels/fused_activation.h"
#include "kernels/nchwc/nchwc.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

const std::set<std::string>& BlockedUnaryOps() {
  static const std::set<std::string> ops = {"Relu",        "LeakyRelu", "Sigmoid", "Tanh",
                                            "HardSigmoid", "HardSwish", "Silu",    "Clip"};
  return ops;
}

template <typename T>
std::optional<T> Attribute(const Node& node, const std::string& name) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end() || !std::holds_alternative<T>(it->second)) return std::nullopt;
  return std::get<T>(it->second);
}

struct Blocked {
  std::string value;  // the blocked value's name
  int64_t channels;   // real channels
};

class LayoutPass {
 public:
  LayoutPass(Graph& graph, int block, bool winograd)
      : graph_(graph),
        block_(block),
        winograd_(winograd),
        index_(graph),
        names_(graph),
        erase_(graph.nodes.size(), false) {}

  bool Run() {
    const TopologicalOrder order = SortTopologically(graph_);
    if (!order.unsorted.empty()) return false;
    for (size_t i : order.order) {
      if (erase_[i]) continue;  // fused into an earlier conv
      const std::string op = graph_.nodes[i].op_type;
      if (op == "Conv") {
        ConvertConv(i);
      } else if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
                 op == "GlobalMaxPool") {
        ConvertPool(i);
      } else if (BlockedUnaryOps().count(op) > 0) {
        ConvertUnary(i);
      } else if (op == "Add" || op == "Sub" || op == "Mul") {
        ConvertBinary(i);
      } else if (op == "Concat") {
        ConvertConcat(i);
      } else if (op == "BatchNormalization") {
        ConvertBatchNormalization(i);
      } else if (op == "Pad") {
        BypassEmptyPad(i);
      }
    }
    if (added_.empty()) return false;
    EraseNodes(graph_, erase_);
    for (Node& node : added_) graph_.nodes.push_back(std::move(node));
    AddOutputReorders();
    DropStaleValueTypes(graph_);
    return true;
  }

 private:
  std::optional<SymbolicShape> ShapeOf(const std::string& value) const {
    if (auto it = graph_.value_types.find(value); it != graph_.value_types.end()) {
      return it->second.shape;
    }
    for (const ValueInfo& input : graph_.inputs) {
      if (input.name == value) return input.type.shape;
    }
    return std::nullopt;
  }

  bool IsFloat32(const std::string& value) const {
    if (auto it = graph_.value_types.find(value); it != graph_.value_types.end()) {
      return it->second.dtype == DType::kFloat32;
    }
    for (const ValueInfo& input : graph_.inputs) {
      if (input.name == value) return input.type.dtype == DType::kFloat32;
    }
    return false;
  }

  // A rank-4 float32 value with a known channel count.
  std::optional<int64_t> PlainChannels(const std::string& value) const {
    const std::optional<SymbolicShape> shape = ShapeOf(value);
    if (!shape || shape->size() != 4 || !(*shape)[1].is_known() || !IsFloat32(value)) {
      return std::nullopt;
    }
    return (*shape)[1].size();
  }

  const Blocked* FindBlocked(const std::string& value) const {
    auto it = blocked_.find(value);
    return it == blocked_.end() ? nullptr : &it->second;
  }

  // The blocked form of a plain value, reordering it once if needed.
  std::string BlockedInput(const std::string& value) {
    if (const Blocked* b = FindBlocked(value)) return b->value;
    auto it = reordered_inputs_.find(value);
    if (it != reordered_inputs_.end()) return it->second;
    Node reorder;
    reorder.name = names_.Fresh(value + "_to_nchwc");
    reorder.op_type = "NchwcReorderInput";
    reorder.inputs = {value};
    reorder.outputs = {names_.Fresh(value + "_nchwc")};
    reorder.attributes["block"] = int64_t{block_};
    reordered_inputs_[value] = reorder.outputs[0];
    // Conversions above may have made `value` itself blocked-only; later
    // readers of the plain value get it back from AddOutputReorders.
    added_.push_back(reorder);
    return reorder.outputs[0];
  }

  // Replaces node i by `converted`, whose output carries `original` blocked.
  void Replace(size_t i, Node converted, const std::string& original, int64_t channels) {
    erase_[i] = true;
    converted.outputs = {names_.Fresh(original + "_nchwc")};
    blocked_[original] = {converted.outputs[0], channels};
    added_.push_back(std::move(converted));
  }

  void ConvertConv(size_t i) {
    const Node& node = graph_.nodes[i];
    if (node.outputs.size() != 1 || node.inputs.size() < 2 || node.inputs.size() > 3) return;
    const Tensor* w = FindConstant(graph_, node.inputs[1]);
    if (w == nullptr || w->dtype() != DType::kFloat32 || w->shape().rank() != 4) return;
    const bool has_bias = node.inputs.size() == 3 && !node.inputs[2].empty();
    if (has_bias && FindConstant(graph_, node.inputs[2]) == nullptr) return;
    const std::string& x = node.inputs[0];
    const Blocked* xb = FindBlocked(x);
    const std::optional<int64_t> plain_channels = PlainChannels(x);
    const int64_t channels = xb != nullptr ? xb->channels : plain_channels.value_or(-1);
    if (channels < 0) return;
    const int64_t group = Attribute<int64_t>(node, "group").value_or(1);
    const int64_t out_channels = w->shape().dim(0);
    if (!kernels::NchwcConvSupports(channels, out_channels, group, 2, block_)) return;
    if (w->shape().dim(1) * group != channels) return;

    Node conv = node;
    conv.op_type = "NchwcConv";
    conv.attributes["block"] = int64_t{block_};
    if (!winograd_) conv.attributes["winograd"] = int64_t{0};
    conv.inputs.resize(4);
    if (xb != nullptr) {
      conv.inputs[0] = xb->value;
    } else if (group == 1 && channels < block_) {
      conv.inputs[0] = x;  // a first layer: read NCHW directly
      conv.attributes["input_layout"] = std::string("nchw");
    } else {
      conv.inputs[0] = BlockedInput(x);
    }
    std::string output = node.outputs[0];
    FuseResidual(conv, output, out_channels);
    while (conv.inputs.size() > 2 && conv.inputs.back().empty()) conv.inputs.pop_back();
    Replace(i, std::move(conv), output, out_channels);
  }

  // Conv -> Add(y, other blocked) [-> Relu]: `other` becomes the Sum input.
  // Only for a conv with no activation yet (the Add comes before it), and a
  // non-depthwise one (the depthwise kernel has no Sum).
  void FuseResidual(Node& conv, std::string& output, int64_t out_channels) {
    if (conv.attributes.count("activation") > 0) return;
    const int64_t group = Attribute<int64_t>(conv, "group").value_or(1);
    if (group > 1) return;
    const std::string y = output;
    if (!index_.has_single_private_use(y)) return;
    const size_t add_index = index_.consumers(y)[0];
    const Node& add = graph_.nodes[add_index];
    if (add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1 ||
        erase_[add_index]) {
      return;
    }
    const std::string& other = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
    if (other == y) return;
    // `other` is already blocked, so it was computed before this conv in
    // topological order and cannot depend on it: no cycle.
    const Blocked* ob = FindBlocked(other);
    const std::optional<SymbolicShape> ys = ShapeOf(y), os = ShapeOf(other),
                                       as = ShapeOf(add.outputs[0]);
    if (ob == nullptr || ob->channels != out_channels || !ys || !os || !as || *ys != *os ||
        *as != *ys) {
      return;
    }
    conv.inputs[3] = ob->value;
    erase_[add_index] = true;
    output = add.outputs[0];
    FuseRelu(conv, output);
  }

  void ConvertPool(size_t i) {
    const Node& node = graph_.nodes[i];
    if (node.outputs.size() != 1 || node.inputs.size() != 1) return;
    const Blocked* xb = FindBlocked(node.inputs[0]);
    const std::optional<SymbolicShape> shape = ShapeOf(node.inputs[0]);
    if (xb == nullptr || !shape || shape->size() != 4) return;
    if (node.op_type == "MaxPool" && Attribute<int64_t>(node, "storage_order").value_or(0) != 0) {
      return;
    }
    Node pool = node;
    pool.op_type = "Nchwc" + node.op_type;
    pool.inputs = {xb->value};
    Replace(i, std::move(pool), node.outputs[0], xb->channels);
  }

  void ConvertUnary(size_t i) {
    const Node& node = graph_.nodes[i];
    if (node.outputs.size() != 1 || node.inputs.empty()) return;
    const Blocked* xb = FindBlocked(node.inputs[0]);
    if (xb == nullptr) return;
    // Clip's bounds are scalars; they broadcast against any layout.
    for (size_t k = 1; k < node.inputs.size(); ++k) {
      const std::optional<SymbolicShape> s = ShapeOf(node.inputs[k]);
      const Tensor* c = FindConstant(graph_, node.inputs[k]);
      if (!node.inputs[k].empty() && (c == nullptr || c->num_elements() != 1) &&
          !(s && s->empty())) {
        return;
      }
    }
    Node unary = node;
    unary.inputs[0] = xb->value;
    Replace(i, std::move(unary), node.outputs[0], xb->channels);
  }

  std::string AddBlockedConstant(const std::string& base, const std::vector<float>& values) {
    const int64_t channels = static_cast<int64_t>(values.size());
    const int64_t blocks = (channels + block_ - 1) / block_;
    std::vector<float> padded(static_cast<size_t>(blocks * block_), 0.0f);
    std::copy(values.begin(), values.end(), padded.begin());
    const std::string name = names_.Fresh(base + "_nchwc");
    graph_.initializers[name] = Tensor::from_vector(Shape({1, blocks, 1, 1, block_}), padded);
    return name;
  }

  // An inference BatchNormalization on a blocked value: one
  // NchwcChannelAffine with blocked per-channel constants, and the Relu
  // after it when it is the only reader (DenseNet's BN -> ReLU -> Conv,
  // whose BN folds into no conv).
  void ConvertBatchNormalization(size_t i) {
    const Node& node = graph_.nodes[i];
    const Blocked* xb = FindBlocked(node.inputs.empty() ? "" : node.inputs[0]);
    if (xb == nullptr) return;
    const std::optional<ChannelAffine> affine = ReadBatchNormalization(graph_, node);
    if (!affine || static_cast<int64_t>(affine->a.size()) != xb->channels) return;
    const std::vector<float> a(affine->a.begin(), affine->a.end());
    const std::vector<float> shift(affine->shift.begin(), affine->shift.end());
    Node op;
    op.name = node.name;
    op.op_type = "NchwcChannelAffine";
    op.inputs = {xb->value, AddBlockedConstant(node.name + "_scale", a),
                 AddBlockedConstant(node.name + "_shift", shift)};
    std::string output = node.outputs[0];
    FuseRelu(op, output);
    Replace(i, std::move(op), output, xb->channels);
  }

  // A private Relu reading `output` becomes `node`'s fused activation.
  void FuseRelu(Node& node, std::string& output) {
    if (!index_.has_single_private_use(output)) return;
    const size_t relu_index = index_.consumers(output)[0];
    const Node& relu = graph_.nodes[relu_index];
    if (relu.op_type != "Relu" || relu.outputs.size() != 1 || erase_[relu_index]) return;
    kernels::SetFusedActivationAttributes({kernels::ActivationKind::kRelu}, node.attributes);
    erase_[relu_index] = true;
    output = relu.outputs[0];
  }

  // x * c, x + c, c + x, x - c with a per-channel constant c, or x * s with
  // s a blocked [N, C, 1, 1] value (squeeze-excitation): NchwcChannelAffine.
  bool ConvertChannelAffine(size_t i) {
    const Node& node = graph_.nodes[i];
    const std::string& op = node.op_type;
    const Blocked* a = FindBlocked(node.inputs[0]);
    const Blocked* b = FindBlocked(node.inputs[1]);
    Node affine;
    affine.name = node.name;
    affine.op_type = "NchwcChannelAffine";
    if ((a == nullptr) != (b == nullptr)) {
      const int x_index = a != nullptr ? 0 : 1;
      const Blocked* x = a != nullptr ? a : b;
      const std::optional<SymbolicShape> shape = ShapeOf(node.inputs[x_index]);
      const Tensor* c = FindConstant(graph_, node.inputs[1 - x_index]);
      if (!shape || shape->size() != 4 || c == nullptr || (op == "Sub" && x_index != 0)) {
        return false;
      }
      std::optional<std::vector<float>> values = ChannelValues(*c, x->channels);
      if (!values) return false;
      if (op == "Sub") {
        for (float& v : *values) v = -v;
      }
      const std::string constant = AddBlockedConstant(node.inputs[1 - x_index], *values);
      affine.inputs = {x->value, op == "Mul" ? constant : "", op == "Mul" ? "" : constant};
      while (affine.inputs.back().empty()) affine.inputs.pop_back();
      std::string output = node.outputs[0];
      FuseRelu(affine, output);
      Replace(i, std::move(affine), output, x->channels);
      return true;
    }
    if (a == nullptr || op != "Mul" || a->channels != b->channels) return false;
    const std::optional<SymbolicShape> sa = ShapeOf(node.inputs[0]), sb = ShapeOf(node.inputs[1]);
    if (!sa || !sb || sa->size() != 4 || sb->size() != 4 || !((*sa)[0] == (*sb)[0])) return false;
    auto is_one = [](const Dim& d) { return d.is_known() && d.size() == 1; };
    const bool b_scales = is_one((*sb)[2]) && is_one((*sb)[3]);
    const bool a_scales = is_one((*sa)[2]) && is_one((*sa)[3]);
    if (b_scales == a_scales) return false;
    affine.inputs = b_scales ? std::vector<std::string>{a->value, b->value}
                             : std::vector<std::string>{b->value, a->value};
    Replace(i, std::move(affine), node.outputs[0], a->channels);
    return true;
  }

  // The per-channel values of a constant broadcast against [N, C, H, W]
  // along axis 1 only ([C, 1, 1], [1, C, 1, 1], or one value).
  static std::optional<std::vector<float>> ChannelValues(const Tensor& t, int64_t channels) {
    if (t.dtype() != DType::kFloat32 || t.shape().rank() > 4) return std::nullopt;
    const int rank = t.shape().rank();
    bool per_channel = false;
    for (int j = 0; j < rank; ++j) {
      const int axis = j + 4 - rank;
      const int64_t size = t.shape().dim(j);
      if (axis == 1 && size == channels) {
        per_channel = true;
      } else if (size != 1) {
        return std::nullopt;
      }
    }
    std::vector<float> values(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) values[c] = t.data<float>()[per_channel ? c : 0];
    return values;
  }

  void ConvertBinary(size_t i) {
    const Node& node = graph_.nodes[i];
    if (node.outputs.size() != 1 || node.inputs.size() != 2) return;
    if (ConvertChannelAffine(i)) return;
    const Blocked* a = FindBlocked(node.inputs[0]);
    const Blocked* b = FindBlocked(node.inputs[1]);
    if (a == nullptr || b == nullptr || a->channels != b->channels) return;
    const std::optional<SymbolicShape> sa = ShapeOf(node.inputs[0]), sb = ShapeOf(node.inputs[1]);
    if (!sa || !sb || sa->size() != 4 || sb->size() != 4) return;
    // Equal or 1 on every axis but channels: the blocked shapes broadcast
    // the same way the plain ones do.
    for (size_t axis : {0, 2, 3}) {
      const Dim& da = (*sa)[axis];
      const Dim& db = (*sb)[axis];
      const bool one = (da.is_known() && da.size() == 1) || (db.is_known() && db.size() == 1);
      if (!(da == db) && !one) return;
    }
    Node binary = node;
    binary.inputs = {a->value, b->value};
    Replace(i, std::move(binary), node.outputs[0], a->channels);
  }

  // A Pad that adds nothing (every pad 0, as exporters write before
  // AveragePool) on a blocked value: its output is the blocked input.
  void BypassEmptyPad(size_t i) {
    const Node& node = graph_.nodes[i];
    if (node.outputs.size() != 1 || node.inputs.size() < 2) return;
    const Blocked* xb = FindBlocked(node.inputs[0]);
    const Tensor* pads = FindConstant(graph_, node.inputs[1]);
    if (xb == nullptr || pads == nullptr || pads->dtype() != DType::kInt64) return;
    for (int64_t k = 0; k < pads->num_elements(); ++k) {
      if (pads->data<int64_t>()[k] != 0) return;
    }
    erase_[i] = true;
    blocked_[node.outputs[0]] = *xb;
  }

  void ConvertConcat(size_t i) {
    const Node& node = graph_.nodes[i];
    if (node.outputs.size() != 1 || node.inputs.empty()) return;
    const std::optional<int64_t> axis = Attribute<int64_t>(node, "axis");
    if (!axis || (*axis != 1 && *axis != -3)) return;
    std::vector<std::string> inputs;
    int64_t channels = 0;
    bool any_blocked = false;
    for (const std::string& input : node.inputs) {
      const Blocked* b = FindBlocked(input);
      any_blocked = any_blocked || b != nullptr;
      const std::optional<SymbolicShape> shape = ShapeOf(input);
      const int64_t c = b != nullptr ? b->channels : PlainChannels(input).value_or(-1);
      if (c < 0 || c % block_ != 0 || !shape || shape->size() != 4) return;
      channels += c;
    }
    // A plain input is reordered in, once: worth it only beside blocked ones.
    if (!any_blocked) return;
    for (const std::string& input : node.inputs) inputs.push_back(BlockedInput(input));
    Node concat = node;
    concat.inputs = inputs;
    concat.attributes["axis"] = int64_t{1};
    Replace(i, std::move(concat), node.outputs[0], channels);
  }

  // Original values still read in NCHW: by an unconverted node or as a
  // graph output. Each gets one NchwcReorderOutput under its own name.
  void AddOutputReorders() {
    std::set<std::string> needed;
    for (const Node& node : graph_.nodes) {
      for (const std::string& input : node.inputs) {
        if (blocked_.count(input) > 0) needed.insert(input);
      }
    }
    for (const ValueInfo& output : graph_.outputs) {
      if (blocked_.count(output.name) > 0) needed.insert(output.name);
    }
    for (const std::string& value : needed) {
      const Blocked& b = blocked_.at(value);
      Node reorder;
      reorder.name = names_.Fresh(value + "_to_nchw");
      reorder.op_type = "NchwcReorderOutput";
      reorder.inputs = {b.value};
      reorder.outputs = {value};
      reorder.attributes["channels"] = b.channels;
      graph_.nodes.push_back(std::move(reorder));
    }
  }

  Graph& graph_;
  const int block_;
  const bool winograd_;  // false: NchwcConv nodes get winograd = 0
  const GraphIndex index_;
  NameGenerator names_;
  std::vector<bool> erase_;
  std::vector<Node> added_;
  std::map<std::string, Blocked> blocked_;
  std::map<std::string, std::string> reordered_inputs_;
};

}  // namespace

bool UseBlockedLayout(Graph& graph, int block, bool winograd) {
  if (block != 8 && block != 16) {
    throw InvalidArgumentError("UseBlockedLayout: block must be 8 or 16 (got " +
                               std::to_string(block) + ")");
  }
  return LayoutPass(graph, block, winograd).Run();
}

}  // namespace loom::graph
