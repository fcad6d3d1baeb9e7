// Type rules of the copying shape ops (kernels/shape/shape_ops.h): Split, Slice,
// Pad, Expand, Tile, Gather, GatherElements.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// The ONNX clamping rules for one axis of known size `dim` (step != 0), as
// the Slice kernel applies them: the number of elements taken.
int64_t SliceCount(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0) return 0;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? 1 + (end - start - 1) / step : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (start <= end) return 0;
  const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);  // step may be INT64_MIN
  return 1 + static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / magnitude);
}

// Whether a slice takes a whole axis whatever its size: [0, INT64_MAX) step
// 1, or (from the last) down past the first with step -1 (a reversal).
bool TakesWholeAxis(int64_t start, int64_t end, int64_t step) {
  if (step == 1) return start == 0 && end == kInt64Max;
  if (step == -1) return (start == -1 || start == kInt64Max) && end == kInt64Min;
  return false;
}

}  // namespace

// Split(input, split?): sizes from input 1, attribute "split", or
// attribute "num_outputs" (ceil(dim / n) each, the last one smaller).
std::vector<TensorType> InferSplit(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  const DType dtype = ctx.input(0).dtype;
  const size_t n = ctx.num_outputs();
  std::optional<std::vector<int64_t>> sizes;
  bool sizes_known = true;
  int64_t num_outputs = 0;
  if (ctx.has_input(1)) {
    ctx.CheckDTypeIn(1, {DType::kInt64});
    sizes = ctx.ConstantInts(1);
    sizes_known = sizes.has_value();
  } else if (ctx.has_attribute("split")) {
    sizes = ctx.GetInts("split");
  } else if (ctx.has_attribute("num_outputs")) {
    num_outputs = ctx.GetInt("num_outputs", 0);
    if (num_outputs != static_cast<int64_t>(n)) {
      ctx.Fail("attribute 'num_outputs' = " + std::to_string(num_outputs) + " but the node has " +
               std::to_string(n) + " outputs");
    }
  } else {
    ctx.Fail(
        "split sizes are missing: give input 'split', attribute 'split' or attribute "
        "'num_outputs'");
  }
  if (sizes) {
    if (sizes->size() != n) {
      ctx.Fail("'split' " + IntsToString(*sizes) + " has " + std::to_string(sizes->size()) +
               " entries but the node has " + std::to_string(n) + " outputs");
    }
    for (int64_t s : *sizes) {
      if (s < 0) ctx.Fail("'split' " + IntsToString(*sizes) + " has a negative entry");
    }
  }
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return std::vector<TensorType>(n, TensorType{dtype, std::nullopt});
  if (x->empty()) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis =
      ctx.NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int>(x->size()), "attribute 'axis'");
  const Dim& dim = (*x)[axis];
  std::vector<Dim> parts;
  if (sizes) {
    int64_t total = 0;
    for (int64_t s : *sizes) total += s;
    if (dim.is_known() && total != dim.size()) {
      ctx.Fail("'split' " + IntsToString(*sizes) + " sums to " + std::to_string(total) +
               ", expected " + dim.to_string() + " (axis " + std::to_string(axis) + " of input " +
               ctx.Describe(0) + ")");
    }
    parts.assign(sizes->begin(), sizes->end());
  } else if (!sizes_known) {
    for (size_t i = 0; i < n; ++i) parts.push_back(ctx.UnknownDim());
  } else if (num_outputs == 1) {
    parts.push_back(dim);
  } else if (dim.is_known()) {
    const int64_t chunk = (dim.size() + num_outputs - 1) / num_outputs;
    if (chunk * (num_outputs - 1) > dim.size()) {
      ctx.Fail("cannot split axis " + std::to_string(axis) + " of input " + ctx.Describe(0) +
               " into " + std::to_string(num_outputs) + " outputs of at most " +
               std::to_string(chunk));
    }
    parts.assign(n, Dim(chunk));
    parts.back() = Dim(dim.size() - chunk * (num_outputs - 1));
  } else {
    for (size_t i = 0; i < n; ++i) parts.push_back(ctx.UnknownDim());
  }
  std::vector<TensorType> out;
  for (const Dim& part : parts) {
    SymbolicShape shape = *x;
    shape[axis] = part;
    out.push_back(TensorType{dtype, shape});
  }
  return out;
}

