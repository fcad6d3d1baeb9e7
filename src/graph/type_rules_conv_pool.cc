// Type rules of the window ops: Conv, MaxPool, AveragePool and the global
// pools. Output sizes follow kernels/spatial_geometry.h axis by axis; a
// symbolic input size gives an unknown output size.
#include <algorithm>
#include <string>
#include <vector>

#include "base/int_math.h"
#include "graph/type_rules.h"

namespace loom::graph {
namespace {

using base::CeilDiv;

std::vector<int64_t> PositiveList(const NodeTypeContext& ctx, std::string_view name, size_t rank) {
  std::vector<int64_t> values = ctx.GetInts(name, std::vector<int64_t>(rank, 1));
  if (values.size() != rank) {
    ctx.Fail("attribute '" + std::string(name) + "' " + IntsToString(values) + " must have " +
             std::to_string(rank) + " values, one per spatial axis");
  }
  for (int64_t v : values) {
    if (v <= 0) {
      ctx.Fail("attribute '" + std::string(name) + "' " + IntsToString(values) +
               " must be positive");
    }
  }
  return values;
}

// The spatial output dims of a window of `kernel` sliding over `input`
// (both one entry per spatial axis), with the node's strides, dilations,
// pads, auto_pad and (pooling only) ceil_mode.
SymbolicShape WindowOutputDims(const NodeTypeContext& ctx, const SymbolicShape& input,
                               const std::vector<int64_t>& kernel, bool allow_ceil_mode) {
  const size_t rank = kernel.size();
  for (int64_t k : kernel) {
    if (k <= 0) ctx.Fail("kernel shape " + IntsToString(kernel) + " must be positive");
  }
  const std::vector<int64_t> strides = PositiveList(ctx, "strides", rank);
  const std::vector<int64_t> dilations = PositiveList(ctx, "dilations", rank);
  const int64_t ceil_mode = ctx.GetInt("ceil_mode", 0);
  if (ceil_mode != 0 && !allow_ceil_mode) ctx.Fail("attribute 'ceil_mode' is not supported");
  const std::string auto_pad = ctx.GetString("auto_pad", "NOTSET");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (!same && auto_pad != "NOTSET" && auto_pad != "VALID") {
    ctx.Fail("attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID (got '" +
             auto_pad + "')");
  }
  std::vector<int64_t> pads(2 * rank, 0);
  if (auto_pad == "NOTSET") pads = ctx.GetInts("pads", pads);
  if (pads.size() != 2 * rank) {
    ctx.Fail("attribute 'pads' " + IntsToString(pads) + " must have " + std::to_string(2 * rank) +
             " values (begin and end per spatial axis)");
  }
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) {
    ctx.Fail("attribute 'pads' " + IntsToString(pads) + " must not be negative");
  }

  SymbolicShape out;
  for (size_t i = 0; i < rank; ++i) {
    if (!input[i].is_known()) {
      out.push_back(ctx.UnknownDim());
      continue;
    }
    const int64_t in = input[i].size();
    if (same) {
      out.push_back(Dim(CeilDiv(in, strides[i])));
      continue;
    }
    const int64_t extent =
        ctx.Add(ctx.Mul(kernel[i] - 1, dilations[i], "the window extent"), 1, "the window extent");
    const int64_t padded = ctx.Add(ctx.Add(in, pads[i], "the padded input size"), pads[i + rank],
                                   "the padded input size");
    if (extent > padded) {
      ctx.Fail("window extent " + std::to_string(extent) + " on spatial axis " + std::to_string(i) +
               " exceeds the padded input size " + std::to_string(padded) +
               " (input spatial shape " + shape_to_string(input) + ")");
    }
    if (ceil_mode != 0) {
      int64_t size = CeilDiv(padded - extent, strides[i]) + 1;
      // A last window starting in the end padding is dropped (ONNX Runtime, PyTorch).
      if (ctx.Mul(size - 1, strides[i], "the last window start") >= in + pads[i]) --size;
      out.push_back(Dim(size));
    } else {
      out.push_back(Dim((padded - extent) / strides[i] + 1));
    }
  }
  return out;
}

SymbolicShape Spatial(const SymbolicShape& shape) {
  return SymbolicShape(shape.begin() + 2, shape.end());
}

// MaxPool and AveragePool: Y's shape from X and kernel_shape.
std::optional<SymbolicShape> PoolShape(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const std::optional<std::vector<int64_t>> kernel = ctx.GetInts("kernel_shape");
  if (!kernel) ctx.Fail("required attribute 'kernel_shape' is missing");
  if (kernel->empty()) ctx.Fail("attribute 'kernel_shape' must have one value per spatial axis");
  const int rank = static_cast<int>(kernel->size()) + 2;
  ctx.CheckRank(0, rank);  // N, C and one spatial axis per kernel_shape entry
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  // Unknown input sizes ("?") still check the attributes; they give unknown outputs.
  const SymbolicShape input = x ? Spatial(*x) : SymbolicShape(kernel->size(), Dim::Invented("?"));
  SymbolicShape out = {x ? (*x)[0] : ctx.UnknownDim(), x ? (*x)[1] : ctx.UnknownDim()};
  const SymbolicShape spatial = WindowOutputDims(ctx, input, *kernel, true);
  out.insert(out.end(), spatial.begin(), spatial.end());
  return out;
}

}  // namespace

