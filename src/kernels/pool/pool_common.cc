#include "kernels/pool/pool_common.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/int_math.h"

namespace loom::kernels {
namespace {

void CheckMinRank(std::string_view op, const Tensor& x, int min_rank, const char* what) {
  if (x.shape().rank() >= min_rank) return;
  ThrowKernelError(op, "input 'X' must have rank >= " + std::to_string(min_rank) + " (" + what +
                           ") (got shape " + x.shape().to_string() + ")");
}

// The product of `dims` (0 if any is 0); throws if it overflows int64.
int64_t PlaneSize(std::string_view op, const std::vector<int64_t>& dims) {
  const std::optional<int64_t> product = base::CheckedProduct(dims);
  if (!product) ThrowKernelError(op, "a spatial plane has more than 2^63 elements");
  return *product;
}

// The float32 pooling kernels: one row per ISA level with code of its own.
constexpr std::array<F32PoolKernels, 2> kF32PoolKernels = {{
    {Isa::kPortable, f32_max_pool_rows__portable, f32_average_pool_rows__portable,
     f32_global_max_pool__portable, f32_global_average_pool__portable},
    {Isa::kAvx2Fma, f32_max_pool_rows__avx2_fma, f32_average_pool_rows__avx2_fma,
     f32_global_max_pool__avx2_fma, f32_global_average_pool__avx2_fma},
}};

}  // namespace

PoolPlan MakePoolPlan(std::string_view op, const Attributes& attrs, const Tensor& x,
                      std::initializer_list<DType> dtypes, Shape* output_shape) {
  CheckDType(op, "X", x, dtypes);
  CheckMinRank(op, x, 3, "N, C and at least one spatial axis");
  const std::vector<int64_t>& dims = x.shape().dims();
  const std::vector<int64_t> spatial(dims.begin() + 2, dims.end());
  PoolPlan plan;
  plan.geometry = ResolveSpatialGeometry(op, attrs, spatial, {},
                                         SpatialGeometryOptions{.allow_ceil_mode = true});
  // Divisors and cost estimates multiply kernel sizes; refuse a product
  // that does not fit rather than wrap.
  plan.window_size = 1;
  for (int64_t k : plan.geometry.kernel) {
    if (__builtin_mul_overflow(plan.window_size, k, &plan.window_size)) {
      ThrowKernelError(op, "kernel_shape has more than 2^63 elements");
    }
  }
  std::vector<int64_t> out_dims = {dims[0], dims[1]};
  out_dims.insert(out_dims.end(), plan.geometry.output.begin(), plan.geometry.output.end());
  *output_shape = Shape(out_dims);  // throws if the element count overflows

  // With a spatial size of 0 the shape's element count cannot catch this.
  if (__builtin_mul_overflow(dims[0], dims[1], &plan.planes)) {
    ThrowKernelError(op, "N * C overflows int64 (got shape " + x.shape().to_string() + ")");
  }
  plan.plane_size = PlaneSize(op, spatial);
  plan.out_plane_size = PlaneSize(op, plan.geometry.output);
  const int64_t out_w = plan.geometry.output.back();
  plan.rows_per_plane = out_w == 0 ? 0 : plan.out_plane_size / out_w;
  plan.count_include_pad = false;
  plan.column_major_indices = false;
  return plan;
}

int64_t MakeGlobalPoolPlanes(std::string_view op, const Tensor& x,
                             std::initializer_list<DType> dtypes, Shape* output_shape) {
  CheckDType(op, "X", x, dtypes);
  CheckMinRank(op, x, 2, "N and C");
  const std::vector<int64_t>& dims = x.shape().dims();
  std::vector<int64_t> out_dims(dims.size(), 1);
  out_dims[0] = dims[0];
  out_dims[1] = dims[1];
  for (size_t i = 2; i < dims.size(); ++i) {
    if (dims[i] == 0) {
      ThrowKernelError(op, "input 'X' must have a non-empty spatial extent (got shape " +
                               x.shape().to_string() + ")");
    }
  }
  *output_shape = Shape(out_dims);
  return output_shape->num_elements();
}

RowWindows::RowWindows(const PoolPlan& plan) : g_(plan.geometry) {
  const int rank = g_.rank();
  last_ = rank - 1;
  in_stride_.assign(rank, 1);
  for (int i = rank - 2; i >= 0; --i) in_stride_[i] = in_stride_[i + 1] * g_.input[i + 1];
  index_stride_ = in_stride_;
  if (plan.column_major_indices) {
    index_stride_[0] = 1;
    for (int i = 1; i < rank; ++i) index_stride_[i] = index_stride_[i - 1] * g_.input[i - 1];
  }
  coords_.assign(rank, 0);
  in_w = g_.input[last_];
  out_w = g_.output[last_];
  k = g_.kernel[last_];
  s = g_.stride[last_];
  d = g_.dilation[last_];
  pb = g_.pad_begin[last_];
  pe = g_.pad_end[last_];
  index_step = index_stride_[last_];
  lo = std::min(out_w, (pb + s - 1) / s);
  const int64_t last_start = in_w - 1 - (k - 1) * d + pb;  // of the last interior window
  hi = last_start < 0 ? 0 : last_start / s + 1;
  hi = std::max(lo, std::min(hi, out_w));
  scratch_.resize(static_cast<size_t>(hi - lo));
  scratch = scratch_.data();

  // Memoize Prepare where all of a plane's tap rows fit in 1 MiB (an
  // arbitrary bound: well above 2-D pools, which need rows * kernel[0]).
  constexpr int64_t kMaxMemoTaps = (int64_t{1} << 20) / sizeof(TapRow);
  int64_t taps_per_row = 1;
  for (int i = 0; i < last_; ++i) {
    if (__builtin_mul_overflow(taps_per_row, g_.kernel[i], &taps_per_row)) return;
  }
  int64_t max_taps = 0;
  if (__builtin_mul_overflow(taps_per_row, plan.rows_per_plane, &max_taps)) return;
  if (max_taps <= kMaxMemoTaps) memo_.resize(static_cast<size_t>(plan.rows_per_plane));
}

RowWindows::~RowWindows() = default;

void RowWindows::Prepare(int64_t row) {
  MemoRow* memo = memo_.empty() ? nullptr : &memo_[static_cast<size_t>(row)];
  if (memo != nullptr && memo->first >= 0) {
    taps = memo_taps_.data() + memo->first;
    num_taps = memo->count;
    outer_pad_count = memo->outer_pad_count;
    return;
  }
  for (int i = last_ - 1; i >= 0; --i) {
    coords_[i] = row % g_.output[i];
    row /= g_.output[i];
  }
  taps_.assign(1, TapRow{0, 0});
  outer_pad_count = 1;
  for (int i = 0; i < last_; ++i) {
    const int64_t start = coords_[i] * g_.stride[i] - g_.pad_begin[i];
    next_.clear();
    for (const TapRow& tap : taps_) {
      for (int64_t t = 0; t < g_.kernel[i]; ++t) {
        const int64_t p = start + t * g_.dilation[i];
        if (p >= 0 && p < g_.input[i]) {
          next_.push_back({tap.offset + p * in_stride_[i], tap.index + p * index_stride_[i]});
        }
      }
    }
    int64_t in_padded = 0;
    for (int64_t t = 0; t < g_.kernel[i]; ++t) {
      const int64_t p = start + t * g_.dilation[i];
      if (p >= -g_.pad_begin[i] && p < g_.input[i] + g_.pad_end[i]) ++in_padded;
    }
    std::swap(taps_, next_);
    outer_pad_count *= in_padded;
  }
  taps = taps_.data();
  num_taps = static_cast<int64_t>(taps_.size());
  if (memo != nullptr) {
    memo->first = static_cast<int64_t>(memo_taps_.size());
    memo->count = num_taps;
    memo->outer_pad_count = outer_pad_count;
    memo_taps_.insert(memo_taps_.end(), taps_.begin(), taps_.end());
  }
}

const F32PoolKernels& F32PoolKernelsFor(std::string_view op, Isa isa) {
  return SelectIsaVariant(op, kF32PoolKernels, isa);
}

IsaMask F32PoolIsaLevels() { return IsaVariantLevels(kF32PoolKernels); }

}  // namespace loom::kernels
