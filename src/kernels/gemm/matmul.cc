#include "kernels/gemm/matmul.h"

#include <algorithm>
#include <string>

#include "kernels/fused_activation.h"
#include "kernels/gemm/matmul_shapes.h"
#include "threading/parallel_for.h"
#include "threading/thread_pool.h"

namespace loom::kernels {
namespace {

// The epilogue of Gemm and FusedMatMul: + bias[col] (when present), then
// the activation, on each finished piece of C.
struct BiasActivationEpilogue {
  const float* bias;  // n values, or null
  Activation activation;
  Isa isa;
  static void Apply(const void* state, float* c, int64_t, int64_t col, int64_t count) {
    const auto* self = static_cast<const BiasActivationEpilogue*>(state);
    if (self->bias != nullptr) {
      const float* b = self->bias + col;
      for (int64_t j = 0; j < count; ++j) c[j] += b[j];
    }
    if (self->activation.kind != ActivationKind::kIdentity) {
      ApplyActivation(self->activation, c, count, self->isa);
    }
  }
  // The GemmEpilogue running this one; none when there is nothing to do.
  GemmEpilogue Get() const {
    if (bias == nullptr && activation.kind == ActivationKind::kIdentity) return {};
    return {&Apply, this};
  }
};

// Row chunks per batch for a batched product (B has batch dimensions):
// the fewest that give `threads` an even share of batches x chunks (units a
// multiple of the thread count, or at least four per thread), with every
// chunk at least kMinChunkRows rows. More rows than any few-row threshold
// keep every chunk on the packed GEMM path, whose bits do not depend on how
// rows are split, so the result is the same for every thread count.
constexpr int64_t kMinChunkRows = 64;
int64_t RowChunks(int64_t batches, int64_t m, int threads) {
  const int64_t most = std::max<int64_t>(1, m / kMinChunkRows);
  int64_t chunks = 1;
  auto balanced = [&] {
    const int64_t units = batches * chunks;
    return units % threads == 0 || units >= 4 * threads;
  };
  while (chunks < most && !balanced()) ++chunks;
  return chunks;
}

// float32 MatMul: one GEMM when A's batch folds into M (B has no batch),
// else units of (batch, row chunk), each one GEMM on one thread: attention's
// 12 heads of 128 x 64 x 128 took one fork-join per head when each GEMM was
// split over the pool, and ran slower at two threads than at one. Only when
// there are fewer units than threads does each unit's GEMM fork again.
Tensor F32MatMul(const KernelContext& ctx, const Tensor& a, const Tensor& b,
                 const PackedGemmMatrix* packed_b, GemmEpilogue epilogue = {}) {
  const MatMulShapes s = ResolveMatMulShapes("MatMul", a.shape(), b.shape());
  Tensor y = Tensor::uninitialized(DType::kFloat32, Shape(s.output));
  if (y.num_elements() == 0) return y;
  GemmArgs g;
  g.n = s.n;
  g.k = s.k;
  g.lda = std::max<int64_t>(s.k, 1);
  g.ldb = std::max<int64_t>(s.n, 1);
  g.ldc = s.n;
  g.epilogue = epilogue;
  if (!s.b_has_batch) {
    g.m = s.m * static_cast<int64_t>(s.a_offset.size());
    g.a = a.data<float>();
    g.b = b.data<float>();
    g.packed_b = packed_b;
    g.c = y.data<float>();
    f32_gemm(g, ctx.pool, ctx.isa);
    return y;
  }
  const int64_t batches = static_cast<int64_t>(s.a_offset.size());
  const int threads = threading::MaxParallelism(ctx.pool);
  const int64_t chunks = RowChunks(batches, s.m, threads);
  const int64_t units = batches * chunks;
  threading::ThreadPool* inner_pool = units < threads ? ctx.pool : nullptr;
  const double unit_flops =
      2.0 * static_cast<double>(s.m * s.n * s.k) / static_cast<double>(chunks);
  threading::ParallelFor(ctx.pool, units, unit_flops / 40, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t batch = unit / chunks, chunk = unit % chunks;
      const int64_t row0 = s.m * chunk / chunks, row1 = s.m * (chunk + 1) / chunks;
      GemmArgs one = g;
      one.m = row1 - row0;
      one.a = a.data<float>() + s.a_offset[static_cast<size_t>(batch)] + row0 * s.k;
      one.b = b.data<float>() + s.b_offset[static_cast<size_t>(batch)];
      one.c = y.data<float>() + (batch * s.m + row0) * s.n;
      f32_gemm(one, inner_pool, ctx.isa);
    }
  });
  return y;
}