// Conv(X [N, C, D...], W [M, C/group, k...], B? [M]) -> [N, M, out...].
std::vector<TensorType> InferConv(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& w = ctx.input_shape(1);
  if (w && (w->size() < 3 || w->size() > 5)) {
    ctx.Fail("input " + ctx.Describe(1) + " must have rank 3 to 5 ([M, C/group, kernel...])");
  }
  if (x && x->size() < 3) {
    ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 3 ([N, C, spatial...])");
  }
  if (x && w && x->size() != w->size()) {
    ctx.Fail("inputs " + ctx.Describe(0) + " and " + ctx.Describe(1) +
             " must have the same rank (X is [N, C, spatial...], W [M, C/group, kernel...])");
  }
  const int64_t group = ctx.GetInt("group", 1);
  if (group < 1) ctx.Fail("attribute 'group' must be >= 1 (got " + std::to_string(group) + ")");
  const Dim out_channels = w ? (*w)[0] : ctx.UnknownDim();
  if (out_channels.is_known() && out_channels.size() % group != 0) {
    ctx.Fail("group " + std::to_string(group) + " does not divide the output channels of " +
             ctx.Describe(1));
  }
  if (x && w && (*x)[1].is_known() && (*w)[1].is_known() &&
      (*x)[1].size() != ctx.Mul((*w)[1].size(), group, "W.shape[1] * group")) {
    ctx.Fail("input " + ctx.Describe(0) + " has " + (*x)[1].to_string() + " channels but " +
             ctx.Describe(1) + " with group " + std::to_string(group) + " expects " +
             std::to_string((*w)[1].size() * group) + " (W.shape[1] * group)");
  }
  if (ctx.has_input(2)) {
    ctx.CheckRank(2, 1);
    if (const std::optional<SymbolicShape>& b = ctx.input_shape(2)) {
      UnifyDims(ctx, (*b)[0], out_channels,
                "input " + ctx.Describe(2) + " must have one value per output channel of " +
                    ctx.Describe(1));
    }
  }

  // The kernel's spatial size: from W when known, else kernel_shape.
  std::optional<std::vector<int64_t>> kernel = ctx.GetInts("kernel_shape");
  if (w) {
    const SymbolicShape w_spatial = Spatial(*w);
    const bool known =
        std::all_of(w_spatial.begin(), w_spatial.end(), [](const Dim& d) { return d.is_known(); });
    if (known) {
      std::vector<int64_t> from_w;
      for (const Dim& d : w_spatial) from_w.push_back(d.size());
      if (kernel && *kernel != from_w) {
        ctx.Fail("attribute 'kernel_shape' " + IntsToString(*kernel) +
                 " disagrees with the spatial shape of " + ctx.Describe(1));
      }
      kernel = from_w;
    }
  }
  size_t rank = 0;
  if (x) {
    rank = x->size();
  } else if (w) {
    rank = w->size();
  } else if (kernel) {
    rank = kernel->size() + 2;
  } else {
    return {TensorType{ctx.input(0).dtype, std::nullopt}};
  }
  if (kernel && kernel->size() + 2 != rank) {
    ctx.Fail("attribute 'kernel_shape' " + IntsToString(*kernel) + " must have " +
             std::to_string(rank - 2) + " values, one per spatial axis of " + ctx.Describe(0));
  }
  SymbolicShape out = {x ? (*x)[0] : ctx.UnknownDim(), out_channels};
  if (kernel) {
    const SymbolicShape input = x ? Spatial(*x) : SymbolicShape(rank - 2, Dim::Invented("?"));
    const SymbolicShape spatial = WindowOutputDims(ctx, input, *kernel, false);
    out.insert(out.end(), spatial.begin(), spatial.end());
  } else {
    for (size_t i = 2; i < rank; ++i) out.push_back(ctx.UnknownDim());
  }
  return {TensorType{ctx.input(0).dtype, out}};
}

// MaxPool -> Y, Indices (int64, same shape).
std::vector<TensorType> InferMaxPool(const NodeTypeContext& ctx) {
  const int64_t storage_order = ctx.GetInt("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) {
    ctx.Fail("attribute 'storage_order' must be 0 or 1 (got " + std::to_string(storage_order) +
             ")");
  }
  const std::optional<SymbolicShape> shape = PoolShape(ctx);
  return {TensorType{ctx.input(0).dtype, shape}, TensorType{DType::kInt64, shape}};
}

std::vector<TensorType> InferAveragePool(const NodeTypeContext& ctx) {
  const int64_t count_include_pad = ctx.GetInt("count_include_pad", 0);
  if (count_include_pad != 0 && count_include_pad != 1) {
    ctx.Fail("attribute 'count_include_pad' must be 0 or 1 (got " +
             std::to_string(count_include_pad) + ")");
  }
  return {TensorType{ctx.input(0).dtype, PoolShape(ctx)}};
}

