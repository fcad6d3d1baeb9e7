// NonZero, Compress and OneHot: ops whose output positions depend on the
// values of an input. The data-dependent part (which elements are non-zero,
// which slices are kept, where each one-hot value goes) is one serial pass;
// Compress then copies its slices in parallel, each by one thread.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "loom/bfloat16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

template <typename T>
bool IsNonZero(T v) {
  if constexpr ((std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)) {
    return (v.bits & 0x7fff) != 0;  // +-0 are the only zeros; NaN is not zero
  } else {
    return v != T{0};
  }
}

// Element `i` of a numeric tensor as a double (for messages and floats).
double ElementValue(const Tensor& t, int64_t i) {
  return VisitDType(t.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    if constexpr ((std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)) {
      return static_cast<float>(t.data<T>()[i]);
    } else {
      return static_cast<double>(t.data<T>()[i]);
    }
  });
}

// Element `i` of a numeric tensor as int64, floats truncated toward zero;
// nullopt for NaN, infinities and floats outside int64's range.
std::optional<int64_t> ElementAsInt64(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kInt64:
      return t.data<int64_t>()[i];
    case DType::kInt32:
      return t.data<int32_t>()[i];
    case DType::kInt8:
      return t.data<int8_t>()[i];
    case DType::kUInt8:
      return t.data<uint8_t>()[i];
    default:
      break;
  }
  const double v = ElementValue(t, i);
  // -2^63 is exact in double and fits; 2^63 is the first value that does
  // not. NaN fails both comparisons.
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace

std::vector<Tensor> NonZeroKernel(const KernelContext& /*ctx*/, const Attributes& /*attrs*/,
                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "NonZero";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const int rank = x.shape().rank();
  const int64_t n = x.num_elements();
  std::vector<int64_t> found;  // flat positions of the non-zero elements
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (IsNonZero(p[i])) found.push_back(i);
    }
  });
  const auto count = static_cast<int64_t>(found.size());
  Tensor output = Tensor::uninitialized(DType::kInt64, Shape({rank, count}));
  int64_t* out = output.data<int64_t>();
  const std::vector<int64_t>& dims = x.shape().dims();
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = found[static_cast<size_t>(j)];
    for (int d = rank - 1; d >= 0; --d) {
      out[d * count + j] = rest % dims[d];
      rest /= dims[d];
    }
  }
  return {output};
}

std::vector<Tensor> CompressKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs) {
  constexpr std::string_view kOp = "Compress";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  const Tensor& condition = RequiredInput(kOp, inputs, 1, "condition");
  CheckDType(kOp, "condition", condition, {DType::kBool});
  CheckRank(kOp, "condition", condition, 1);
  const bool flatten = !attrs.has("axis");
  const Tensor x = flatten ? input.reshape(Shape({input.num_elements()})) : input;
  const int rank = x.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'input' must have rank >= 1 (got shape [])");
  const int axis = flatten ? 0 : NormalizeAxis(kOp, attrs.get_int("axis"), rank);
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t dim = dims[axis];
  const bool* keep = condition.data<bool>();
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < condition.num_elements(); ++i) {
    if (!keep[i]) continue;
    if (i >= dim) {
      ThrowKernelError(
          kOp,
          "input 'condition' is true at position " + std::to_string(i) + ", beyond the " +
              std::to_string(dim) + " slices along axis " + std::to_string(axis) + " of " +
              (flatten ? "the flattened input" : "'input' shape " + input.shape().to_string()));
    }
    kept.push_back(i);
  }
  std::vector<int64_t> out_dims = dims;
  out_dims[axis] = static_cast<int64_t>(kept.size());
  Tensor output = Tensor::uninitialized(x.dtype(), Shape(std::move(out_dims)));
  if (output.num_elements() == 0) return {output};

  const AxisExtents extents = ExtentsAroundAxis(x.shape(), axis);
  const int64_t outer = extents.outer, inner = extents.inner;
  const int64_t row_bytes = inner * static_cast<int64_t>(dtype_size(x.dtype()));
  const auto count = static_cast<int64_t>(kept.size());
  const auto* in = static_cast<const std::byte*>(x.raw_data());
  auto* out = static_cast<std::byte*>(output.raw_data());
  // Serial loop replaced: for (o < outer) for (j < count)
  //   memcpy(out row (o, j), in row (o, kept[j])). ~2 ns per row for the call.
  threading::ParallelFor(ctx.pool, outer * count,
                         static_cast<double>(row_bytes) * shape_ops::kCopyNsPerByte + 2.0,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t o = unit / count;
                             const int64_t j = unit % count;
                             std::memcpy(out + unit * row_bytes,
                                         in + (o * dim + kept[static_cast<size_t>(j)]) * row_bytes,
                                         static_cast<size_t>(row_bytes));
                           }
                         });
  return {output};
}

