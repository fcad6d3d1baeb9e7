// Type rules of the shape and data-movement ops (kernels/shape/shape_ops.h).
// Index arguments (shapes, axes, starts, pads, repeats) are read when they
// are constants; otherwise the sizes they decide are unknown.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {
namespace {

// A product of dims as a known factor times a multiset of symbols (sorted),
// so Reshape can cancel symbols: [N, 3, 4] -> [N, -1] gives 12.
struct Factored {
  int64_t known = 1;
  std::vector<std::string> symbols;

  bool is_zero() const { return known == 0; }
  std::string to_string() const {
    std::string text;
    for (const std::string& s : symbols) text += s + "*";
    return text + std::to_string(known);
  }
};

// The product of the known dims and the sorted symbols, or nullopt when the
// known product overflows int64 (no tensor has that many elements).
std::optional<Factored> Factor(const SymbolicShape& dims, int skip) {
  Factored f;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (static_cast<int>(i) == skip) continue;
    if (dims[i].is_known()) {
      if (__builtin_mul_overflow(f.known, dims[i].size(), &f.known)) return std::nullopt;
    } else {
      f.symbols.push_back(dims[i].symbol());
    }
  }
  std::sort(f.symbols.begin(), f.symbols.end());
  return f;
}

}  // namespace

// Reshape(data, shape: int64 constant); 0 copies the input dim (unless
// allowzero = 1), one -1 is inferred from the element count.
std::vector<TensorType> InferReshape(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  const std::optional<int64_t> length = ctx.ListLength(1);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<std::vector<int64_t>> requested = ctx.ConstantInts(1);
  if (!requested) {
    if (length) return {TensorType{dtype, UnknownDims(ctx, *length)}};
    return {TensorType{dtype, std::nullopt}};
  }
  const bool allow_zero = ctx.GetInt("allowzero", 0) != 0;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::string where = "input 'shape' " + IntsToString(*requested) + " for " + ctx.Describe(0);
  SymbolicShape out;
  int inferred = -1;
  for (size_t i = 0; i < requested->size(); ++i) {
    const int64_t r = (*requested)[i];
    if (r == -1) {
      if (inferred >= 0) ctx.Fail(where + " has more than one -1");
      inferred = static_cast<int>(i);
      out.push_back(Dim(1));  // a placeholder, replaced below
    } else if (r < -1) {
      ctx.Fail(where + " has invalid dimension " + std::to_string(r));
    } else if (r == 0 && !allow_zero) {
      if (x && i >= x->size()) ctx.Fail(where + " copies dimension " + std::to_string(i) + " (0)");
      out.push_back(x ? (*x)[i] : ctx.UnknownDim());
    } else {
      out.push_back(Dim(r));
    }
  }
  if (allow_zero && inferred >= 0 &&
      std::find(requested->begin(), requested->end(), 0) != requested->end()) {
    ctx.Fail(where + " has both 0 and -1 with allowzero = 1");
  }
  if (!x) {
    if (inferred >= 0) out[inferred] = ctx.UnknownDim();
    return {TensorType{dtype, out}};
  }
  const std::optional<Factored> in_factored = Factor(*x, -1);
  const std::optional<Factored> rest_factored = Factor(out, inferred);
  if (!in_factored || !rest_factored) {
    ctx.Fail(where + ": the element count overflows int64");
  }
  const Factored& in = *in_factored;
  const Factored& rest = *rest_factored;
  // Whether rest's symbols all appear in the input's; `extra` gets the rest.
  std::vector<std::string> extra;
  const bool covered =
      std::includes(in.symbols.begin(), in.symbols.end(), rest.symbols.begin(), rest.symbols.end());
  std::set_difference(in.symbols.begin(), in.symbols.end(), rest.symbols.begin(),
                      rest.symbols.end(), std::back_inserter(extra));
  if (inferred >= 0) {
    if (rest.is_zero()) ctx.Fail(where + ": cannot infer the -1 next to a 0 dimension");
    Dim dim = ctx.UnknownDim();
    if (in.is_zero()) {
      dim = Dim(0);
    } else if (covered && in.known % rest.known != 0 && extra.empty()) {
      ctx.Fail(where + ": " + std::to_string(in.known) + " elements are not divisible by " +
               std::to_string(rest.known));
    } else if (covered && in.known % rest.known == 0) {
      const int64_t quotient = in.known / rest.known;
      if (extra.empty()) dim = Dim(quotient);
      if (extra.size() == 1 && quotient == 1) dim = Dim(extra[0]);
    }
    out[inferred] = dim;
  } else {
    // Equal symbols cancel; a zero factor is zero whatever the symbols.
    const bool differ = (in.symbols == rest.symbols && in.known != rest.known) ||
                        (in.is_zero() && rest.symbols.empty() && !rest.is_zero()) ||
                        (rest.is_zero() && in.symbols.empty() && !in.is_zero());
    if (differ) {
      ctx.Fail(where + " asks for " + rest.to_string() + " elements, the input has " +
               in.to_string());
    }
  }
  return {TensorType{dtype, out}};
}

// Flatten(input): [prod(dims[:axis]), prod(dims[axis:])], axis in [-r, r].
std::vector<TensorType> InferFlatten(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, UnknownDims(ctx, 2)}};
  const int rank = static_cast<int>(x->size());
  int64_t axis = ctx.GetInt("axis", 1);
  if (axis < -rank || axis > rank) {
    ctx.Fail("attribute 'axis' " + std::to_string(axis) + " is outside [" + std::to_string(-rank) +
             ", " + std::to_string(rank) + "] for input " + ctx.Describe(0));
  }
  if (axis < 0) axis += rank;
  const std::span<const Dim> dims(*x);
  return {TensorType{dtype, SymbolicShape{ProductDim(ctx, dims.subspan(0, axis)),
                                          ProductDim(ctx, dims.subspan(axis))}}};
}