// The other dtypes: a plain loop, parallel over output rows.
template <typename T>
Tensor GenericMatMul(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  const MatMulShapes s = ResolveMatMulShapes("MatMul", a.shape(), b.shape());
  Tensor y(a.dtype(), Shape(s.output));
  const T* ap = a.data<T>();
  const T* bp = b.data<T>();
  T* yp = y.data<T>();
  const int64_t rows = static_cast<int64_t>(s.a_offset.size()) * s.m;
  threading::ParallelFor(
      ctx.pool, rows, static_cast<double>(s.n * s.k), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const size_t batch = static_cast<size_t>(r / std::max<int64_t>(s.m, 1));
          const T* arow = ap + s.a_offset[batch] + (r % s.m) * s.k;
          const T* bmat = bp + s.b_offset[batch];
          T* out = yp + r * s.n;
          std::fill(out, out + s.n, T{0});
          for (int64_t p = 0; p < s.k; ++p) {
            // Unsigned multiply-add: wraps instead of UB.
            for (int64_t j = 0; j < s.n; ++j) {
              if constexpr (std::is_integral_v<T>) {
                using U = std::make_unsigned_t<T>;
                out[j] =
                    static_cast<T>(static_cast<U>(out[j]) +
                                   static_cast<U>(arow[p]) * static_cast<U>(bmat[p * s.n + j]));
              } else {
                out[j] += arow[p] * bmat[p * s.n + j];
              }
            }
          }
        }
      });
  return y;
}

// Gemm's dimensions and the checks on A, B and C.
struct GemmShapes {
  int64_t m, n, k;
  bool ta, tb;
};

GemmShapes CheckGemm(const Attributes& attrs, const Tensor& a, const Tensor& b, const Tensor* c) {
  CheckDType("Gemm", "A", a, {DType::kFloat32});
  CheckDType("Gemm", "B", b, {DType::kFloat32});
  CheckRank("Gemm", "A", a, 2);
  CheckRank("Gemm", "B", b, 2);
  GemmShapes s;
  s.ta = attrs.get_int("transA", 0) != 0;
  s.tb = attrs.get_int("transB", 0) != 0;
  s.m = a.shape().dim(s.ta ? 1 : 0);
  s.k = a.shape().dim(s.ta ? 0 : 1);
  s.n = b.shape().dim(s.tb ? 0 : 1);
  const int64_t kb = b.shape().dim(s.tb ? 1 : 0);
  if (kb != s.k) {
    ThrowKernelError("Gemm", "inner dimensions differ: op(A) of A " + a.shape().to_string() +
                                 " has K = " + std::to_string(s.k) + ", op(B) of B " +
                                 b.shape().to_string() + " has K = " + std::to_string(kb));
  }
  if (c != nullptr) {
    CheckDType("Gemm", "C", *c, {DType::kFloat32});
    const std::vector<int64_t>& d = c->shape().dims();
    const bool ok = d.size() <= 2 && (d.empty() || d.back() == 1 || d.back() == s.n) &&
                    (d.size() < 2 || d[0] == 1 || d[0] == s.m);
    if (!ok) {
      ThrowKernelError("Gemm", "input 'C' of shape " + c->shape().to_string() +
                                   " does not broadcast to [" + std::to_string(s.m) + ", " +
                                   std::to_string(s.n) + "]");
    }
  }
  return s;
}