// GlobalMaxPool, GlobalAveragePool: [N, C, D...] -> [N, C, 1...].
std::vector<TensorType> InferGlobalPool(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{ctx.input(0).dtype, std::nullopt}};
  if (x->size() < 2) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2 ([N, C, ...])");
  SymbolicShape out = {(*x)[0], (*x)[1]};
  out.resize(x->size(), Dim(1));
  return {TensorType{ctx.input(0).dtype, out}};
}

// ---- the blocked layout's ops (kernels/nchwc/nchwc.h) ----

namespace {

int64_t RequireBlock(const NodeTypeContext& ctx) {
  const int64_t block = ctx.RequireInt("block");
  if (block != 8 && block != 16) {
    ctx.Fail("attribute 'block' must be 8 or 16 (got " + std::to_string(block) + ")");
  }
  return block;
}

Dim BlocksOf(const NodeTypeContext& ctx, const Dim& channels, int64_t block) {
  return channels.is_known() ? Dim(CeilDiv(channels.size(), block)) : ctx.UnknownDim();
}

}  // namespace

// NchwcConv(X [N, C/B, H, W, B] or [N, C, H, W], W [M, C/group, KH, KW], B?, Sum?)
//   -> [N, ceil(M/B), OH, OW, B].
std::vector<TensorType> InferNchwcConv(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 4);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  ctx.CheckSameDType(3, 0);
  const int64_t block = RequireBlock(ctx);
  const bool plain = ctx.GetString("input_layout", "nchwc") == "nchw";
  ctx.CheckRank(0, plain ? 4 : 5);
  ctx.CheckRank(1, 4);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& w = ctx.input_shape(1);
  if (!x || !w || !(*w)[2].is_known() || !(*w)[3].is_known()) {
    return {TensorType{DType::kFloat32, UnknownDims(ctx, 5)}};
  }
  const std::vector<int64_t> kernel = {(*w)[2].size(), (*w)[3].size()};
  const SymbolicShape spatial =
      WindowOutputDims(ctx, SymbolicShape{(*x)[2], (*x)[3]}, kernel, false);
  SymbolicShape out = {(*x)[0], BlocksOf(ctx, (*w)[0], block), spatial[0], spatial[1], Dim(block)};
  return {TensorType{DType::kFloat32, out}};
}

// NchwcReorderInput(X [N, C, H, W]) -> [N, ceil(C/B), H, W, B].
std::vector<TensorType> InferNchwcReorderInput(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckRank(0, 4);
  const int64_t block = RequireBlock(ctx);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kFloat32, UnknownDims(ctx, 5)}};
  return {TensorType{DType::kFloat32, SymbolicShape{(*x)[0], BlocksOf(ctx, (*x)[1], block), (*x)[2],
                                                    (*x)[3], Dim(block)}}};
}

// NchwcReorderOutput(X [N, Cb, H, W, B]) -> [N, channels, H, W].
std::vector<TensorType> InferNchwcReorderOutput(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckRank(0, 5);
  const int64_t channels = ctx.RequireInt("channels");
  if (channels < 0) ctx.Fail("attribute 'channels' must not be negative");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kFloat32, UnknownDims(ctx, 4)}};
  return {TensorType{DType::kFloat32, SymbolicShape{(*x)[0], Dim(channels), (*x)[2], (*x)[3]}}};
}

// NchwcMaxPool, NchwcAveragePool: [N, Cb, H, W, B] -> [N, Cb, OH, OW, B].
std::vector<TensorType> InferNchwcPool(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckRank(0, 5);
  const std::optional<std::vector<int64_t>> kernel = ctx.GetInts("kernel_shape");
  if (!kernel || kernel->size() != 2) ctx.Fail("attribute 'kernel_shape' must have 2 values");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kFloat32, UnknownDims(ctx, 5)}};
  const SymbolicShape spatial =
      WindowOutputDims(ctx, SymbolicShape{(*x)[2], (*x)[3]}, *kernel, true);
  return {TensorType{DType::kFloat32,
                     SymbolicShape{(*x)[0], (*x)[1], spatial[0], spatial[1], (*x)[4]}}};
}

// NchwcGlobalAveragePool, NchwcGlobalMaxPool: -> [N, Cb, 1, 1, B].
std::vector<TensorType> InferNchwcGlobalPool(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckRank(0, 5);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kFloat32, UnknownDims(ctx, 5)}};
  return {TensorType{DType::kFloat32, SymbolicShape{(*x)[0], (*x)[1], Dim(1), Dim(1), (*x)[4]}}};
}

// NchwcChannelAffine(X [N, Cb, H, W, B], Scale?, Shift?) -> X's type.
std::vector<TensorType> InferNchwcChannelAffine(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 3);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckRank(0, 5);
  for (size_t k = 1; k < 3; ++k) {
    if (!ctx.has_input(k)) continue;
    ctx.CheckSameDType(k, 0);
    ctx.CheckRank(k, 5);
  }
  return {ctx.input(0)};
}

}  // namespace loom::graph