// Slice(data, starts, ends, axes?, steps?), or the opset-1 attributes.
std::vector<TensorType> InferSlice(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 5);
  for (size_t i = 1; i < 5; ++i) ctx.CheckDTypeIn(i, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  bool has_starts = false, has_ends = false, has_axes = false, has_steps = false;
  const auto starts = InputOrAttribute(ctx, 1, "starts", &has_starts);
  const auto ends = InputOrAttribute(ctx, 2, "ends", &has_ends);
  auto axes = InputOrAttribute(ctx, 3, "axes", &has_axes);
  auto steps = InputOrAttribute(ctx, 4, "steps", &has_steps);
  if (!has_starts || !has_ends)
    ctx.Fail("'starts' and 'ends' are required (inputs 1, 2 or attributes)");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  if (!has_axes && starts) {
    axes.emplace();
    for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (!axes) return {TensorType{dtype, UnknownDims(ctx, x->size())}};
  const std::vector<int> resolved = NormalizeAxes(ctx, *axes, rank);
  SymbolicShape out = *x;
  if (!starts || !ends || (has_steps && !steps)) {
    for (int a : resolved) out[a] = ctx.UnknownDim();  // the sliced axes only
    return {TensorType{dtype, out}};
  }
  const size_t n = starts->size();
  if (!has_steps) steps = std::vector<int64_t>(n, 1);
  if (ends->size() != n || axes->size() != n || steps->size() != n) {
    ctx.Fail("'starts', 'ends', 'axes' and 'steps' must have the same length (got " +
             std::to_string(n) + ", " + std::to_string(ends->size()) + ", " +
             std::to_string(axes->size()) + ", " + std::to_string(steps->size()) + ")");
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t step = (*steps)[i];
    if (step == 0) ctx.Fail("'steps' entry " + std::to_string(i) + " must not be 0");
    const Dim& dim = (*x)[resolved[i]];
    if (dim.is_known()) {
      out[resolved[i]] = Dim(SliceCount((*starts)[i], (*ends)[i], step, dim.size()));
    } else if (!TakesWholeAxis((*starts)[i], (*ends)[i], step)) {
      out[resolved[i]] = ctx.UnknownDim();
    }
  }
  return {TensorType{dtype, out}};
}

// Pad(data, pads?, constant_value?, axes?): each padded axis grows by its
// begin + end pads (negative pads crop).
std::vector<TensorType> InferPad(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 4);
  const DType dtype = ctx.input(0).dtype;
  const std::string mode = ctx.GetString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    ctx.Fail("attribute 'mode' must be constant, reflect, edge or wrap (got '" + mode + "')");
  }
  if (ctx.has_input(1)) ctx.CheckDTypeIn(1, {DType::kInt64});
  ctx.CheckSameDType(2, 0);
  ctx.CheckDTypeIn(3, {DType::kInt32, DType::kInt64});
  bool has_pads = false;
  const std::optional<std::vector<int64_t>> pads = InputOrAttribute(ctx, 1, "pads", &has_pads);
  if (!has_pads) ctx.Fail("'pads' is required (input 1 or attribute)");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  std::vector<int> axes;
  if (ctx.has_input(3)) {
    const std::optional<std::vector<int64_t>> given = ctx.ConstantInts(3);
    if (!given) return {TensorType{dtype, UnknownDims(ctx, x->size())}};
    axes = NormalizeAxes(ctx, *given, rank);
  } else {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  SymbolicShape out = *x;
  if (!pads) {
    for (int a : axes) out[a] = ctx.UnknownDim();
    return {TensorType{dtype, out}};
  }
  if (pads->size() != 2 * axes.size()) {
    ctx.Fail("'pads' " + IntsToString(*pads) + " has " + std::to_string(pads->size()) +
             " entries, expected " + std::to_string(2 * axes.size()) + " (2 per padded axis of " +
             ctx.Describe(0) + ")");
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t grow = ctx.Add((*pads)[k], (*pads)[k + axes.size()], "the padding");
    const Dim& dim = (*x)[axes[k]];
    if (dim.is_known()) {
      if (ctx.Add(dim.size(), grow, "the padded size") < 0) {
        ctx.Fail("'pads' " + IntsToString(*pads) + " crop axis " + std::to_string(axes[k]) +
                 " of input " + ctx.Describe(0) + " below size 0");
      }
      out[axes[k]] = Dim(dim.size() + grow);
    } else if (grow != 0) {
      out[axes[k]] = ctx.UnknownDim();
    }
  }
  return {TensorType{dtype, out}};
}