Tensor F32Gemm(const KernelContext& ctx, const Attributes& attrs, const Tensor& a, const Tensor& b,
               const Tensor* c, const PackedGemmMatrix* packed_b) {
  const GemmShapes s = CheckGemm(attrs, a, b, c);
  const float alpha = attrs.get_float("alpha", 1.0f);
  const float beta = attrs.get_float("beta", 1.0f);
  Tensor y = Tensor::uninitialized(DType::kFloat32, Shape({s.m, s.n}));
  if (y.num_elements() == 0) return y;
  float* yp = y.data<float>();
  const bool use_c = c != nullptr && beta != 0.0f && c->num_elements() > 0;
  // A C of one row ([N], [1, N]; a layer's bias) with beta 1 is added by the
  // epilogue, like FusedMatMul's bias, instead of this serial broadcast.
  const bool c_is_bias =
      use_c && beta == 1.0f && c->num_elements() == s.n && c->shape().dims().back() == s.n;
  if (use_c && !c_is_bias) {
    // Y = beta * C, broadcast; the GEMM then accumulates onto it.
    const std::vector<int64_t>& d = c->shape().dims();
    const int64_t row_stride = d.size() == 2 && d[0] != 1 ? (d.back() == 1 ? 1 : s.n) : 0;
    const int64_t col_stride = !d.empty() && d.back() != 1 ? 1 : 0;
    const float* cp = c->data<float>();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j)
        yp[i * s.n + j] = beta * cp[i * row_stride + j * col_stride];
    }
  }
  const BiasActivationEpilogue epilogue{c_is_bias ? c->data<float>() : nullptr,
                                        FusedActivationFromAttributes("Gemm", attrs), ctx.isa};
  GemmArgs g;
  g.m = s.m;
  g.n = s.n;
  g.k = s.k;
  g.transpose_a = s.ta;
  g.transpose_b = s.tb;
  g.alpha = alpha;
  g.beta = use_c && !c_is_bias ? 1.0f : 0.0f;
  g.a = a.data<float>();
  g.lda = std::max<int64_t>(1, a.shape().dim(1));
  g.b = b.data<float>();
  g.ldb = std::max<int64_t>(1, b.shape().dim(1));
  g.c = yp;
  g.ldc = s.n;
  g.packed_b = packed_b;
  g.epilogue = epilogue.Get();
  f32_gemm(g, ctx.pool, ctx.isa);
  return y;
}

// A 2-D float32 matrix transposed into a new contiguous tensor.
Tensor TransposedCopy(const Tensor& b) {
  const int64_t rows = b.shape().dim(0);
  const int64_t cols = b.shape().dim(1);
  Tensor t(DType::kFloat32, {cols, rows});
  const float* src = b.data<float>();
  float* dst = t.data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
  }
  return t;
}

}  // namespace

namespace {

class PreparedMatMulKernel : public PreparedKernel {
 public:
  PreparedMatMulKernel(std::string op, PreparedMatMul matmul)
      : op_(std::move(op)), matmul_(std::move(matmul)) {}
  std::vector<Tensor> Run(const KernelContext& ctx, KernelInputs inputs) const override {
    return {matmul_.Run(ctx, RequiredInput(op_, inputs, 0, "A"), OptionalInput(inputs, 2))};
  }
  const char* kind() const override { return "prepared matmul"; }

 private:
  std::string op_;
  PreparedMatMul matmul_;
};

std::unique_ptr<PreparedKernel> PrepareConstantB(std::string_view op, const PrepareArgs& args) {
  const Tensor* b = args.constant(1);
  if (b == nullptr || b->dtype() != DType::kFloat32 || b->shape().rank() != 2) return nullptr;
  return std::make_unique<PreparedMatMulKernel>(std::string(op),
                                                PreparedMatMul(op, args.attrs, *b, args.isa));
}

}  // namespace

std::unique_ptr<PreparedKernel> PrepareMatMul(const PrepareArgs& args) {
  return args.num_inputs() == 2 ? PrepareConstantB("MatMul", args) : nullptr;
}

std::unique_ptr<PreparedKernel> PrepareFusedMatMul(const PrepareArgs& args) {
  return args.num_inputs() <= 3 ? PrepareConstantB("FusedMatMul", args) : nullptr;
}

std::unique_ptr<PreparedKernel> PrepareGemm(const PrepareArgs& args) {
  return args.num_inputs() <= 3 ? PrepareConstantB("Gemm", args) : nullptr;
}

std::vector<Tensor> MatMulKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  CheckInputCount("MatMul", inputs, 2, 2);
  const Tensor& a = RequiredInput("MatMul", inputs, 0, "A");
  const Tensor& b = RequiredInput("MatMul", inputs, 1, "B");
  CheckDType("MatMul", "A", a,
             {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kUInt32, DType::kInt64,
              DType::kUInt64});
  CheckDType("MatMul", "B", b, {a.dtype()});
  switch (a.dtype()) {
    case DType::kFloat32:
      return {F32MatMul(ctx, a, b, nullptr)};
    case DType::kFloat64:
      return {GenericMatMul<double>(ctx, a, b)};
    case DType::kInt32:
      return {GenericMatMul<int32_t>(ctx, a, b)};
    case DType::kUInt32:
      return {GenericMatMul<uint32_t>(ctx, a, b)};
    case DType::kUInt64:
      return {GenericMatMul<uint64_t>(ctx, a, b)};
    default:
      return {GenericMatMul<int64_t>(ctx, a, b)};
  }
}

