#include "onnx_import/opset_adapter.h"

#include <algorithm>
#include <array>
#include <optional>

#include "graph/control_flow.h"
#include "kernels/registry.h"
#include "loom/errors.h"
#include "onnx_import/onnx_op_versions.h"

namespace loom::onnx_import {
namespace {

// Sets input `slot` of node `index` to a new int64 1-D initializer named
// after the node (`suffix`), growing the input list as needed.
void SetInt64Input(OpsetAdapter& adapter, size_t index, size_t slot, const std::string& suffix,
                   const std::vector<int64_t>& values) {
  const std::string constant =
      adapter.AddInt64Constant(adapter.node(index).name + "/" + suffix, values);
  Node& node = adapter.node(index);  // AddInt64Constant may have moved it
  if (node.inputs.size() <= slot) node.inputs.resize(slot + 1);
  node.inputs[slot] = constant;
}

// Moves attribute `name` (ints) of node `index` into input slot 1 as an
// int64 initializer. A node that already has input 1 keeps it (the input
// wins in the kernels too) and the attribute is dropped.
void AttributeToInput1(OpsetAdapter& adapter, size_t index, const std::string& name) {
  Node& node = adapter.node(index);
  auto it = node.attributes.find(name);
  if (it == node.attributes.end()) return;
  if (!std::holds_alternative<std::vector<int64_t>>(it->second)) {
    throw InvalidArgumentError("node '" + node.name + "' (" + node.op_type + "): attribute '" +
                               name + "' must be a list of ints");
  }
  const std::vector<int64_t> values = std::get<std::vector<int64_t>>(it->second);
  node.attributes.erase(it);
  if (node.inputs.size() >= 2 && !node.inputs[1].empty()) return;
  SetInt64Input(adapter, index, 1, name, values);
}

void AxesToInput(OpsetAdapter& adapter, size_t index) { AttributeToInput1(adapter, index, "axes"); }

// Attention makes its qk_matmul_output (Sq x T scores per head) only when
// the node has that output; the kernel cannot see its output count, so it
// is told through the Loom attribute loom_outputs.
void AttentionOutputCount(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  node.attributes["loom_outputs"] = static_cast<int64_t>(node.outputs.size());
}

// Opsets 11-17 split into equal parts when no sizes are given, as many as
// the node has outputs; the kernel cannot see its output count, so it is
// told through opset 18's num_outputs.
void SplitCountToAttribute(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  const bool has_input = node.inputs.size() >= 2 && !node.inputs[1].empty();
  if (has_input || node.attributes.count("split") || node.attributes.count("num_outputs")) return;
  node.attributes["num_outputs"] = static_cast<int64_t>(node.outputs.size());
}

// Before 13: sizes from the `split` attribute (moved to input 1), else
// equal parts as above.
void SplitToInputAndCount(OpsetAdapter& adapter, size_t index) {
  AttributeToInput1(adapter, index, "split");
  SplitCountToAttribute(adapter, index);
}

// Softmax, LogSoftmax and Hardmax before 13 (opset_adapter.h).
void CoerceSoftmaxTo2D(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  int64_t axis = 1;  // the pre-13 default
  if (auto it = node.attributes.find("axis"); it != node.attributes.end()) {
    if (!std::holds_alternative<int64_t>(it->second)) {
      throw InvalidArgumentError("node '" + node.name + "' (" + node.op_type +
                                 "): attribute 'axis' must be an int");
    }
    axis = std::get<int64_t>(it->second);
  }
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.inputs[0].empty()) {
    return;  // malformed: left for the verifier to report
  }
  const int rank = adapter.DeclaredRank(node.inputs[0]);
  if (axis == -1 || (rank > 0 && axis == rank - 1)) {
    node.attributes["axis"] = int64_t{-1};
    return;
  }
  // y = Reshape(Softmax(Flatten(x, axis), axis=1), Shape(x)); the original
  // node becomes the 2-D Softmax and keeps its name.
  const std::string x = node.inputs[0];
  const std::string y = node.outputs[0];
  const std::string name = node.name;
  const std::string flat = adapter.FreshValueName(y + "/flat2d");
  const std::string normalized = adapter.FreshValueName(y + "/softmax2d");
  const std::string shape = adapter.FreshValueName(y + "/input_shape");
  node.inputs[0] = flat;
  node.outputs[0] = normalized;
  node.attributes["axis"] = int64_t{1};
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/flatten"),
                       "Flatten",
                       {x},
                       {flat},
                       Attributes{{"axis", axis}}});
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/shape"), "Shape", {x}, {shape}, {}});
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/reshape"), "Reshape", {normalized, shape}, {y}, {}});
}

// TopK-1 has k as an int attribute; from 10 it is input 1 (int64 [1]).
void TopKAttributeToInput(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  auto it = node.attributes.find("k");
  if (it == node.attributes.end() || !std::holds_alternative<int64_t>(it->second)) {
    throw InvalidArgumentError("node '" + node.name +
                               "' (TopK version 1): attribute 'k' (an int) is required");
  }
  const int64_t k = std::get<int64_t>(it->second);
  node.attributes.erase(it);
  SetInt64Input(adapter, index, 1, "k", {k});
}

// DFT-17 has the axis as an int attribute (default 1); from 20 it is
// input 2 (default -2), so it moves there with 17's default.
void DftAxisToInput(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  int64_t axis = 1;
  if (auto it = node.attributes.find("axis"); it != node.attributes.end()) {
    if (!std::holds_alternative<int64_t>(it->second)) {
      throw InvalidArgumentError("node '" + node.name +
                                 "' (DFT version 17): attribute 'axis' must be an int");
    }
    axis = std::get<int64_t>(it->second);
    node.attributes.erase(it);
  }
  SetInt64Input(adapter, index, 2, "axis", {axis});
}

// RoiAlign-10 has no coordinate_transformation_mode and behaves as 16's
// output_half_pixel; 16's default is half_pixel, so the mode is set.
void RoiAlignOutputHalfPixel(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  node.attributes["coordinate_transformation_mode"] = std::string("output_half_pixel");
}

