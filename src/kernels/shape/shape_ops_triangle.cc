// Trilu and EyeLike: matrices defined by their diagonals. Both work on
// rows: a row of Trilu is one contiguous run of kept elements between two
// runs of zeros (memcpy and memset: the zero of every dtype is all-zero
// bytes); EyeLike writes at most one 1 per row of zeros.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/onnx_dtype.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "loom/bfloat16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {

std::vector<Tensor> TriluKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs) {
  constexpr std::string_view kOp = "Trilu";
  CheckInputCount(kOp, inputs, 1, 2);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  const int rank = input.shape().rank();
  if (rank < 2) {
    ThrowKernelError(
        kOp, "input 'input' must have rank >= 2 (got shape " + input.shape().to_string() + ")");
  }
  int64_t k = 0;
  if (const Tensor* k_input = OptionalInput(inputs, 1)) {
    CheckDType(kOp, "k", *k_input, {DType::kInt64});
    if (k_input->num_elements() != 1 || k_input->shape().rank() > 1) {
      ThrowKernelError(
          kOp, "input 'k' must be a scalar (got shape " + k_input->shape().to_string() + ")");
    }
    k = k_input->data<int64_t>()[0];
  }
  const bool upper = attrs.get_int("upper", 1) != 0;
  const int64_t rows = input.shape().dims()[rank - 2];
  const int64_t cols = input.shape().dims()[rank - 1];
  // Beyond +-(rows + cols) every k gives the same result; clamping keeps
  // i + k from overflowing.
  k = std::clamp(k, -(rows + cols), rows + cols);
  Tensor output = Tensor::uninitialized(input.dtype(), input.shape());
  if (output.num_elements() == 0) return {output};

  const auto element_size = static_cast<int64_t>(dtype_size(input.dtype()));
  const int64_t row_bytes = cols * element_size;
  const auto* in = static_cast<const std::byte*>(input.raw_data());
  auto* out = static_cast<std::byte*>(output.raw_data());
  // Serial loop replaced: for each row r (row i = r % rows of its matrix):
  // keep columns [first, last), zero the rest, where upper keeps j >= i + k
  // and lower keeps j <= i + k.
  threading::ParallelFor(ctx.pool, output.num_elements() / cols,
                         static_cast<double>(row_bytes) * shape_ops::kCopyNsPerByte + 2.0,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             const int64_t i = r % rows;
                             const int64_t first = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
                             const int64_t last =
                                 upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
                             std::byte* dst = out + r * row_bytes;
                             const std::byte* src = in + r * row_bytes;
                             std::memset(dst, 0, static_cast<size_t>(first * element_size));
                             std::memcpy(dst + first * element_size, src + first * element_size,
                                         static_cast<size_t>((last - first) * element_size));
                             std::memset(dst + last * element_size, 0,
                                         static_cast<size_t>((cols - last) * element_size));
                           }
                         });
  return {output};
}

std::vector<Tensor> EyeLikeKernel(const KernelContext& /*ctx*/, const Attributes& attrs,
                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "EyeLike";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  CheckRank(kOp, "input", input, 2);
  DType dtype = input.dtype();
  if (attrs.has("dtype")) {
    const int64_t code = attrs.get_int("dtype");
    const std::optional<DType> requested = DTypeFromOnnxDataType(code);
    if (!requested || *requested == DType::kString) {
      ThrowKernelError(kOp, "attribute 'dtype' = " + std::to_string(code) +
                                " is not a dtype Loom supports (1 FLOAT, 2 UINT8, 3 INT8, 6 "
                                "INT32, 7 INT64, 9 BOOL, 10 FLOAT16, 11 DOUBLE)");
    }
    dtype = *requested;
  }
  // Zero-filled; the input's shape already passed the allocation checks at
  // its own element size, and Tensor checks this one's bytes again.
  Tensor output(dtype, input.shape());
  const int64_t rows = input.shape().dims()[0];
  const int64_t cols = input.shape().dims()[1];
  const int64_t k = std::clamp<int64_t>(attrs.get_int("k", 0), -rows, cols);
  // Ones at (i, i + k) for the rows where 0 <= i + k < cols.
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    T one;
    if constexpr ((std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)) {
      one = T(1.0f);
    } else {
      one = T{1};
    }
    T* out = output.data<T>();
    for (int64_t i = std::max<int64_t>(0, -k); i < rows && i + k < cols; ++i) {
      out[i * cols + i + k] = one;
    }
  });
  return {output};
}

}  // namespace loom::kernels