namespace {

// FusedMatMul on float32 A, 2-D B (packed when `packed_b` is set) and an
// optional bias [N].
Tensor F32FusedMatMul(const KernelContext& ctx, const Attributes& attrs, const Tensor& a,
                      const Tensor& b, const Tensor* bias, const PackedGemmMatrix* packed_b) {
  CheckDType("FusedMatMul", "A", a, {DType::kFloat32});
  CheckDType("FusedMatMul", "B", b, {DType::kFloat32});
  CheckRank("FusedMatMul", "B", b, 2);
  const int64_t n = b.shape().dim(1);
  if (bias != nullptr) {
    CheckDType("FusedMatMul", "bias", *bias, {DType::kFloat32});
    if (bias->shape().rank() != 1 || bias->shape().dim(0) != n) {
      ThrowKernelError("FusedMatMul", "bias of shape " + bias->shape().to_string() + " must be [" +
                                          std::to_string(n) + "] (B is " + b.shape().to_string() +
                                          ")");
    }
  }
  const BiasActivationEpilogue epilogue{bias != nullptr ? bias->data<float>() : nullptr,
                                        FusedActivationFromAttributes("FusedMatMul", attrs),
                                        ctx.isa};
  return F32MatMul(ctx, a, b, packed_b, epilogue.Get());
}

}  // namespace

std::vector<Tensor> FusedMatMulKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs) {
  CheckInputCount("FusedMatMul", inputs, 2, 3);
  return {F32FusedMatMul(ctx, attrs, RequiredInput("FusedMatMul", inputs, 0, "A"),
                         RequiredInput("FusedMatMul", inputs, 1, "B"), OptionalInput(inputs, 2),
                         nullptr)};
}

std::vector<Tensor> GemmKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  CheckInputCount("Gemm", inputs, 2, 3);
  return {F32Gemm(ctx, attrs, RequiredInput("Gemm", inputs, 0, "A"),
                  RequiredInput("Gemm", inputs, 1, "B"), OptionalInput(inputs, 2), nullptr)};
}

PreparedMatMul::PreparedMatMul(std::string_view op, const Attributes& attrs, const Tensor& b,
                               Isa isa)
    : op_(op), attrs_(attrs), b_(b), isa_(isa) {
  if (op_ != "MatMul" && op_ != "FusedMatMul" && op_ != "Gemm")
    ThrowKernelError(op, "PreparedMatMul handles MatMul, FusedMatMul and Gemm only");
  CheckDType(op, "B", b, {DType::kFloat32});
  if (b.shape().rank() != 2) return;  // 1-D or batched B: nothing to pack
  bool tb = op_ == "Gemm" && attrs.get_int("transB", 0) != 0;
  if (tb) {
    // Store B as [K, N] once: the few-row path (m <= 16..64, e.g. batch-1
    // inference) streams an untransposed B and cannot read a transposed
    // one; with transB it fell back to the packed micro-kernel, which wastes
    // all but one of its 6-12 rows at m = 1 (MLP 1024x1024: 118 µs vs 50).
    b_ = TransposedCopy(b);
    attrs_.set("transB", int64_t{0});
    tb = false;
  }
  GemmArgs g;
  g.k = b_.shape().dim(tb ? 1 : 0);
  g.n = b_.shape().dim(tb ? 0 : 1);
  g.transpose_b = tb;
  g.b = b_.data<float>();
  g.ldb = std::max<int64_t>(1, b_.shape().dim(1));
  if (g.k > 0 && g.n > 0) packed_b_.emplace(PackedGemmMatrix::PackB(g, isa));
}

Tensor PreparedMatMul::Run(const KernelContext& ctx, const Tensor& a, const Tensor* c) const {
  if (ctx.isa != isa_) {
    ThrowKernelError(op_, "prepared for ISA " + std::string(IsaName(isa_)) + ", run with " +
                              std::string(IsaName(ctx.isa)));
  }
  const PackedGemmMatrix* packed = packed_b_ ? &*packed_b_ : nullptr;
  if (op_ == "Gemm") return F32Gemm(ctx, attrs_, a, b_, c, packed);
  if (op_ == "FusedMatMul") return F32FusedMatMul(ctx, attrs_, a, b_, c, packed);
  CheckDType("MatMul", "A", a, {DType::kFloat32});
  // The packed B fits only when A's batch folds into M (B is 2-D here).
  return F32MatMul(ctx, a, b_, packed);
}

}  // namespace loom::kernels