// OneHot-9 leaves a row all off_value for an index outside [0, depth);
// from 11 an index in [-depth, -1] counts from the end. The version-9
// result is the newest one with the rows of negative indices put back to
// off_value:
//   y = Where(Unsqueeze(Less(Cast(indices, int64), 0), axis), values[0], OneHot(...))
// Cast truncates toward zero as the kernel does, so -0.5 (index 0) stays
// on. The node keeps its name; its output is renamed.
void OneHotNegativeIndicesOff(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  if (node.inputs.size() != 3 || node.outputs.size() != 1 || node.inputs[0].empty() ||
      node.inputs[2].empty()) {
    return;  // malformed: left for the verifier to report
  }
  int64_t axis = -1;
  if (auto it = node.attributes.find("axis"); it != node.attributes.end()) {
    if (!std::holds_alternative<int64_t>(it->second)) {
      throw InvalidArgumentError("node '" + node.name +
                                 "' (OneHot): attribute 'axis' must be an int");
    }
    axis = std::get<int64_t>(it->second);
  }
  const std::string indices = node.inputs[0];
  const std::string values = node.inputs[2];
  const std::string y = node.outputs[0];
  const std::string name = node.name;
  const std::string hot = adapter.FreshValueName(y + "/one_hot");
  node.outputs[0] = hot;
  const std::string as_int64 = adapter.FreshValueName(y + "/indices_int64");
  const std::string negative = adapter.FreshValueName(y + "/negative");
  const std::string negative_rows = adapter.FreshValueName(y + "/negative_rows");
  const std::string off = adapter.FreshValueName(y + "/off_value");
  const std::string zero =
      adapter.AddConstant(name + "/zero", Tensor::from_vector(Shape(), std::vector<int64_t>{0}));
  const std::string axes = adapter.AddInt64Constant(name + "/axis", {axis});
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/cast"),
                       "Cast",
                       {indices},
                       {as_int64},
                       Attributes{{"to", int64_t{7}}}});  // 7 = INT64
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/less"), "Less", {as_int64, zero}, {negative}, {}});
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/unsqueeze"),
                       "Unsqueeze",
                       {negative, axes},
                       {negative_rows},
                       {}});
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/off"), "Gather", {values, zero}, {off}, {}});
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/where"), "Where", {negative_rows, off, hot}, {y}, {}});
}

// Scatter-9 is ScatterElements-11 under its old name (deprecated at 11).
void ScatterToScatterElements(OpsetAdapter& adapter, size_t index) {
  adapter.node(index).op_type = "ScatterElements";
}

// BatchNormalization-7's `spatial` = 0 computed mean and variance per
// element instead of per channel; Loom has only the per-channel form (1, the
// default, and the only form from version 9 on).
void DropSpatialOne(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  auto it = node.attributes.find("spatial");
  if (it == node.attributes.end()) return;
  if (!std::holds_alternative<int64_t>(it->second) || std::get<int64_t>(it->second) != 1) {
    throw InvalidArgumentError("node '" + node.name +
                               "' (BatchNormalization version 7): spatial = 0 (statistics per "
                               "element, not per channel) is not supported");
  }
  node.attributes.erase(it);
}

// Dropout at inference is the identity. From version 12 the mode is input
// 2 (training_mode); it must be absent or a constant false, since training
// mode drops random elements, unless the ratio (input 1) is a constant 0;
// when mode and ratio are both run-time inputs the node becomes LoomDropout,
// which checks them when it runs. The mask output, when
// used, is all true: a bool ConstantOfShape (version 10 on; before, the mask had the input's
// element type, which the importer does not know).
void DropoutToIdentity(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  const std::string where = "node '" + node.name + "' (Dropout)";
  if (node.inputs.empty() || node.inputs[0].empty() || node.outputs.empty()) {
    throw InvalidArgumentError(where + ": expected input 'data' and output 'output'");
  }
  // Input 1 (ratio) = 0 drops nothing even in training mode.
  const Tensor* ratio = node.inputs.size() >= 2 && !node.inputs[1].empty()
                            ? adapter.Constant(node.inputs[1])
                            : nullptr;
  const bool keeps_all = ratio != nullptr && ratio->num_elements() == 1 &&
                         (ratio->dtype() == DType::kFloat32 || ratio->dtype() == DType::kFloat64) &&
                         (ratio->dtype() == DType::kFloat32 ? ratio->data<float>()[0] == 0.0f
                                                            : ratio->data<double>()[0] == 0.0);
  if (node.inputs.size() >= 3 && !node.inputs[2].empty() && !keeps_all) {
    const Tensor* mode = adapter.Constant(node.inputs[2]);
    if (mode == nullptr && ratio == nullptr && !node.inputs[1].empty()) {
      // Mode and ratio both known only at run time: LoomDropout decides
      // there (the identity unless training with a non-zero ratio).
      node.op_type = "LoomDropout";
      node.attributes.clear();
      return;
    }
    if (mode == nullptr || mode->dtype() != DType::kBool || mode->num_elements() != 1 ||
        mode->data<bool>()[0]) {
      throw InvalidArgumentError(where +
                                 ": training_mode other than a constant false is not supported "
                                 "(training drops random elements; Loom runs inference)");
    }
  }
  if (auto it = node.attributes.find("is_test"); it != node.attributes.end()) {
    // Versions 1 and 6: is_test = 0 meant training; inference runtimes read
    // it as the identity all the same (ONNX Runtime does).
    node.attributes.erase(it);
  }
  const std::optional<std::string> mask =
      node.outputs.size() >= 2 ? std::optional(node.outputs[1]) : std::nullopt;
  const std::string x = node.inputs[0];
  const std::string name = node.name;
  node.op_type = "Identity";
  node.inputs = {x};
  node.outputs.resize(1);
  node.attributes.clear();
  if (!mask) return;
  const std::optional<int> version = OpVersionAtOpset("Dropout", adapter.opset());
  if (version.value_or(0) < 10) {
    throw InvalidArgumentError(where + " version " + std::to_string(version.value_or(0)) +
                               ": its mask output has the input's element type, which is not "
                               "known at import (version 10 on: bool)");
  }
  const std::string shape = adapter.FreshValueName(*mask + "/shape");
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/shape"), "Shape", {x}, {shape}, {}});
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/mask"),
           "ConstantOfShape",
           {shape},
           {*mask},
           Attributes{{"value", Tensor::from_vector(Shape({1}), std::vector<bool>{true})}}});
}

// LpPool-1's p is a float (default 2); from 2 it is an int. A whole value
// reads the same; another one is refused.
void LpPoolFloatPToInt(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  auto it = node.attributes.find("p");
  if (it == node.attributes.end() || !std::holds_alternative<float>(it->second)) return;
  const float p = std::get<float>(it->second);
  if (!(p >= 1.0f && p <= 1e6f) || p != static_cast<float>(static_cast<int64_t>(p))) {
    throw InvalidArgumentError("node '" + node.name + "' (" + node.op_type + " version 1): p = " +
                               std::to_string(p) + " is not supported (only whole p >= 1)");
  }
  it->second = static_cast<int64_t>(p);
}

