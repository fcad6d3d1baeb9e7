#include "kernels/conv/conv.h"

#include <memory>
#include <string>

#include "base/aligned_buffer.h"
#include "base/int_math.h"
#include "kernels/conv/conv_depthwise.h"
#include "kernels/conv/conv_im2col.h"
#include "kernels/fused_activation.h"
#include "kernels/spatial_geometry.h"
#include "threading/parallel_for.h"
#include "threading/thread_pool.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "Conv";

// Output channels per group up to which the GEMM may use its few-row path.
constexpr int64_t kFewRowsMax = 16;

// Groups whose GEMM is below this many flops run one per thread even when
// there are few of them per thread (RunGemm); ~100 us of work at one core's
// speed. ParallelFor's cost estimate for them: ~50 GFLOP/s.
constexpr double kSmallGroupFlops = 4e6;
constexpr double kNsPerFlop = 0.02;

// Bias plus activation on a finished piece of a GEMM output row; `row` is
// the output channel within the group, so bias already points at the group.
struct ConvEpilogue {
  const float* bias;
  Activation activation;
  Isa isa;

  static void Apply(const void* state, float* c, int64_t row, int64_t, int64_t count) {
    const auto* self = static_cast<const ConvEpilogue*>(state);
    const float b = self->bias[row];
    if (b != 0.0f) {
      for (int64_t j = 0; j < count; ++j) c[j] += b;
    }
    if (self->activation.kind != ActivationKind::kIdentity) {
      ApplyActivation(self->activation, c, count, self->isa);
    }
  }
};

// im2col space, kept per calling thread and only grown (as GEMM's packing
// buffers are): a fresh zero-filled buffer per call costs page faults.
float* Im2ColScratch(size_t floats) {
  thread_local base::GrowOnlyBuffer buffer;
  return buffer.Floats(floats);
}

}  // namespace

PreparedConv::PreparedConv(const Attributes& attrs, const Tensor& weights, const Tensor* bias,
                           Isa isa)
    : attrs_(attrs), weights_(weights), isa_(isa) {
  CheckDType(kOp, "W", weights, {DType::kFloat32});
  const int rank = weights.shape().rank();
  if (rank < 3 || rank > 5) {
    ThrowKernelError(kOp, "input 'W' must have rank 3 to 5 ([M, C/group, kernel...]) (got shape " +
                              weights.shape().to_string() + ")");
  }
  group_ = attrs.get_int("group", 1);
  out_channels_ = weights.shape().dim(0);
  in_channels_per_group_ = weights.shape().dim(1);
  if (group_ < 1 || out_channels_ % group_ != 0) {
    ThrowKernelError(kOp, "group " + std::to_string(group_) +
                              " must be positive and divide the output channels of 'W' (shape " +
                              weights.shape().to_string() + ")");
  }
  kernel_.assign(weights.shape().dims().begin() + 2, weights.shape().dims().end());
  bias_.assign(static_cast<size_t>(out_channels_), 0.0f);
  if (bias != nullptr) {
    CheckDType(kOp, "B", *bias, {DType::kFloat32});
    if (bias->shape().rank() != 1 || bias->shape().dim(0) != out_channels_) {
      ThrowKernelError(kOp, "input 'B' must have shape [" + std::to_string(out_channels_) +
                                "] (got shape " + bias->shape().to_string() + ")");
    }
    std::copy(bias->data<float>(), bias->data<float>() + out_channels_, bias_.begin());
  }
  activation_ = FusedActivationFromAttributes(kOp, attrs);
  // Validate the geometry attributes now (against a large enough input), so
  // a bad attribute fails at prepare time.
  std::vector<int64_t> probe(kernel_.size(), 1 << 20);
  ResolveSpatialGeometry(kOp, attrs_, probe, kernel_);

  const bool depthwise =
      in_channels_per_group_ == 1 && out_channels_ == group_ && kernel_.size() == 2;
  if (depthwise) return;
  const int64_t rows = out_channels_ / group_;
  const int64_t depth = in_channels_per_group_ * base::Product(kernel_);
  for (int64_t g = 0; g < group_ && rows > 0 && depth > 0; ++g) {
    GemmArgs a;
    a.m = rows;
    a.k = depth;
    a.a = weights.data<float>() + g * rows * depth;
    a.lda = depth;
    packed_.push_back(PackedGemmMatrix::PackA(a, isa));
  }
}