std::vector<Tensor> OneHotKernel(const KernelContext& /*ctx*/, const Attributes& attrs,
                                 KernelInputs inputs) {
  constexpr std::string_view kOp = "OneHot";
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& indices = RequiredInput(kOp, inputs, 0, "indices");
  const Tensor& depth_t = RequiredInput(kOp, inputs, 1, "depth");
  const Tensor& values = RequiredInput(kOp, inputs, 2, "values");
  for (const auto& [t, name] : {std::pair{&indices, "indices"}, std::pair{&depth_t, "depth"}}) {
    if (t->dtype() == DType::kBool) {
      ThrowKernelError(kOp, "input '" + std::string(name) + "' must be numeric (got bool)");
    }
  }
  if (depth_t.num_elements() != 1) {
    ThrowKernelError(
        kOp, "input 'depth' must hold one value (got shape " + depth_t.shape().to_string() + ")");
  }
  if (!(values.shape() == Shape({2}))) {
    ThrowKernelError(kOp, "input 'values' must hold [off_value, on_value] (got shape " +
                              values.shape().to_string() + ")");
  }
  const std::optional<int64_t> depth = ElementAsInt64(depth_t, 0);
  if (!depth || *depth < 0) {
    ThrowKernelError(kOp, "input 'depth' must be a finite value >= 0 (got " +
                              std::to_string(ElementValue(depth_t, 0)) + ")");
  }
  const int rank = indices.shape().rank();
  const int64_t axis_attr = attrs.get_int("axis", -1);
  if (axis_attr < -rank - 1 || axis_attr > rank) {
    ThrowKernelError(kOp, "attribute 'axis' = " + std::to_string(axis_attr) + " is out of range [" +
                              std::to_string(-rank - 1) + ", " + std::to_string(rank) +
                              "] for 'indices' of rank " + std::to_string(rank));
  }
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank + 1 : axis_attr);
  const std::vector<int64_t>& dims = indices.shape().dims();
  // Checked before allocating: depth comes from the model or its input.
  const int64_t count = indices.num_elements();
  const int64_t total = shape_ops::CheckedMul(kOp, "the output size", count, *depth);
  const auto element_size = static_cast<int64_t>(dtype_size(values.dtype()));
  if (total > kMaxTensorBytes / element_size) {
    ThrowKernelError(kOp, "depth " + std::to_string(*depth) + " with 'indices' shape " +
                              indices.shape().to_string() + " gives " + std::to_string(total) +
                              " elements, more than Loom allocates (" +
                              std::to_string(kMaxTensorBytes) + " bytes)");
  }
  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + axis);
  out_dims.push_back(*depth);
  out_dims.insert(out_dims.end(), dims.begin() + axis, dims.end());
  Tensor output = Tensor::uninitialized(values.dtype(), Shape(std::move(out_dims)));
  if (total == 0) return {output};

  int64_t inner = 1;
  for (int d = axis; d < rank; ++d) inner *= dims[d];
  // Output [outer, depth, inner]: off_value everywhere, then on_value at
  // (o, index, i) for the index at position (o, i) of `indices`.
  VisitDType(values.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T off = values.data<T>()[0];
    const T on = values.data<T>()[1];
    T* out = output.data<T>();
    std::fill(out, out + total, off);
    for (int64_t p = 0; p < count; ++p) {
      std::optional<int64_t> index = ElementAsInt64(indices, p);
      if (!index || *index < -*depth || *index >= *depth) continue;
      if (*index < 0) *index += *depth;
      out[(p / inner * *depth + *index) * inner + p % inner] = on;
    }
  });
  return {output};
}

}  // namespace loom::kernels