// PRelu-6 applies a 1-D slope per channel (axis 1), as PyTorch's PReLU
// exports expect; from 7 the slope broadcasts aligned right. A 1-D slope of
// an X of declared rank r > 2 becomes [k, 1, ..., 1] (Unsqueeze over axes
// 1..r-2), which 7 broadcasts along axis 1; a one-element slope means the
// same either way. With X's rank unknown the node is read as 7.
void PReluSlopePerChannel(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  if (node.inputs.size() != 2 || node.inputs[0].empty() || node.inputs[1].empty()) return;
  const int rank = adapter.DeclaredRank(node.inputs[0]);
  const Tensor* constant = adapter.Constant(node.inputs[1]);
  const int slope_rank = constant ? constant->shape().rank() : adapter.DeclaredRank(node.inputs[1]);
  if (rank <= 2 || slope_rank != 1) return;
  std::vector<int64_t> axes;
  for (int64_t axis = 1; axis <= rank - 2; ++axis) axes.push_back(axis);
  const std::string name = node.name;
  const std::string slope = node.inputs[1];
  const std::string axes_value = adapter.AddInt64Constant(name + "/slope_axes", axes);
  const std::string per_channel = adapter.FreshValueName(slope + "/per_channel");
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/slope_per_channel"),
                       "Unsqueeze",
                       {slope, axes_value},
                       {per_channel},
                       {}});
  adapter.node(index).inputs[1] = per_channel;
}

// GroupNormalization-18 has scale and bias per group ([num_groups]); 21
// has them per channel ([C]). Each becomes
//   Reshape(Expand(Unsqueeze(v, [1]), [G, C / G]), [-1])
// with C read from X at run time: Shape(X, start = 1, end = 2).
void GroupNormPerGroupToPerChannel(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  auto groups_it = node.attributes.find("num_groups");
  if (node.inputs.size() != 3 || node.inputs[0].empty() || groups_it == node.attributes.end() ||
      !std::holds_alternative<int64_t>(groups_it->second)) {
    return;  // malformed: left for the verifier and the kernel to report
  }
  const int64_t groups = std::get<int64_t>(groups_it->second);
  const std::string x = node.inputs[0];
  const std::string name = node.name;
  const std::string groups_value = adapter.AddInt64Constant(name + "/num_groups", {groups});
  const std::string channels = adapter.FreshValueName(name + "/channels");
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/channels"),
                       "Shape",
                       {x},
                       {channels},
                       Attributes{{"start", int64_t{1}}, {"end", int64_t{2}}}});
  const std::string per_group = adapter.FreshValueName(name + "/channels_per_group");
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/channels_per_group"),
                       "Div",
                       {channels, groups_value},
                       {per_group},
                       {}});
  const std::string grid = adapter.FreshValueName(name + "/group_grid");
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/group_grid"),
                       "Concat",
                       {groups_value, per_group},
                       {grid},
                       Attributes{{"axis", int64_t{0}}}});
  const std::string axis1 = adapter.AddInt64Constant(name + "/axis1", {1});
  const std::string flat = adapter.AddInt64Constant(name + "/flat", {-1});
  for (size_t i : {size_t{1}, size_t{2}}) {
    const std::string v = adapter.node(index).inputs[i];
    if (v.empty()) continue;
    const std::string column = adapter.FreshValueName(v + "/column");
    const std::string wide = adapter.FreshValueName(v + "/per_channel_grid");
    const std::string per_channel = adapter.FreshValueName(v + "/per_channel");
    adapter.AddNode(
        Node{adapter.FreshNodeName(v + "/column"), "Unsqueeze", {v, axis1}, {column}, {}});
    adapter.AddNode(
        Node{adapter.FreshNodeName(v + "/per_channel_grid"), "Expand", {column, grid}, {wide}, {}});
    adapter.AddNode(Node{
        adapter.FreshNodeName(v + "/per_channel"), "Reshape", {wide, flat}, {per_channel}, {}});
    adapter.node(index).inputs[i] = per_channel;
  }
}

// Swish(x) = x * sigmoid(alpha * x); with alpha = 1 (the default) that is
// Loom's Silu. Another alpha becomes
//   Mul(x, Sigmoid(Mul(x, CastLike(alpha, x))))
// (CastLike: x's float type is not known at import).
void SwishToSilu(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  float alpha = 1.0f;
  if (auto it = node.attributes.find("alpha"); it != node.attributes.end()) {
    if (!std::holds_alternative<float>(it->second)) {
      throw InvalidArgumentError("node '" + node.name +
                                 "' (Swish): attribute 'alpha' must be a float");
    }
    alpha = std::get<float>(it->second);
    node.attributes.erase(it);
  }
  if (alpha == 1.0f || node.inputs.size() != 1 || node.outputs.size() != 1) {
    node.op_type = "Silu";  // a malformed node is left for the verifier to report
    return;
  }
  const std::string x = node.inputs[0];
  const std::string name = node.name;
  const std::string alpha_f32 = adapter.AddConstant(
      name + "/alpha", Tensor::from_vector(Shape({}), std::vector<float>{alpha}));
  const std::string alpha_like = adapter.FreshValueName(name + "/alpha_like");
  const std::string scaled = adapter.FreshValueName(name + "/scaled");
  const std::string gate = adapter.FreshValueName(name + "/gate");
  adapter.AddNode(Node{
      adapter.FreshNodeName(name + "/alpha_like"), "CastLike", {alpha_f32, x}, {alpha_like}, {}});
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/scaled"), "Mul", {x, alpha_like}, {scaled}, {}});
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/gate"), "Sigmoid", {scaled}, {gate}, {}});
  Node& same = adapter.node(index);  // the node keeps its name and output
  same.op_type = "Mul";
  same.inputs = {x, gate};
}

