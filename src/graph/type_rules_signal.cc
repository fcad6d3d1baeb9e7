// DFT, STFT, the window functions and MelWeightMatrix rules.
#include <optional>
#include <string>
#include <vector>

#include "graph/type_rules.h"
#include "kernels/onnx_dtype.h"

namespace loom::graph {
namespace {

// A constant scalar int input's value, nullopt when absent or not constant.
std::optional<int64_t> ConstantScalar(const NodeTypeContext& ctx, size_t index) {
  if (!ctx.has_input(index)) return std::nullopt;
  const std::optional<std::vector<int64_t>> v = ctx.ConstantInts(index);
  if (!v) return std::nullopt;
  if (v->size() != 1) ctx.Fail("input " + ctx.Describe(index) + " must be a scalar");
  return (*v)[0];
}

DType OutputDType(const NodeTypeContext& ctx) {
  const int64_t code = ctx.GetInt("output_datatype", 1);
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(code);
  if (!dtype || *dtype == DType::kBool || *dtype == DType::kString) {
    ctx.Fail("attribute 'output_datatype' = " + std::to_string(code) +
             " is not a numeric dtype Loom supports");
  }
  return *dtype;
}

}  // namespace

// DFT(input [..., n, ..., 1|2], dft_length?, axis?) -> [..., n' , ..., 2].
std::vector<TensorType> InferDft(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 3);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat64});
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  ctx.CheckDTypeIn(2, {DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  if (rank < 2) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2");
  if (x->back().is_known() && x->back().size() != 1 && x->back().size() != 2) {
    ctx.Fail("input " + ctx.Describe(0) + " must end in 1 (real) or 2 (complex)");
  }
  SymbolicShape out = *x;
  out.back() = 2;
  std::optional<int64_t> axis_value = int64_t{-2};
  if (ctx.has_input(2)) axis_value = ConstantScalar(ctx, 2);
  if (!axis_value) {
    for (int d = 0; d + 1 < rank; ++d) out[static_cast<size_t>(d)] = ctx.UnknownDim();
    return {TensorType{dtype, out}};
  }
  const int axis = ctx.NormalizeAxis(*axis_value, rank, "input 'axis'");
  if (axis == rank - 1) ctx.Fail("input 'axis' must not be the last axis");
  std::optional<Dim> n = (*x)[static_cast<size_t>(axis)];
  if (ctx.has_input(1)) {
    const std::optional<int64_t> length = ConstantScalar(ctx, 1);
    n = length ? std::optional<Dim>(Dim(*length)) : std::nullopt;
  }
  const bool onesided = ctx.GetInt("onesided", 0) != 0;
  Dim result = ctx.UnknownDim();
  if (n && n->is_known()) {
    result = onesided ? n->size() / 2 + 1 : n->size();
  } else if (n && !onesided) {
    result = *n;
  }
  out[static_cast<size_t>(axis)] = result;
  return {TensorType{dtype, out}};
}

// STFT(signal [B, L, 1|2], frame_step, window?, frame_length?) -> [B, frames, bins, 2].
std::vector<TensorType> InferStft(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 4);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat64});
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  ctx.CheckSameDType(2, 0);
  ctx.CheckDTypeIn(3, {DType::kInt32, DType::kInt64});
  ctx.CheckRank(0, 3);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  SymbolicShape out = {x ? (*x)[0] : ctx.UnknownDim(), ctx.UnknownDim(), ctx.UnknownDim(), 2};
  std::optional<int64_t> frame_length;
  if (ctx.has_input(3)) frame_length = ConstantScalar(ctx, 3);
  if (!frame_length && ctx.has_input(2)) {
    const std::optional<SymbolicShape>& w = ctx.input_shape(2);
    if (w && w->size() == 1 && (*w)[0].is_known()) frame_length = (*w)[0].size();
  }
  if (!frame_length && !ctx.has_input(2) && !ctx.has_input(3) && x && (*x)[1].is_known()) {
    frame_length = (*x)[1].size();
  }
  const std::optional<int64_t> step = ConstantScalar(ctx, 1);
  if (frame_length) {
    out[2] = ctx.GetInt("onesided", 1) != 0 ? *frame_length / 2 + 1 : *frame_length;
    if (step && *step > 0 && x && (*x)[1].is_known() && (*x)[1].size() >= *frame_length) {
      out[1] = 1 + ((*x)[1].size() - *frame_length) / *step;
    }
  }
  return {TensorType{dtype, out}};
}

// HannWindow, HammingWindow, BlackmanWindow(size) -> output_datatype [size].
std::vector<TensorType> InferWindow(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kInt32, DType::kInt64});
  const std::optional<int64_t> size = ConstantScalar(ctx, 0);
  return {TensorType{OutputDType(ctx), SymbolicShape{size ? Dim(*size) : ctx.UnknownDim()}}};
}

// MelWeightMatrix(num_mel_bins, dft_length, ...) -> [dft_length / 2 + 1, num_mel_bins].
std::vector<TensorType> InferMelWeightMatrix(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(5, 5);
  for (size_t i = 0; i < 3; ++i) ctx.CheckDTypeIn(i, {DType::kInt32, DType::kInt64});
  ctx.CheckDTypeIn(3, {DType::kFloat32, DType::kFloat64});
  ctx.CheckDTypeIn(4, {DType::kFloat32, DType::kFloat64});
  const std::optional<int64_t> bins = ConstantScalar(ctx, 0);
  const std::optional<int64_t> dft = ConstantScalar(ctx, 1);
  return {TensorType{OutputDType(ctx), SymbolicShape{dft ? Dim(*dft / 2 + 1) : ctx.UnknownDim(),
                                                     bins ? Dim(*bins) : ctx.UnknownDim()}}};
}

}  // namespace loom::graph