Tensor PreparedConv::Run(const KernelContext& ctx, const Tensor& x) const {
  if (ctx.isa != isa_) {
    ThrowKernelError(kOp, "prepared for ISA " + std::string(IsaName(isa_)) + ", run with " +
                              std::string(IsaName(ctx.isa)));
  }
  CheckDType(kOp, "X", x, {DType::kFloat32});
  CheckRank(kOp, "X", x, static_cast<int>(kernel_.size()) + 2);
  const int64_t channels = x.shape().dim(1);
  if (channels != in_channels_per_group_ * group_) {
    ThrowKernelError(kOp, "input 'X' has " + std::to_string(channels) + " channels (shape " +
                              x.shape().to_string() + ") but 'W' (shape " +
                              weights_.shape().to_string() + ") with group " +
                              std::to_string(group_) + " expects " +
                              std::to_string(in_channels_per_group_ * group_));
  }
  const std::vector<int64_t> spatial(x.shape().dims().begin() + 2, x.shape().dims().end());
  const SpatialGeometry geometry = ResolveSpatialGeometry(kOp, attrs_, spatial, kernel_);
  std::vector<int64_t> out_dims = {x.shape().dim(0), out_channels_};
  out_dims.insert(out_dims.end(), geometry.output.begin(), geometry.output.end());
  Tensor y = Tensor::uninitialized(DType::kFloat32, Shape(out_dims));
  if (y.num_elements() == 0) return y;
  if (packed_.empty() && in_channels_per_group_ == 1 && out_channels_ == group_ &&
      kernel_.size() == 2) {
    RunDepthwise(ctx, x, y, geometry);
  } else {
    RunGemm(ctx, x, y, geometry);
  }
  return y;
}

void PreparedConv::RunDepthwise(const KernelContext& ctx, const Tensor& x, Tensor& y,
                                const SpatialGeometry& geometry) const {
  DepthwiseConv2d(x.data<float>(), weights_.data<float>(), bias_.data(), x.shape().dim(0) * group_,
                  group_, geometry, activation_, isa_, y.data<float>(), ctx.pool);
}