// Before 7, Add/Sub/Mul/Div (6) and Pow (1) broadcast only B onto A, and
// only when `broadcast` = 1; then `axis` says where B's dims start in A's
// (absent: aligned at the end, which is numpy's rule). Without `broadcast`
// the shapes must match, which numpy broadcasting reads the same. With an
// axis, B gets trailing 1-dims so that numpy aligns it there: a reshaped
// copy of a constant B, or an Unsqueeze when B's rank is declared.
void LegacyBroadcast(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  const std::string where = "node '" + node.name + "' (" + node.op_type + ", before opset 7)";
  int64_t broadcast = 0;
  if (auto it = node.attributes.find("broadcast"); it != node.attributes.end()) {
    if (!std::holds_alternative<int64_t>(it->second)) {
      throw InvalidArgumentError(where + ": attribute 'broadcast' must be an int");
    }
    broadcast = std::get<int64_t>(it->second);
    node.attributes.erase(it);
  }
  std::optional<int64_t> axis;
  if (auto it = node.attributes.find("axis"); it != node.attributes.end()) {
    if (!std::holds_alternative<int64_t>(it->second)) {
      throw InvalidArgumentError(where + ": attribute 'axis' must be an int");
    }
    axis = std::get<int64_t>(it->second);
    node.attributes.erase(it);
  }
  if (broadcast == 0 || !axis || node.inputs.size() != 2) return;
  const int rank_a = adapter.DeclaredRank(node.inputs[0]);
  const Tensor* constant_b = adapter.Constant(node.inputs[1]);
  const int rank_b = constant_b ? constant_b->shape().rank() : adapter.DeclaredRank(node.inputs[1]);
  if (rank_a < 0 || rank_b < 0) {
    throw InvalidArgumentError(where +
                               ": broadcast with an axis needs the ranks of both inputs declared");
  }
  const int64_t start = *axis < 0 ? *axis + rank_a : *axis;
  const int64_t trailing = rank_a - start - rank_b;
  if (start < 0 || trailing < 0) {
    throw InvalidArgumentError(where + ": axis " + std::to_string(*axis) +
                               " does not fit B (rank " + std::to_string(rank_b) +
                               ") into A (rank " + std::to_string(rank_a) + ")");
  }
  if (trailing == 0) return;
  const std::string b = node.inputs[1];
  const std::string name = node.name;
  if (constant_b != nullptr) {
    std::vector<int64_t> dims(constant_b->shape().dims().begin(), constant_b->shape().dims().end());
    dims.resize(dims.size() + static_cast<size_t>(trailing), 1);
    Tensor reshaped = constant_b->reshape(Shape(dims));
    adapter.node(index).inputs[1] = adapter.AddConstant(b + "/aligned", std::move(reshaped));
    return;
  }
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < trailing; ++k) axes.push_back(rank_b + k);
  const std::string axes_name = adapter.AddInt64Constant(name + "/align_axes", axes);
  const std::string aligned = adapter.FreshValueName(b + "/aligned");
  adapter.node(index).inputs[1] = aligned;
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/align"), "Unsqueeze", {b, axes_name}, {aligned}, {}});
}

// Gemm-6's `broadcast` = 1 broadcast C as version 7 always does; 0 required
// C's full shape, which broadcasting reads the same.
void DropGemmBroadcast(OpsetAdapter& adapter, size_t index) {
  adapter.node(index).attributes.erase("broadcast");
}

// BatchNormalization-6: `is_test` = 0 asked for training outputs; the
// inference output Y is the same (the kernel refuses training outputs).
void BatchNorm6ToNewest(OpsetAdapter& adapter, size_t index) {
  adapter.node(index).attributes.erase("is_test");
  DropSpatialOne(adapter, index);
}

// Resize-10 and Upsample-7/9 take the scales as input 1 (Upsample-7: an
// attribute) and define no coordinate mapping beyond "output = floor(input
// * scale)"; ONNX Runtime maps them as asymmetric coordinates with its
// legacy nearest rounding (truncate, or round up when downsampling), which
// the kernel has as nearest_mode "simple". Both become Resize-19 nodes.
void LegacyResize(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  const std::string where = "node '" + node.name + "' (" + node.op_type + ")";
  if (node.inputs.empty() || node.inputs[0].empty()) {
    throw InvalidArgumentError(where + ": expected input 'X'");
  }
  std::string scales;
  if (auto it = node.attributes.find("scales"); it != node.attributes.end()) {
    if (!std::holds_alternative<std::vector<float>>(it->second)) {
      throw InvalidArgumentError(where + ": attribute 'scales' must be a list of floats");
    }
    const std::vector<float> values = std::get<std::vector<float>>(it->second);
    node.attributes.erase(it);
    const std::string name = node.name;
    scales = adapter.AddConstant(
        name + "/scales",
        Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values));
  } else if (node.inputs.size() >= 2 && !node.inputs[1].empty()) {
    scales = node.inputs[1];
  } else {
    throw InvalidArgumentError(where + ": expected the scales (input 1)");
  }
  Node& same = adapter.node(index);
  same.op_type = "Resize";
  same.inputs = {same.inputs[0], "", scales};
  same.attributes["coordinate_transformation_mode"] = std::string("asymmetric");
  same.attributes["nearest_mode"] = std::string("simple");
}

// Differences shared by many rows.
constexpr std::string_view kTypesOnly =
    "later versions only add element types (the kernel's dtypes are checked at load)";
constexpr std::string_view kNewest = "the newest version";
constexpr std::string_view kNoBroadcast =
    "before 8 the inputs had to have one shape; numpy broadcasting (8 on) reads such models the "
    "same";
constexpr std::string_view kNegativeAxes =
    "before 11 axes could not be negative; later versions accept more, so older models read the "
    "same";
constexpr std::string_view kAxesAttribute =
    "axes is an attribute until 18 (13 for ReduceSum): moved to input 1; negative axes from 11";
constexpr std::string_view kAttributeBounds =
    "the bounds are attributes (Clip min/max, Pad pads/value, Slice starts/ends/axes); the kernel "
    "reads both forms";
constexpr std::string_view kPoolAttributes =
    "later versions add attributes (ceil_mode 10, dilations 10/19, storage_order 8) whose "
    "defaults are the older behaviour";
constexpr std::string_view kLegacyBroadcast =
    "legacy broadcast/axis attributes: rewritten to numpy broadcasting";
constexpr std::string_view kConverted = "turned into an initializer by the importer";
constexpr std::string_view kScatterReductions =
    "reduction from 16 (add, mul) and 18 (max, min), default none: the older behaviour; types";