// Squeeze(data, axes?): the given axes (each of size 1), or every size-1 dim.
std::vector<TensorType> InferSqueeze(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  bool given = false;
  const std::optional<std::vector<int64_t>> axes = InputOrAttribute(ctx, 1, "axes", &given);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x || (given && !axes)) return {TensorType{dtype, std::nullopt}};
  std::vector<bool> drop(x->size(), false);
  if (given) {
    for (int a : NormalizeAxes(ctx, *axes, static_cast<int>(x->size()))) {
      if ((*x)[a].is_known() && (*x)[a].size() != 1) {
        ctx.Fail("cannot squeeze axis " + std::to_string(a) + " of input " + ctx.Describe(0) +
                 ": its size is " + (*x)[a].to_string() + ", expected 1");
      }
      drop[a] = true;
    }
  } else {
    for (size_t d = 0; d < x->size(); ++d) {
      // A symbol may or may not be 1: the rank is unknown.
      if (!(*x)[d].is_known()) return {TensorType{dtype, std::nullopt}};
      drop[d] = (*x)[d].size() == 1;
    }
  }
  SymbolicShape out;
  for (size_t d = 0; d < x->size(); ++d) {
    if (!drop[d]) out.push_back((*x)[d]);
  }
  return {TensorType{dtype, out}};
}

// Unsqueeze(data, axes): ones inserted at `axes` of the output.
std::vector<TensorType> InferUnsqueeze(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  bool given = false;
  const std::optional<std::vector<int64_t>> axes = InputOrAttribute(ctx, 1, "axes", &given);
  if (!given) ctx.Fail("'axes' is required (input 1 or attribute)");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  if (!axes) {
    if (const std::optional<int64_t> count = ctx.ListLength(1)) {
      return {TensorType{dtype, UnknownDims(ctx, x->size() + *count)}};
    }
    return {TensorType{dtype, std::nullopt}};
  }
  const int out_rank = static_cast<int>(x->size() + axes->size());
  std::vector<bool> inserted(out_rank, false);
  for (int a : NormalizeAxes(ctx, *axes, out_rank)) inserted[a] = true;
  SymbolicShape out;
  size_t next = 0;
  for (int d = 0; d < out_rank; ++d) out.push_back(inserted[d] ? Dim(1) : (*x)[next++]);
  return {TensorType{dtype, out}};
}

// Transpose(data): out[i] = data[perm[i]]; perm defaults to reversed axes.
std::vector<TensorType> InferTranspose(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  std::optional<std::vector<int64_t>> perm = ctx.GetInts("perm");
  if (!x)
    return {TensorType{dtype, perm ? std::optional(UnknownDims(ctx, perm->size())) : std::nullopt}};
  const size_t rank = x->size();
  if (!perm) {
    perm.emplace();
    for (size_t i = rank; i > 0; --i) perm->push_back(static_cast<int64_t>(i - 1));
  }
  std::vector<bool> seen(rank, false);
  bool valid = perm->size() == rank;
  for (size_t i = 0; valid && i < rank; ++i) {
    const int64_t p = (*perm)[i];
    valid = p >= 0 && p < static_cast<int64_t>(rank) && !seen[p];
    if (valid) seen[p] = true;
  }
  if (!valid) {
    ctx.Fail("attribute 'perm' " + IntsToString(*perm) + " is not a permutation of the " +
             std::to_string(rank) + " axes of input " + ctx.Describe(0));
  }
  SymbolicShape out;
  for (int64_t p : *perm) out.push_back((*x)[p]);
  return {TensorType{dtype, out}};
}

// Concat(inputs...): equal dims except on `axis`, where they add up.
std::vector<TensorType> InferConcat(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, NodeTypeContext::kAnyNumber);
  const int64_t raw_axis = ctx.RequireInt("axis");
  const DType dtype = ctx.input(0).dtype;
  std::optional<size_t> first;  // the first input with a known shape
  bool all_known = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ctx.input(i);  // every input is required
    ctx.CheckSameDType(i, 0);
    if (!ctx.input_shape(i)) {
      all_known = false;
    } else if (!first) {
      first = i;
    }
  }
  if (!first) return {TensorType{dtype, std::nullopt}};
  const SymbolicShape& base = *ctx.input_shape(*first);
  const int rank = static_cast<int>(base.size());
  const int axis = ctx.NormalizeAxis(raw_axis, rank, "attribute 'axis'");
  SymbolicShape out = base;
  std::vector<Dim> along_axis;
  for (size_t i = *first; i < ctx.num_inputs(); ++i) {
    if (!ctx.input_shape(i)) continue;
    const SymbolicShape& shape = *ctx.input_shape(i);
    if (static_cast<int>(shape.size()) != rank) {
      ctx.Fail("inputs " + ctx.Describe(*first) + " and " + ctx.Describe(i) +
               " must have the same rank");
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      out[d] = UnifyDims(ctx, out[d], shape[d],
                         "inputs " + ctx.Describe(*first) + " and " + ctx.Describe(i) +
                             " differ on axis " + std::to_string(d) + " (only axis " +
                             std::to_string(axis) + " may differ)");
    }
    along_axis.push_back(shape[axis]);
  }
  out[axis] = all_known ? SumDim(ctx, along_axis) : ctx.UnknownDim();
  return {TensorType{dtype, out}};
}

}  // namespace loom::graph