// Expand(input, shape): bidirectional broadcast of the input to `shape`.
std::vector<TensorType> InferExpand(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  const std::optional<int64_t> length = ctx.ListLength(1);
  const DType dtype = ctx.input(0).dtype;
  SymbolicShape target;
  if (const std::optional<std::vector<int64_t>> requested = ctx.ConstantInts(1)) {
    for (int64_t d : *requested) {
      if (d < 0)
        ctx.Fail("input 'shape' " + IntsToString(*requested) + " has a negative dimension");
      target.push_back(Dim(d));
    }
  } else if (length) {
    target = UnknownDims(ctx, *length);  // each entry broadcasts as an unknown size
  } else {
    return {TensorType{dtype, std::nullopt}};
  }
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const size_t rank = std::max(x->size(), target.size());
  SymbolicShape out;
  for (size_t axis = 0; axis < rank; ++axis) {
    const Dim a = axis + x->size() >= rank ? (*x)[axis + x->size() - rank] : Dim(1);
    const Dim b = axis + target.size() >= rank ? target[axis + target.size() - rank] : Dim(1);
    const std::optional<Dim> merged = BroadcastDim(ctx, a, b);
    if (!merged) {
      ctx.Fail("input " + ctx.Describe(0) + " cannot be broadcast to shape " +
               shape_to_string(target) + " (axis " + std::to_string(axis) + ": " + a.to_string() +
               " vs " + b.to_string() + ")");
    }
    out.push_back(*merged);
  }
  return {TensorType{dtype, out}};
}

// Tile(input, repeats): each dim times its repeat count.
std::vector<TensorType> InferTile(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  ctx.ListLength(1);  // checks the rank
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const std::optional<std::vector<int64_t>> repeats = ctx.ConstantInts(1);
  if (!repeats) return {TensorType{dtype, UnknownDims(ctx, x->size())}};
  if (repeats->size() != x->size()) {
    ctx.Fail("input 'repeats' " + IntsToString(*repeats) + " has " +
             std::to_string(repeats->size()) + " entries, expected one per axis of input " +
             ctx.Describe(0));
  }
  SymbolicShape out;
  for (size_t d = 0; d < x->size(); ++d) {
    const int64_t r = (*repeats)[d];
    if (r < 0) ctx.Fail("input 'repeats' " + IntsToString(*repeats) + " has a negative entry");
    const Dim& dim = (*x)[d];
    if (dim.is_known() || r == 0) {
      out.push_back(Dim(dim.is_known() ? ctx.Mul(dim.size(), r, "the tiled size") : 0));
    } else {
      out.push_back(r == 1 ? dim : ctx.UnknownDim());
    }
  }
  return {TensorType{dtype, out}};
}

// Gather(data, indices): data.shape[:axis] + indices.shape + data.shape[axis+1:].
std::vector<TensorType> InferGather(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& data = ctx.input_shape(0);
  const std::optional<SymbolicShape>& indices = ctx.input_shape(1);
  if (!data) return {TensorType{dtype, std::nullopt}};
  if (data->empty()) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis =
      ctx.NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int>(data->size()), "attribute 'axis'");
  const Dim& dim = (*data)[axis];
  if (const Tensor* constant = ctx.constant(1); constant != nullptr && dim.is_known()) {
    for (int64_t i = 0; i < constant->num_elements(); ++i) {
      const int64_t index = constant->dtype() == DType::kInt64
                                ? constant->data<int64_t>()[i]
                                : int64_t{constant->data<int32_t>()[i]};
      if (index < -dim.size() || index >= dim.size()) {
        ctx.Fail("index " + std::to_string(index) + " in " + ctx.Describe(1) + " is outside [-" +
                 dim.to_string() + ", " + dim.to_string() + ") (axis " + std::to_string(axis) +
                 " of " + ctx.Describe(0) + ")");
      }
    }
  }
  if (!indices) return {TensorType{dtype, std::nullopt}};
  SymbolicShape out(data->begin(), data->begin() + axis);
  out.insert(out.end(), indices->begin(), indices->end());
  out.insert(out.end(), data->begin() + axis + 1, data->end());
  return {TensorType{dtype, out}};
}

// GatherElements(data, indices): the shape of indices (same rank as data).
std::vector<TensorType> InferGatherElements(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& data = ctx.input_shape(0);
  const std::optional<SymbolicShape>& indices = ctx.input_shape(1);
  if (data) {
    if (data->empty()) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
    ctx.NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int>(data->size()), "attribute 'axis'");
    ctx.CheckRank(1, static_cast<int>(data->size()));
  }
  return {TensorType{dtype, indices}};
}

}  // namespace loom::graph