// Sorted by op (a test checks); rows of one op in version order.
constexpr auto kRules = std::to_array<OpVersionRule>({
    {"Abs", 6, 13, nullptr, kTypesOnly},
    {"Acos", 7, 22, nullptr, kTypesOnly},
    {"Acosh", 9, 22, nullptr, kTypesOnly},
    {"Add", 6, 6, LegacyBroadcast, kLegacyBroadcast},
    {"Add", 7, 14, nullptr, kTypesOnly},
    {"AffineGrid", 20, 20, nullptr, kNewest},
    {"And", 7, 7, nullptr, kNewest},
    {"ArgMax", 1, 13, nullptr,
     "negative axis from 11, select_last_index (default 0: the older behaviour) from 12"},
    {"ArgMin", 1, 13, nullptr,
     "negative axis from 11, select_last_index (default 0: the older behaviour) from 12"},
    {"Asin", 7, 22, nullptr, kTypesOnly},
    {"Asinh", 9, 22, nullptr, kTypesOnly},
    {"Atan", 7, 22, nullptr, kTypesOnly},
    {"Atanh", 9, 22, nullptr, kTypesOnly},
    {"Attention", 23, 24, AttentionOutputCount,
     "nonpad_kv_seqlen from 24; the node's output count is told to the kernel (loom_outputs)"},
    {"AveragePool", 1, 22, nullptr,
     "count_include_pad from 7 (default 0: version 1's behaviour), ceil_mode 10, dilations 19"},
    {"BatchNormalization", 6, 6, BatchNorm6ToNewest,
     "is_test only selects training outputs; spatial as in version 7"},
    {"BatchNormalization", 7, 7, DropSpatialOne,
     "the spatial attribute: 1 (default) is the later form, 0 is refused"},
    {"BatchNormalization", 9, 15, nullptr,
     "training_mode from 14 (default 0; the kernel refuses 1); types at 15"},
    {"Bernoulli", 15, 22, nullptr, kTypesOnly},
    {"BitShift", 11, 11, nullptr, kNewest},
    {"BitwiseAnd", 18, 18, nullptr, kNewest},
    {"BitwiseNot", 18, 18, nullptr, kNewest},
    {"BitwiseOr", 18, 18, nullptr, kNewest},
    {"BitwiseXor", 18, 18, nullptr, kNewest},
    {"BlackmanWindow", 17, 17, nullptr, kNewest},
    {"Cast", 6, 24, nullptr,
     "string types from 9; saturate (19) and round_mode (24) concern only float8 types, which "
     "Loom does not have"},
    {"CastLike", 15, 24, nullptr,
     "as Cast: saturate (19) and round_mode (24) concern only float8 types"},
    {"Ceil", 6, 13, nullptr, kTypesOnly},
    {"Celu", 12, 12, nullptr, kNewest},
    {"CenterCropPad", 18, 18, nullptr, kNewest},
    {"Clip", 6, 6, nullptr, kAttributeBounds},
    {"Clip", 11, 13, nullptr, "integer types from 12"},
    {"Col2Im", 18, 18, nullptr, kNewest},
    {"Compress", 9, 11, nullptr, kNegativeAxes},
    {"Concat", 4, 13, nullptr, kNegativeAxes},
    {"ConcatFromSequence", 11, 11, nullptr, kNewest},
    {"Constant", 1, 24, nullptr, kConverted},
    {"ConstantOfShape", 9, 24, nullptr, kTypesOnly},
    {"Conv", 1, 22, nullptr, kTypesOnly},
    {"ConvInteger", 10, 10, nullptr, kNewest},
    {"ConvTranspose", 1, 22, nullptr,
     "auto_pad and output_shape clarified at 11 (the kernel follows ONNX's reference); types at "
     "22"},
    {"Cos", 7, 22, nullptr, kTypesOnly},
    {"Cosh", 9, 22, nullptr, kTypesOnly},
    {"CumSum", 11, 14, nullptr, kTypesOnly},
    {"DFT", 17, 17, DftAxisToInput, "axis is an attribute (default 1) until 20: moved to input 2"},
    {"DFT", 20, 20, nullptr, kNewest},
    {"DeformConv", 19, 22, nullptr, "types at 22"},
    {"DepthToSpace", 1, 13, nullptr, "mode from 11 (default DCR: version 1's order); types"},
    {"DequantizeLinear", 10, 24, nullptr,
     "axis 13, scale types 19, int16/uint16 and block_size 21, output_dtype 23 (defaults: the "
     "older behaviour); float8/int4/float4 types are refused by dtype"},
    {"Det", 11, 22, nullptr, kTypesOnly},
    {"Div", 6, 6, LegacyBroadcast, kLegacyBroadcast},
    {"Div", 7, 14, nullptr, kTypesOnly},
    {"Dropout", 1, 22, DropoutToIdentity, "the identity at inference (see DropoutToIdentity)"},
    {"DynamicQuantizeLinear", 11, 11, nullptr, kNewest},
    {"Einsum", 12, 12, nullptr, kNewest},
    {"Elu", 6, 22, nullptr, kTypesOnly},
    {"Equal", 7, 19, nullptr, kTypesOnly},
    {"Erf", 9, 13, nullptr, kTypesOnly},
    {"Exp", 6, 13, nullptr, kTypesOnly},
    {"Expand", 8, 13, nullptr, kTypesOnly},
    {"EyeLike", 9, 22, nullptr, kTypesOnly},
    {"Flatten", 1, 24, nullptr, "negative axis from 11; types"},
    {"Floor", 6, 13, nullptr, kTypesOnly},
    {"GRU", 7, 22, nullptr,
     "layout from 14 (default 0: version 7's form); bfloat16 at 22, which Loom's kernel does not "
     "take"},
    {"Gather", 1, 13, nullptr, "negative indices defined from 11; types"},
    {"GatherElements", 11, 13, nullptr, kTypesOnly},
    {"GatherND", 11, 13, nullptr, "batch_dims from 12 (default 0: version 11's behaviour); types"},
    {"Gelu", 20, 20, nullptr, kNewest},
    {"Gemm", 6, 6, DropGemmBroadcast, "broadcast = 1 is version 7's rule; 0 a case of it"},
    {"Gemm", 7, 13, nullptr, "C optional from 11; types"},
    {"GlobalAveragePool", 1, 22, nullptr, kTypesOnly},
    {"GlobalLpPool", 1, 1, LpPoolFloatPToInt, "p is a float: whole values read as version 2's int"},
    {"GlobalLpPool", 2, 22, nullptr, kTypesOnly},
    {"GlobalMaxPool", 1, 22, nullptr, kTypesOnly},
    {"Greater", 7, 13, nullptr, kTypesOnly},
    {"GreaterOrEqual", 12, 16, nullptr, kTypesOnly},
    {"GridSample", 16, 16, nullptr,
     "4-D only; modes bilinear and bicubic are named linear and cubic from 20 (the kernel takes "
     "both names)"},
    {"GridSample", 20, 22, nullptr, "types at 22"},
    {"GroupNormalization", 18, 18, GroupNormPerGroupToPerChannel,
     "scale and bias per group (18) are expanded to per channel (21)"},
    {"GroupNormalization", 21, 21, nullptr, kNewest},
    {"HammingWindow", 17, 17, nullptr, kNewest},
    {"HannWindow", 17, 17, nullptr, kNewest},
    {"HardSigmoid", 6, 22, nullptr, kTypesOnly},
    {"HardSwish", 14, 22, nullptr, kTypesOnly},
    {"Hardmax", 1, 11, CoerceSoftmaxTo2D, "before 13 the input is coerced to 2-D at axis"},
    {"Hardmax", 13, 13, nullptr, kNewest},
    {"Identity", 1, 24, nullptr, "sequence and optional types from 14/16; types"},
    {"If", 1, 24, nullptr,
     "branch output shapes may differ from 11; sequence and optional types from 13/16; types"},
    {"InstanceNormalization", 6, 22, nullptr, kTypesOnly},
    {"IsInf", 10, 20, nullptr, kTypesOnly},
    {"IsNaN", 9, 20, nullptr, kTypesOnly},
    {"LRN", 1, 13, nullptr, kTypesOnly},
    {"LSTM", 7, 22, nullptr,
     "layout from 14 (default 0: version 7's form); bfloat16 at 22, which Loom's kernel does not "
     "take"},
    {"LayerNormalization", 17, 17, nullptr, kNewest},
    {"LeakyRelu", 6, 16, nullptr, kTypesOnly},
    {"Less", 7, 13, nullptr, kTypesOnly},
    {"LessOrEqual", 12, 16, nullptr, kTypesOnly},
    {"Log", 6, 13, nullptr, kTypesOnly},
    {"LogSoftmax", 1, 11, CoerceSoftmaxTo2D, "before 13 the input is coerced to 2-D at axis"},
    {"LogSoftmax", 13, 13, nullptr, kNewest},
    {"Loop", 1, 24, nullptr,
     "scan output shapes may change from 11; sequence and optional types from 13/16; types"},
    {"LpNormalization", 1, 22, nullptr, kTypesOnly},
    {"LpPool", 1, 1, LpPoolFloatPToInt, "p is a float: whole values read as version 2's int"},
    {"LpPool", 2, 22, nullptr,
     "11 rewords auto_pad; dilations and ceil_mode from 18 (defaults: the older behaviour); types "
     "22"},
    {"MatMul", 1, 13, nullptr, kTypesOnly},
    {"MatMulInteger", 10, 10, nullptr, kNewest},
    {"Max", 6, 13, nullptr, kNoBroadcast},
    {"MaxPool", 1, 22, nullptr, kPoolAttributes},
    {"MaxRoiPool", 1, 22, nullptr, kTypesOnly},
    {"MaxUnpool", 9, 22, nullptr, kTypesOnly},
    {"Mean", 6, 13, nullptr, kNoBroadcast},
    {"MeanVarianceNormalization", 9, 13, nullptr, kTypesOnly},
    {"MelWeightMatrix", 17, 17, nullptr, kNewest},
    {"Min", 6, 13, nullptr, kNoBroadcast},
    {"Mish", 18, 22, nullptr, kTypesOnly},
    {"Mod", 10, 13, nullptr, kTypesOnly},
    {"Mul", 6, 6, LegacyBroadcast, kLegacyBroadcast},
    {"Mul", 7, 14, nullptr, kTypesOnly},
    {"Multinomial", 7, 22, nullptr, kTypesOnly},
    {"Neg", 6, 13, nullptr, kTypesOnly},
    {"NegativeLogLikelihoodLoss", 12, 22, nullptr, kTypesOnly},
    {"NonMaxSuppression", 10, 11, nullptr, "11 only clarifies the definition"},
    {"NonZero", 9, 13, nullptr, kTypesOnly},
    {"Not", 1, 1, nullptr, kNewest},
    {"OneHot", 9, 9, OneHotNegativeIndicesOff,
     "an index outside [0, depth) gives an all-off row; 11 counts negatives from the end, so "
     "their rows are set back to off_value"},
    {"OneHot", 11, 11, nullptr, kNewest},
    {"Optional", 15, 15, nullptr, kNewest},
    {"OptionalGetElement", 15, 18, nullptr,
     "18 also takes a tensor or a sequence (returned as it is); the kernel takes both"},
    {"OptionalHasElement", 15, 18, nullptr,
     "18 also takes a tensor or a sequence, and no input (false); the kernel takes all"},
    {"Or", 7, 7, nullptr, kNewest},
    {"PRelu", 6, 6, PReluSlopePerChannel,
     "a 1-D slope applies per channel (axis 1): unsqueezed to [C, 1, ...] for 7's broadcast"},
    {"PRelu", 7, 16, nullptr, "slope broadcast to X from 7; 9 and 16 add types"},
    {"Pad", 2, 2, nullptr, kAttributeBounds},
    {"Pad", 11, 24, nullptr, "axes input from 18, wrap mode from 19; types"},
    {"Pow", 1, 1, LegacyBroadcast, kLegacyBroadcast},
    {"Pow", 7, 15, nullptr, "the exponent's type may differ from 12; types"},
    {"QLinearConv", 10, 10, nullptr, kNewest},
    {"QLinearMatMul", 10, 21, nullptr, "float16/bfloat16 scales and float8 types from 21"},
    {"QuantizeLinear", 10, 24, nullptr,
     "axis 13, saturate 19 (float8 only), int16/uint16, block_size and output_dtype 21, "
     "precision 23 (defaults: the older behaviour); float8/int4/float4 types are refused by "
     "dtype"},
    {"RMSNormalization", 23, 23, nullptr, kNewest},
    {"RNN", 7, 22, nullptr,
     "layout from 14 (default 0: version 7's form); bfloat16 at 22, which Loom's kernel does not "
     "take"},
    {"RandomNormal", 1, 22, nullptr, kTypesOnly},
    {"RandomNormalLike", 1, 22, nullptr, kTypesOnly},
    {"RandomUniform", 1, 22, nullptr, kTypesOnly},
    {"RandomUniformLike", 1, 22, nullptr, kTypesOnly},
    {"Range", 11, 11, nullptr, kNewest},
    {"Reciprocal", 6, 13, nullptr, kTypesOnly},
    {"ReduceL1", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceL1", 18, 18, nullptr, kNewest},
    {"ReduceL2", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceL2", 18, 18, nullptr, kNewest},
    {"ReduceLogSum", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceLogSum", 18, 18, nullptr, kNewest},
    {"ReduceLogSumExp", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceLogSumExp", 18, 18, nullptr, kNewest},
    {"ReduceMax", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceMax", 18, 20, nullptr, "bool from 20"},
    {"ReduceMean", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceMean", 18, 18, nullptr, kNewest},
    {"ReduceMin", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceMin", 18, 20, nullptr, "bool from 20"},
    {"ReduceProd", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceProd", 18, 18, nullptr, kNewest},
    {"ReduceSum", 1, 11, AxesToInput, kAxesAttribute},
    {"ReduceSum", 13, 13, nullptr, kNewest},
    {"ReduceSumSquare", 1, 13, AxesToInput, kAxesAttribute},
    {"ReduceSumSquare", 18, 18, nullptr, kNewest},
    {"RegexFullMatch", 20, 20, nullptr, kNewest},
    {"Relu", 6, 14, nullptr, kTypesOnly},
    {"Reshape", 5, 24, nullptr, "allowzero from 14 (default 0: the older behaviour); types"},
    {"Resize", 10, 10, LegacyResize,
     "scales as input 1, no coordinate mode: asymmetric with the legacy nearest rounding"},
    {"Resize", 11, 19, nullptr,
     "roi/scales optional from 13; antialias, axes and keep_aspect_ratio_policy (defaults: the "
     "older behaviour) from 18; half_pixel_symmetric from 19; tf_half_pixel_for_nn (11 only) is "
     "supported"},
    {"ReverseSequence", 10, 10, nullptr, kNewest},
    {"RoiAlign", 10, 10, RoiAlignOutputHalfPixel,
     "no coordinate_transformation_mode: output_half_pixel, set explicitly (16's default is "
     "half_pixel)"},
    {"RoiAlign", 16, 22, nullptr, "types at 22"},
    {"RotaryEmbedding", 23, 23, nullptr, kNewest},
    {"Round", 11, 22, nullptr, kTypesOnly},
    {"STFT", 17, 17, nullptr, kNewest},
    {"Scan", 8, 8, nullptr,
     "Scan-8 has a batch axis and a sequence_lens input, which opset 9 removed; Loom reads the "
     "opset 9 form only",
     true},
    {"Scan", 9, 24, nullptr,
     "scan axes and directions from 9 (the form Loom reads); negative axes from 11; types"},
    {"Scatter", 9, 9, ScatterToScatterElements, "ScatterElements-11 under its old name"},
    {"Scatter", 11, 11, nullptr,
     "deprecated at opset 11, where it has no definition (ScatterElements replaces it)", true},
    {"ScatterElements", 11, 18, nullptr, kScatterReductions},
    {"ScatterND", 11, 18, nullptr, kScatterReductions},
    {"Selu", 6, 22, nullptr, kTypesOnly},
    {"SequenceAt", 11, 11, nullptr, kNewest},
    {"SequenceConstruct", 11, 11, nullptr, kNewest},
    {"SequenceEmpty", 11, 11, nullptr, kNewest},
    {"SequenceErase", 11, 11, nullptr, kNewest},
    {"SequenceInsert", 11, 11, nullptr, kNewest},
    {"SequenceLength", 11, 11, nullptr, kNewest},
    {"SequenceMap", 17, 17, nullptr, kNewest},
    {"Shape", 1, 24, nullptr, "start/end from 15 (defaults: the whole shape); types"},
    {"Shrink", 9, 9, nullptr, kNewest},
    {"Sigmoid", 6, 13, nullptr, kTypesOnly},
    {"Sign", 9, 13, nullptr, kTypesOnly},
    {"Sin", 7, 22, nullptr, kTypesOnly},
    {"Sinh", 9, 22, nullptr, kTypesOnly},
    {"Size", 1, 24, nullptr, kTypesOnly},
    {"Slice", 1, 1, nullptr, kAttributeBounds},
    {"Slice", 10, 13, nullptr, "negative steps and clamping defined from 10/11; types"},
    {"Softmax", 1, 11, CoerceSoftmaxTo2D, "before 13 the input is coerced to 2-D at axis"},
    {"Softmax", 13, 13, nullptr, kNewest},
    {"SoftmaxCrossEntropyLoss", 12, 13, nullptr, kTypesOnly},
    {"Softplus", 1, 22, nullptr, kTypesOnly},
    {"Softsign", 1, 22, nullptr, kTypesOnly},
    {"SpaceToDepth", 1, 13, nullptr, kTypesOnly},
    {"Split", 2, 11, SplitToInputAndCount,
     "split sizes are an attribute until 13: moved to input 1; equal parts counted by outputs "
     "until 18 (num_outputs)"},
    {"Split", 13, 13, SplitCountToAttribute,
     "equal parts counted by outputs until 18 (num_outputs)"},
    {"Split", 18, 18, nullptr, kNewest},
    {"SplitToSequence", 11, 24, nullptr, kTypesOnly},
    {"Sqrt", 6, 13, nullptr, kTypesOnly},
    {"Squeeze", 1, 11, AxesToInput, "axes is an attribute until 13: moved to input 1"},
    {"Squeeze", 13, 24, nullptr, kTypesOnly},
    {"StringConcat", 20, 20, nullptr, kNewest},
    {"StringNormalizer", 10, 10, nullptr, kNewest},
    {"StringSplit", 20, 20, nullptr, kNewest},
    {"Sub", 6, 6, LegacyBroadcast, kLegacyBroadcast},
    {"Sub", 7, 14, nullptr, kTypesOnly},
    {"Sum", 6, 13, nullptr, kNoBroadcast},
    {"Swish", 24, 24, SwishToSilu,
     "alpha = 1 (the default) is Silu; another alpha is x * Sigmoid(alpha * x)"},
    {"Tan", 7, 22, nullptr, kTypesOnly},
    {"Tanh", 6, 13, nullptr, kTypesOnly},
    {"TensorScatter", 24, 24, nullptr, kNewest},
    {"TfIdfVectorizer", 9, 9, nullptr, kNewest},
    {"ThresholdedRelu", 10, 22, nullptr, kTypesOnly},
    {"Tile", 6, 13, nullptr, kTypesOnly},
    {"TopK", 1, 1, TopKAttributeToInput, "k is an attribute until 10: moved to input 1"},
    {"TopK", 10, 24, nullptr,
     "largest and sorted from 11 (defaults 1: version 10's behaviour); integer types 11, "
     "bfloat16 24"},
    {"Transpose", 1, 24, nullptr, kTypesOnly},
    {"Trilu", 14, 14, nullptr, kNewest},
    {"Unique", 11, 11, nullptr, kNewest},
    {"Unsqueeze", 1, 11, AxesToInput, "axes is an attribute until 13: moved to input 1"},
    {"Unsqueeze", 13, 24, nullptr, kTypesOnly},
    {"Upsample", 7, 10, LegacyResize,
     "Resize with asymmetric coordinates and the legacy nearest rounding (scales an attribute at "
     "7, input 1 from 9; 10 only deprecates it)"},
    {"Where", 9, 16, nullptr, kTypesOnly},
    {"Xor", 7, 7, nullptr, kNewest},
});

// Ops the rules replace by others, with no kernel of their own.
constexpr auto kReplacedOps =
    std::to_array<std::string_view>({"Dropout", "Scatter", "Swish", "Upsample"});

}  // namespace

std::span<const OpVersionRule> OpVersionRules() { return kRules; }

const OpVersionRule* FindVersionRule(std::string_view op, int version) {
  for (const OpVersionRule& rule : kRules) {
    if (rule.op == op && rule.first <= version && version <= rule.last) return &rule;
  }
  return nullptr;
}

bool AdapterReplacesOp(std::string_view op) {
  return std::find(kReplacedOps.begin(), kReplacedOps.end(), op) != kReplacedOps.end();
}

void CheckOpVersions(const std::vector<std::string>& op_types, int opset) {
  std::string problems;
  int count = 0;
  for (const std::string& op : op_types) {
    const std::optional<int> version = OpVersionAtOpset(op, opset);
    std::string problem;
    if (!version) {
      const OnnxOpVersions* history = FindOnnxOp(op);
      problem = history == nullptr
                    ? op + ": not an operator of the default ONNX domain"
                    : op + ": does not exist at opset " + std::to_string(opset) +
                          " (it was introduced at opset " + std::to_string(history->since[0]) + ")";
    } else if (const OpVersionRule* rule = FindVersionRule(op, *version); rule == nullptr) {
      int oldest = 0;
      for (const OpVersionRule& r : kRules) {
        if (r.op == op && (oldest == 0 || r.first < oldest)) oldest = r.first;
      }
      problem = op + " version " + std::to_string(*version) + " (opset " + std::to_string(opset) +
                "): not supported" +
                (oldest ? "; Loom reads it from version " + std::to_string(oldest) + " (opset " +
                              std::to_string(std::max(oldest, 7)) + " or later)"
                        : "");
    } else if (rule->refused) {
      problem = op + " version " + std::to_string(*version) + ": " + std::string(rule->difference);
    }
    if (problem.empty()) continue;
    ++count;
    problems += "\n  " + problem;
  }
  if (count == 0) return;
  throw InvalidArgumentError(std::to_string(count) + " op" + (count == 1 ? "" : "s") +
                             " at a version Loom does not read:" + problems);
}

OpsetAdapter::OpsetAdapter(Graph& graph, int opset,
                           const std::map<std::string, int>& declared_ranks)
    : graph_(graph), opset_(opset), declared_ranks_(declared_ranks) {
  for (const ValueInfo& v : graph.inputs) values_.insert(v.name);
  for (const ValueInfo& v : graph.outputs) values_.insert(v.name);
  for (const auto& [name, tensor] : graph.initializers) values_.insert(name);
  for (const Node& node : graph.nodes) {
    node_names_.insert(node.name);
    values_.insert(node.inputs.begin(), node.inputs.end());
    values_.insert(node.outputs.begin(), node.outputs.end());
  }
}

void OpsetAdapter::AddNode(Node node) {
  node_names_.insert(node.name);
  graph_.nodes.push_back(std::move(node));
}

std::string OpsetAdapter::FreshValueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; values_.count(name); ++k) name = base + "_" + std::to_string(k);
  values_.insert(name);
  return name;
}

std::string OpsetAdapter::FreshNodeName(const std::string& base) {
  std::string name = base;
  for (int k = 1; node_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  node_names_.insert(name);
  return name;
}

std::string OpsetAdapter::AddInt64Constant(const std::string& base,
                                           const std::vector<int64_t>& values) {
  const std::string name = FreshValueName(base);
  graph_.initializers.emplace(
      name, Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values));
  return name;
}

int OpsetAdapter::DeclaredRank(const std::string& value) const {
  auto it = declared_ranks_.find(value);
  return it == declared_ranks_.end() ? -1 : it->second;
}

std::string OpsetAdapter::AddConstant(const std::string& base, Tensor value) {
  const std::string name = FreshValueName(base);
  graph_.initializers.emplace(name, std::move(value));
  return name;
}

const Tensor* OpsetAdapter::Constant(const std::string& value) const {
  auto it = graph_.initializers.find(value);
  return it == graph_.initializers.end() ? nullptr : &it->second;
}

void AdaptToLatestOpset(Graph& graph, int opset, const std::map<std::string, int>& declared_ranks) {
  OpsetAdapter adapter(graph, opset, declared_ranks);
  // Only the model's own nodes: nodes a rewrite appends are already in the
  // newest form.
  const size_t count = graph.nodes.size();
  for (size_t i = 0; i < count; ++i) {
    const std::string op = graph.nodes[i].op_type;
    const std::optional<int> version = OpVersionAtOpset(op, opset);
    if (!version) continue;  // CheckOpVersions refused it before conversion
    const OpVersionRule* rule = FindVersionRule(op, *version);
    if (rule != nullptr && rule->rewrite != nullptr) rule->rewrite(adapter, i);
  }
  // Control flow's subgraphs hold ops of the same opset. Their declared
  // ranks are not at hand: a rewrite that would use one takes its general
  // form.
  for (Node& node : graph.nodes) {
    for (auto& [name, subgraph] : graph::Subgraphs(node)) {
      const graph::SubgraphDepthGuard depth("node '" + node.name + "'");
      auto adapted = std::make_shared<Graph>(*subgraph);
      AdaptToLatestOpset(*adapted, opset, {});
      node.attributes[name] = std::move(adapted);
    }
  }
}

}  // namespace loom::onnx_import