void PreparedConv::RunGemm(const KernelContext& ctx, const Tensor& x, Tensor& y,
                           const SpatialGeometry& geometry) const {
  const int64_t batch = x.shape().dim(0);
  const int64_t rows = out_channels_ / group_;
  const int64_t depth = in_channels_per_group_ * base::Product(kernel_);
  const int64_t in_plane = base::Product(geometry.input);
  const int64_t positions = base::Product(geometry.output);
  bool pointwise = true;
  for (int a = 0; a < geometry.rank(); ++a) {
    pointwise = pointwise && geometry.kernel[a] == 1 && geometry.stride[a] == 1 &&
                geometry.pad_begin[a] == 0 && geometry.pad_end[a] == 0;
  }
  float* col = nullptr;
  if (!pointwise) {
    // depth and positions are each bounded by a tensor's size, their
    // product is not: check it before allocating.
    int64_t floats = 0;
    if (__builtin_mul_overflow(depth, positions, &floats) ||
        floats > kMaxTensorBytes / static_cast<int64_t>(sizeof(float))) {
      ThrowKernelError(
          kOp, "the im2col buffer of " + std::to_string(depth) + " x " + std::to_string(positions) +
                   " floats exceeds Loom's tensor size limit (input 'X' shape " +
                   x.shape().to_string() + ", 'W' shape " + weights_.shape().to_string() + ")");
    }
    col = Im2ColScratch(static_cast<size_t>(floats));
  }
  const float* in = x.data<float>();
  float* out = y.data<float>();
  // One image and group: im2col (unless pointwise), then GEMM with the bias
  // and activation in its epilogue, each split over `pool` (null: inline).
  auto run_group = [&](int64_t n, int64_t g, float* scratch, threading::ThreadPool* pool) {
    const float* group_in = in + (n * group_ + g) * in_channels_per_group_ * in_plane;
    if (!pointwise) Im2Col(group_in, in_channels_per_group_, geometry, scratch, pool);
    ConvEpilogue epilogue{bias_.data() + g * rows, activation_, isa_};
    GemmArgs args;
    args.m = rows;
    args.n = positions;
    args.k = depth;
    // The raw weights let f32_gemm take its few-row path, which streams B
    // once per group of rows: right for M <= 16, but for the wide B of a
    // convolution (im2col, HW columns) packing wins beyond that — at M = 64
    // on a 56x56 layer, 31 GFLOP/s few-row vs 39 packed (AVX-512, Zen 4).
    args.a = rows <= kFewRowsMax ? weights_.data<float>() + g * rows * depth : nullptr;
    args.lda = std::max<int64_t>(depth, 1);
    args.packed_a = packed_.empty() ? nullptr : &packed_[static_cast<size_t>(g)];
    args.b = pointwise ? group_in : scratch;
    args.ldb = positions;
    args.c = out + (n * out_channels_ + g * rows) * positions;
    args.ldc = positions;
    args.epilogue = {&ConvEpilogue::Apply, &epilogue};
    f32_gemm(args, pool, isa_);
  };
  // Many small groups (ResNeXt's 32 of 4-8 channels) go one whole group per
  // thread: split inside, each group's two steps were too small to share
  // (ResNeXt-50's 4-channel layers took 1.25 ms at two threads, 0.82 ms at
  // one, on Zen 4). Results do not depend on the split: the GEMM is
  // bit-exact across thread counts.
  const int64_t units = batch * group_;
  const int64_t threads = ctx.pool != nullptr ? ctx.pool->num_threads() + 1 : 1;
  const double group_flops = 2.0 * static_cast<double>(rows * depth * positions);
  if (group_ > 1 && threads > 1 && units >= threads &&
      (units >= 4 * threads || group_flops < kSmallGroupFlops)) {
    const double cost = group_flops * kNsPerFlop + (pointwise ? 0.0 : depth * positions * 0.3);
    threading::ParallelFor(ctx.pool, units, cost, [&](int64_t begin, int64_t end) {
      float* scratch = pointwise ? nullptr : Im2ColScratch(static_cast<size_t>(depth * positions));
      for (int64_t u = begin; u < end; ++u) run_group(u / group_, u % group_, scratch, nullptr);
    });
    return;
  }
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < group_; ++g) run_group(n, g, col, ctx.pool);
  }
}

namespace {

class PreparedConvKernel : public PreparedKernel {
 public:
  explicit PreparedConvKernel(PreparedConv conv) : conv_(std::move(conv)) {}
  std::vector<Tensor> Run(const KernelContext& ctx, KernelInputs inputs) const override {
    return {conv_.Run(ctx, RequiredInput(kOp, inputs, 0, "X"))};
  }
  const char* kind() const override { return "prepared conv"; }

 private:
  PreparedConv conv_;
};

}  // namespace

std::unique_ptr<PreparedKernel> PrepareConv(const PrepareArgs& args) {
  if (!args.HasConstantFloatWeights(3)) return nullptr;
  return std::make_unique<PreparedConvKernel>(
      PreparedConv(args.attrs, *args.constant(1), args.constant(2), args.isa));
}

std::vector<Tensor> ConvKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& w = RequiredInput(kOp, inputs, 1, "W");
  PreparedConv conv(attrs, w, OptionalInput(inputs, 2), ctx.isa);
  return {conv.Run(ctx, x)};
}

}  // namespace loom::kernels
