// Pad: every output axis gets an index map, output position -> input
// position, or -1 for "the constant". Each output row (all axes but the
// last) then either is all constant or reads one input row, whose middle
// part (positions that map to themselves shifted by the begin pad) is one
// memcpy; only the padded ends go element by element through the map.
// Negative pads shift the map, which crops.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "Pad";

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

PadMode ParseMode(const std::string& mode) {
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "edge") return PadMode::kEdge;
  if (mode == "wrap") return PadMode::kWrap;
  ThrowKernelError(kOp,
                   "attribute 'mode' must be constant, reflect, edge or wrap (got '" + mode + "')");
}

// Input position for output position `o` of an axis of size n padded by
// `begin` in front, or -1 for the constant.
int64_t MapIndex(int64_t o, int64_t begin, int64_t n, PadMode mode) {
  const int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : n - 1;
    case PadMode::kWrap:
      return (i % n + n) % n;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      // Mirror without repeating the edge: period 2(n-1), like NumPy.
      const int64_t period = 2 * (n - 1);
      const int64_t m = (i % period + period) % period;
      return m < n ? m : period - m;
    }
  }
  return -1;
}

}  // namespace

std::vector<Tensor> PadKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 4);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const PadMode mode = ParseMode(attrs.get_string("mode", "constant"));
  std::vector<int64_t> pads;
  if (const Tensor* pads_input = OptionalInput(inputs, 1)) {
    CheckDType(kOp, "pads", *pads_input, {DType::kInt64});
    pads = shape_ops::ReadIndexList(kOp, "pads", *pads_input);
  } else if (attrs.has("pads")) {
    pads = attrs.get_ints("pads");
  } else {
    ThrowKernelError(kOp, "'pads' is required (input #1 or attribute)");
  }
  const int rank = data.shape().rank();
  std::vector<int> axes;
  if (const Tensor* axes_input = OptionalInput(inputs, 3)) {
    axes = shape_ops::NormalizeAxes(kOp, shape_ops::ReadIndexList(kOp, "axes", *axes_input), rank);
  } else {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) {
    ThrowKernelError(kOp, "'pads' has " + std::to_string(pads.size()) + " entries, expected " +
                              std::to_string(2 * axes.size()) + " (2 per axis of 'data' shape " +
                              data.shape().to_string() + ")");
  }

  // The constant, as one element of data's dtype.
  const size_t element_size = dtype_size(data.dtype());
  std::byte constant[8] = {};
  if (const Tensor* value = OptionalInput(inputs, 2)) {
    if (value->dtype() != data.dtype()) CheckDType(kOp, "constant_value", *value, {data.dtype()});
    if (value->num_elements() > 1) {
      ThrowKernelError(kOp, "input 'constant_value' must be a scalar (got shape " +
                                value->shape().to_string() + ")");
    }
    if (value->num_elements() == 1) std::memcpy(constant, value->raw_data(), element_size);
  } else {
    const float attribute_value = attrs.get_float("value", 0.0f);
    shape_ops::ConvertElements(KernelContext{}, &attribute_value, DType::kFloat32, constant,
                               data.dtype(), 1);
  }

  const std::vector<int64_t>& dims = data.shape().dims();
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
  std::vector<int64_t> out_dims = dims;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int d = axes[k];
    const int64_t b = pads[k];
    const int64_t e = pads[k + axes.size()];
    int64_t size = 0;
    if (__builtin_add_overflow(dims[d], b, &size) || __builtin_add_overflow(size, e, &size) ||
        size < 0) {
      ThrowKernelError(kOp, "pads " + std::to_string(b) + " and " + std::to_string(e) +
                                " on axis " + std::to_string(d) + " of 'data' shape " +
                                data.shape().to_string() + " give an invalid size");
    }
    if (mode != PadMode::kConstant && dims[d] == 0 && size > 0) {
      ThrowKernelError(
          kOp, "cannot pad the empty axis " + std::to_string(d) + " in a non-constant mode");
    }
    begin[d] = b;
    out_dims[d] = size;
  }
  Tensor output(data.dtype(), Shape(out_dims));
  if (output.num_elements() == 0) return {output};
  if (rank == 0) return {data.clone()};

  std::vector<std::vector<int64_t>> maps(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    maps[d].resize(static_cast<size_t>(out_dims[d]));
    for (int64_t o = 0; o < out_dims[d]; ++o) maps[d][o] = MapIndex(o, begin[d], dims[d], mode);
  }
  const std::vector<int64_t> strides = shape_ops::DenseStrides(data.shape());
  const int last = rank - 1;
  const int64_t cols = out_dims[last];
  const int64_t rows = output.num_elements() / cols;
  // Output columns [lo, hi) read input columns [lo - begin, hi - begin).
  const int64_t lo = std::clamp<int64_t>(begin[last], 0, cols);
  const int64_t hi = std::clamp<int64_t>(begin[last] + dims[last], lo, cols);
  const auto es = static_cast<int64_t>(element_size);
  const auto* in = static_cast<const std::byte*>(data.raw_data());
  auto* out = static_cast<std::byte*>(output.raw_data());

  // Serial loop replaced: for (row = 0; row < rows; ++row) fill output row.
  threading::ParallelFor(
      ctx.pool, rows, static_cast<double>(cols) * es * shape_ops::kCopyNsPerByte + 5.0,
      [&](int64_t first, int64_t end) {
        for (int64_t row = first; row < end; ++row) {
          std::byte* dst = out + row * cols * es;
          int64_t src_row = 0;
          bool constant_row = false;
          for (int64_t d = last - 1, rest = row; d >= 0; --d) {
            const int64_t i = maps[d][rest % out_dims[d]];
            rest /= out_dims[d];
            constant_row = constant_row || i < 0;
            src_row += i * strides[d];
          }
          if (constant_row) {
            for (int64_t j = 0; j < cols; ++j) std::memcpy(dst + j * es, constant, element_size);
            continue;
          }
          const std::byte* src = in + src_row * es;
          for (int64_t j = 0; j < lo; ++j) {
            const int64_t i = maps[last][j];
            std::memcpy(dst + j * es, i < 0 ? constant : src + i * es, element_size);
          }
          if (hi > lo) {
            std::memcpy(dst + lo * es, src + (lo - begin[last]) * es,
                        static_cast<size_t>((hi - lo) * es));
          }
          for (int64_t j = hi; j < cols; ++j) {
            const int64_t i = maps[last][j];
            std::memcpy(dst + j * es, i < 0 ? constant : src + i * es, element_size);
          }
        }
      });
  return {output};
}

}  // namespace loom::kernels
