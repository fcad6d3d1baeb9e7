// Packed GEMM driver (Goto/BLIS structure):
//
//   for each k block of kc:             pack op(A)[:, block] into MR-row panels
//     for each n block of kNc columns:  pack op(B)[block, cols] into NR-col panels
//       ParallelFor over tiles (row panels x column panels):
//         micro-kernel per MR x NR tile, accumulating into C
//
// C is first set to beta * C + bias, so every k block only accumulates; the
// epilogue runs on each tile after its last k block. Prepacked operands
// (PackedGemmMatrix) hold every k block's panels back to back: block pc
// starts at pc * (padded m or padded n) floats, and within it panel r of A
// (q of B) starts at r * MR * kc (q * NR * kc) — the layout the per-call
// packing below produces for one block.
// Parallelism comes from the caller's pool through ParallelFor only.
#include "kernels/gemm/gemm.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "base/aligned_buffer.h"
#include "base/int_math.h"
#include "kernels/gemm/gemm_micro_kernel.h"
#include "kernels/gemm/gemm_skinny.h"
#include "kernels/isa_variant.h"
#include "loom/errors.h"
#include "threading/parallel_for.h"
#include "threading/thread_pool.h"

namespace loom::kernels {
namespace {

struct MicroKernelEntry {
  Isa isa;
  bool narrow;  // the 256-bit packed kernel at the AVX-512 level
  int mr;
  int nr;
  int64_t kc;  // depth of a k block: the kc x NR B panel should stay in L1
  GemmMicroKernel run;
  // The same tile reading A in place (row-major, not transposed), or null.
  GemmRowsMicroKernel run_rows;
  GemmSkinnyKernel skinny;
  // Up to this many rows of C (B not transposed) the skinny kernel beats
  // packing, which costs a full extra pass over B that few rows of A do not
  // amortize. Measured on Zen 4 (k = n = 512..4096, one thread): AVX-512
  // skinny 83-85 GFLOP/s vs packed (6x16, the kernel Zen 4 uses) 62-63 at
  // m = 64 (k = n = 1024); AVX2 skinny falls behind packed above 16 rows
  // (36 vs 79 at m = 128). On the Intel AVX-512 Xeon the 12x32 kernel wins
  // from 32 rows even with B packed per call (k = n = 1024, skinny vs
  // packed: m = 16 36-40 vs 40-42, m = 32 39 vs 65, m = 64 36-37 vs 73-75;
  // 64 x 128 x 128: 39 vs 73), hence 16 for that row.
  int64_t skinny_max_rows;
  // The same when B comes prepacked (constant weights): no packing pass to
  // save, so the packed kernel wins from a few rows on. Measured on an
  // AVX-512 Xeon (k = n = 1024, one thread, GFLOP/s skinny vs packed, host
  // busy with builds, so two runs each):
  // m = 4 26-29 vs 20-22, m = 8 28-30 vs 42-43, m = 64 27-28 vs 57-72
  // (bench/results/transformers-2026-12-01.md).
  int64_t skinny_max_rows_packed_b;
  // One row of A (m = 1) streams whole rows of B through this, when set.
  GemvRowsKernel gemv_rows;
  // One row of A against a prepacked B (constant weights), when set.
  GemvPackedKernel gemv_packed;
};

// The GEMM kernel registry: one row per ISA level, two for AVX-512: the
// 12x32 kernel, which every AVX-512 CPU uses, and the 6x16 AVX2 one
// (Avx512Packing::kNarrow, tests only). Zen 4, which runs 512-bit operations
// as two halves, used the 6x16 one until 2026-12-04: it wins when operands
// are hot (SGEMM 1024^3 100 vs 93 GFLOP/s, bench/results/kernels-2026-11-29.md;
// 128 x 384 x 384 with B prepacked 111 vs 108), but in a model the weights
// come from L3, and there the 12x32 kernel, which loads half as many B bytes
// per FMA, was 10-12 % faster: MiniLM at 128 tokens 22.7 -> 19.8 ms at one
// thread, twelve 128 x 384 x 384 MatMuls 4.7 -> 4.2 ms, the MLP at batch 8
// 0.47 -> 0.28 ms (bench/results/gemv-packed-2026-12-04.md). The AVX2
// row streams whole rows of B at m = 1 too: on a Zen 3 (AVX2 only) the
// column-blocked skinny kernel ran 1 x 1024 x 1024 at 20-25 GFLOP/s and the
// row kernel at 30-34, 1 x 4096 x 1024 at 16 vs 20-28 (two threads: 26-29
// vs 37-42), three alternating runs (bench/results/avx2-2026-12-03.md).
constexpr std::array<MicroKernelEntry, 4> kMicroKernels = {{
    {.isa = Isa::kPortable,
     .narrow = false,
     .mr = 4,
     .nr = 8,
     .kc = 256,
     .run = f32_gemm_4x8__portable,
     .run_rows = nullptr,
     .skinny = f32_gemm_skinny__portable,
     .skinny_max_rows = 16,
     .skinny_max_rows_packed_b = 4,
     .gemv_rows = nullptr,
     .gemv_packed = f32_gemv_packed__portable},
    {.isa = Isa::kAvx2Fma,
     .narrow = false,
     .mr = 6,
     .nr = 16,
     .kc = 256,
     .run = f32_gemm_6x16__avx2_fma,
     .run_rows = f32_gemm_6x16_rows__avx2_fma,
     .skinny = f32_gemm_skinny__avx2_fma,
     .skinny_max_rows = 16,
     .skinny_max_rows_packed_b = 4,
     .gemv_rows = f32_gemv_rows__avx2_fma,
     .gemv_packed = f32_gemv_packed__avx2_fma},
    {.isa = Isa::kAvx512f,
     .narrow = false,
     .mr = 12,
     .nr = 32,
     .kc = 256,
     .run = f32_gemm_12x32__avx512f,
     .run_rows = f32_gemm_12x32_rows__avx512f,
     .skinny = f32_gemm_skinny__avx512f,
     .skinny_max_rows = 16,
     .skinny_max_rows_packed_b = 4,
     .gemv_rows = f32_gemv_rows__avx512f,
     .gemv_packed = f32_gemv_packed__avx512f},
    {.isa = Isa::kAvx512f,
     .narrow = true,
     .mr = 6,
     .nr = 16,
     .kc = 256,
     .run = f32_gemm_6x16__avx2_fma,
     .run_rows = f32_gemm_6x16_rows__avx2_fma,
     .skinny = f32_gemm_skinny__avx512f,
     .skinny_max_rows = 64,
     .skinny_max_rows_packed_b = 4,
     .gemv_rows = f32_gemv_rows__avx512f,
     .gemv_packed = f32_gemv_packed__avx512f},
}};

// Test override of the AVX-512 packing choice (Avx512Packing). Relaxed: it
// is set before any GEMM of the test runs, never concurrently with one.
std::atomic<Avx512Packing> g_avx512_packing{Avx512Packing::kAuto};

bool NarrowAvx512Packing() {
  switch (g_avx512_packing.load(std::memory_order_relaxed)) {
    case Avx512Packing::kWide:
      return false;
    case Avx512Packing::kNarrow:
      return true;
    case Avx512Packing::kAuto:
      break;
  }
  return false;
}

// Columns per parallel unit of the skinny path. Kernels are called unit by
// unit, so results do not depend on the thread count.
constexpr int64_t kSkinnyColsPerUnit = 256;

// Columns per n block: a 256 x 2048 packed B block is 2 MB, well inside L3.
constexpr int64_t kNc = 2048;
// A parallel work unit: this many row panels by this many column panels.
constexpr int64_t kRowPanelsPerUnit = 8;
constexpr int64_t kColPanelsPerUnit = 4;
// Cost-model guess for ParallelFor: ~40 flop per ns on one core.
constexpr double kFlopsPerNs = 40;
// Bytes of B one core streams per ns on the few-row path: 1 x 1024 x 1024
// ran at 10.6 GFLOP/s on the AVX-512 Xeon, 21 GB/s of B from L3. Costed by
// flops alone, the MLP's 190 µs GEMV was estimated at 40 µs.
constexpr double kStreamBytesPerNs = 20;

const MicroKernelEntry& KernelFor(Isa isa) {
  const bool narrow = isa == Isa::kAvx512f && NarrowAvx512Packing();
  return SelectIsaVariant("gemm", kMicroKernels, isa,
                          [narrow](const MicroKernelEntry& e) { return e.narrow == narrow; });
}

using base::CeilDiv;

// The depth of each k block: the micro-kernel's kc at most, with the blocks
// evened out. k = 576 runs as 288 + 288 instead of 256 + 256 + 64: a short
// last block pays the full cost of loading and storing C for little work
// (m=64 n=3136 k=576, a 3x3 conv on 64 channels: 78-80 -> 83-84 GFLOP/s
// on Zen 4).
int64_t BlockDepth(const MicroKernelEntry& kernel, int64_t k) {
  if (k <= kernel.kc) return std::max<int64_t>(k, 1);
  return CeilDiv(k, CeilDiv(k, kernel.kc));
}

// Packing space, kept per calling thread and only ever grown: allocating
// (and zero-filling) it on every call cost page faults worth ~12 µs per call
// at 64^3 (bench/results/sgemm-2026-11-29.md). Helpers write into the
// caller's buffers while the call lasts. A call nested on the same thread
// (none exists today) would get fresh buffers instead of clobbering these.
class PackingScratch {
 public:
  PackingScratch() : reused_(!in_use_) { in_use_ = true; }
  ~PackingScratch() {
    if (reused_) in_use_ = false;
  }
  float* Get(int slot, size_t floats) {
    return (reused_ ? cached_[slot] : local_[slot]).Floats(floats);
  }

 private:
  static thread_local bool in_use_;
  static thread_local base::GrowOnlyBuffer cached_[2];
  bool reused_;
  base::GrowOnlyBuffer local_[2];
};

thread_local bool PackingScratch::in_use_ = false;
thread_local base::GrowOnlyBuffer PackingScratch::cached_[2];

// Work units of row panels x column panels: 8 x 4 panels when there is
// plenty of work, halved (the larger side first) until every thread can
// get about four units, so small products still spread over the pool.
std::pair<int64_t, int64_t> UnitShape(int64_t row_panels, int64_t col_panels, int threads) {
  int64_t rows = kRowPanelsPerUnit, cols = kColPanelsPerUnit;
  auto units = [&] { return CeilDiv(row_panels, rows) * CeilDiv(col_panels, cols); };
  while (units() < 4 * threads && (rows > 1 || cols > 1)) {
    if (rows >= cols) {
      rows = std::max<int64_t>(1, rows / 2);
    } else {
      cols = std::max<int64_t>(1, cols / 2);
    }
  }
  return {rows, cols};
}

// Row panel r of op(A)[:, pc:pc+kc]: packed[p * mr + i] = A[r*mr + i][pc + p].
// Each source row (or, transposed, each source column) is read as one
// contiguous run instead of computing an index per element.
void PackAPanel(const GemmArgs& g, int64_t r, int64_t pc, int64_t kc, int mr, float* packed) {
  const int64_t row0 = r * mr;
  const int rows = static_cast<int>(std::min<int64_t>(mr, g.m - row0));
  if (rows < mr) std::fill(packed, packed + kc * mr, 0.0f);
  if (g.transpose_a) {
    // op(A)[i][p] = a[p * lda + i]: each p reads `rows` contiguous floats.
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = g.a + (pc + p) * g.lda + row0;
      std::copy(src, src + rows, packed + p * mr);
    }
    return;
  }
  for (int i = 0; i < rows; ++i) {
    const float* src = g.a + (row0 + i) * g.lda + pc;
    float* dst = packed + i;
    for (int64_t p = 0; p < kc; ++p) dst[p * mr] = src[p];
  }
}

// Column panel q of op(B)[pc:pc+kc, jc:jc+nc]: packed[p * nr + j] = B[pc+p][jc + q*nr + j].
void PackBPanel(const GemmArgs& g, int64_t q, int64_t pc, int64_t kc, int64_t jc, int64_t nc,
                int nr, float* packed) {
  const int64_t col0 = jc + q * nr;
  const int cols = static_cast<int>(std::min<int64_t>(nr, jc + nc - col0));
  if (cols < nr) std::fill(packed, packed + kc * nr, 0.0f);
  if (!g.transpose_b) {
    // Each p copies `cols` contiguous floats.
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = g.b + (pc + p) * g.ldb + col0;
      std::copy(src, src + cols, packed + p * nr);
    }
    return;
  }
  for (int j = 0; j < cols; ++j) {
    const float* src = g.b + (col0 + j) * g.ldb + pc;
    float* dst = packed + j;
    for (int64_t p = 0; p < kc; ++p) dst[p * nr] = src[p];
  }
}

// C = beta * C + bias; with beta == 0, C is only written.
void InitializeC(const GemmArgs& g, threading::ThreadPool* pool) {
  threading::ParallelFor(pool, g.m, static_cast<double>(g.n), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      // One branch-free loop per case, so each vectorizes.
      float* row = g.c + i * g.ldc;
      if (g.beta == 0.0f && g.bias != nullptr) {
        std::copy(g.bias, g.bias + g.n, row);
      } else if (g.beta == 0.0f) {
        std::fill(row, row + g.n, 0.0f);  // NaN or garbage in C is not kept
      } else if (g.bias != nullptr) {
        for (int64_t j = 0; j < g.n; ++j) row[j] = g.beta * row[j] + g.bias[j];
      } else {
        // + 0.0f as before the split: a -0 product becomes +0.
        for (int64_t j = 0; j < g.n; ++j) row[j] = g.beta * row[j] + 0.0f;
      }
    }
  });
}

// The epilogue over rows [row0, row0 + rows) x columns [col0, col0 + cols).
void RunEpilogue(const GemmArgs& g, int64_t row0, int64_t rows, int64_t col0, int64_t cols) {
  if (g.epilogue.fn == nullptr) return;
  for (int64_t i = row0; i < row0 + rows; ++i) {
    g.epilogue.fn(g.epilogue.state, g.c + i * g.ldc + col0, i, col0, cols);
  }
}

void CheckPacked(const PackedGemmMatrix* packed, bool want_a, int64_t rows, int64_t cols, Isa isa,
                 const MicroKernelEntry& kernel) {
  if (packed == nullptr) return;
  // The panel width tells the two AVX-512 micro-kernels apart.
  if (packed->is_a() != want_a || packed->rows() != rows || packed->cols() != cols ||
      packed->isa() != isa || packed->panel() != (want_a ? kernel.mr : kernel.nr)) {
    throw InvalidArgumentError(
        std::string("gemm: prepacked ") + (want_a ? "A" : "B") + " is " +
        (packed->is_a() ? "A " : "B ") + std::to_string(packed->rows()) + "x" +
        std::to_string(packed->cols()) + " for " + std::string(IsaName(packed->isa())) +
        ", the call needs " + std::to_string(rows) + "x" + std::to_string(cols) + " for " +
        std::string(IsaName(isa)) + " (panels " + std::to_string(packed->panel()) + " vs " +
        std::to_string(want_a ? kernel.mr : kernel.nr) + ")");
  }
}

// One row of A: rows of B in units of at most kGemvRowsPerUnit, evened out
// (k = 784 runs as 4 x 196, not 3 x 256 + 16, which gave one of two
// threads 512 rows and the other 272), each summed into its own partial
// row, then the partials added in unit order, column chunk by chunk. The
// units depend on k alone: the same sums in the same order whatever the
// thread count. C already holds beta * C + bias.
constexpr int64_t kGemvRowsPerUnit = 256;
constexpr int64_t kGemvColsPerChunk = 256;

void RunGemv(const GemmArgs& g, GemvRowsKernel gemv_rows, threading::ThreadPool* pool) {
  // Rows per unit: a multiple of 4 (the kernels' rows per sweep) unless k is smaller.
  const int64_t rows_per_unit =
      std::min(g.k, CeilDiv(CeilDiv(g.k, CeilDiv(g.k, kGemvRowsPerUnit)), 4) * 4);
  const int64_t units = CeilDiv(g.k, rows_per_unit);
  PackingScratch scratch;
  float* partials = scratch.Get(0, static_cast<size_t>(units * g.n));
  threading::ParallelFor(pool, units, 4.0 * rows_per_unit * g.n / kStreamBytesPerNs,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t u = begin; u < end; ++u) {
                             const int64_t p0 = u * rows_per_unit;
                             const int64_t p1 = std::min(g.k, p0 + rows_per_unit);
                             gemv_rows(g.a, g.b, g.ldb, p0, p1, g.n, partials + u * g.n);
                           }
                         });
  threading::ParallelFor(pool, CeilDiv(g.n, kGemvColsPerChunk),
                         static_cast<double>(units * kGemvColsPerChunk),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t chunk = begin; chunk < end; ++chunk) {
                             const int64_t j0 = chunk * kGemvColsPerChunk;
                             const int64_t j1 = std::min(g.n, j0 + kGemvColsPerChunk);
                             float sum[kGemvColsPerChunk];
                             std::copy(partials + j0, partials + j1, sum);
                             for (int64_t u = 1; u < units; ++u) {
                               const float* partial = partials + u * g.n;
                               for (int64_t j = j0; j < j1; ++j) sum[j - j0] += partial[j];
                             }
                             for (int64_t j = j0; j < j1; ++j) g.c[j] += g.alpha * sum[j - j0];
                             RunEpilogue(g, 0, 1, j0, j1 - j0);
                           }
                         });
}

// One row of A against a prepacked B: units of kGemvPackedColsPerUnit
// columns, each walking the k blocks in order and reading its panels of each
// block front to back (PackB lays a block's panels out one after another),
// its sums in a stack buffer. A column's sums do not depend on the units, so
// the results do not depend on the thread count. C already holds
// beta * C + bias.
constexpr int64_t kGemvPackedColsPerUnit = 128;

void RunGemvPacked(const GemmArgs& g, const MicroKernelEntry& kernel, threading::ThreadPool* pool) {
  const PackedGemmMatrix& packed = *g.packed_b;
  const int nr = kernel.nr;
  const int64_t panels_per_unit = kGemvPackedColsPerUnit / nr;
  const int64_t col_panels = CeilDiv(g.n, nr);
  const int64_t depth = BlockDepth(kernel, g.k);
  threading::ParallelFor(pool, CeilDiv(col_panels, panels_per_unit),
                         4.0 * g.k * kGemvPackedColsPerUnit / kStreamBytesPerNs,
                         [&](int64_t begin, int64_t end) {
                           alignas(64) float sum[kGemvPackedColsPerUnit];
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t q0 = unit * panels_per_unit;
                             const int64_t q1 = std::min(col_panels, q0 + panels_per_unit);
                             for (int64_t pc = 0; pc < g.k; pc += depth) {
                               const int64_t kc = std::min(depth, g.k - pc);
                               kernel.gemv_packed(g.a + pc, packed.block(pc) + q0 * nr * kc, kc,
                                                  q1 - q0, nr, sum, pc != 0);
                             }
                             const int64_t j0 = q0 * nr;
                             const int64_t j1 = std::min(g.n, q1 * nr);
                             for (int64_t j = j0; j < j1; ++j) g.c[j] += g.alpha * sum[j - j0];
                             RunEpilogue(g, 0, 1, j0, j1 - j0);
                           }
                         });
}

[[noreturn]] void FailGemm(const std::string& what) { throw InvalidArgumentError("gemm: " + what); }

// Checks shared by ValidateGemmArgs and the packers (which see one operand
// and must not demand the other).
void CheckSizes(const GemmArgs& g) {
  if (g.m < 0 || g.n < 0 || g.k < 0) {
    FailGemm("negative size m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) +
             " k=" + std::to_string(g.k));
  }
}

void CheckLeadingDimensionA(const GemmArgs& g) {
  const int64_t a_row = g.transpose_a ? g.m : g.k;
  if (g.lda < std::max<int64_t>(a_row, 1)) {
    FailGemm("lda " + std::to_string(g.lda) + " < row length " + std::to_string(a_row));
  }
}

void CheckLeadingDimensionB(const GemmArgs& g) {
  const int64_t b_row = g.transpose_b ? g.k : g.n;
  if (g.ldb < std::max<int64_t>(b_row, 1)) {
    FailGemm("ldb " + std::to_string(g.ldb) + " < row length " + std::to_string(b_row));
  }
}

}  // namespace

IsaMask GemmIsaLevels() { return IsaVariantLevels(kMicroKernels); }

PackedGemmMatrix::PackedGemmMatrix(Isa isa, int panel, bool is_a, int64_t rows, int64_t cols,
                                   size_t floats)
    : isa_(isa),
      panel_(panel),
      is_a_(is_a),
      rows_(rows),
      cols_(cols),
      block_stride_(0),
      data_(std::make_shared<base::AlignedBuffer>(floats * sizeof(float))) {}

size_t PackedGemmMatrix::bytes() const { return data_->size(); }

const float* PackedGemmMatrix::block(int64_t pc) const {
  return static_cast<const float*>(data_->data()) + pc * block_stride_;
}

PackedGemmMatrix PackedGemmMatrix::PackA(const GemmArgs& g, Isa isa) {
  CheckSizes(g);
  CheckLeadingDimensionA(g);
  if (g.m > 0 && g.k > 0 && g.a == nullptr) FailGemm("A is null");
  const MicroKernelEntry& kernel = KernelFor(isa);
  const int64_t row_panels = CeilDiv(g.m, kernel.mr);
  PackedGemmMatrix packed(isa, kernel.mr, true, g.m, g.k,
                          static_cast<size_t>(row_panels * kernel.mr * std::max<int64_t>(g.k, 1)));
  packed.block_stride_ = row_panels * kernel.mr;
  float* out = static_cast<float*>(packed.data_->data());
  const int64_t depth = BlockDepth(kernel, g.k);
  for (int64_t pc = 0; pc < g.k; pc += depth) {
    const int64_t kc = std::min(depth, g.k - pc);
    for (int64_t r = 0; r < row_panels; ++r) {
      PackAPanel(g, r, pc, kc, kernel.mr, out + pc * packed.block_stride_ + r * kernel.mr * kc);
    }
  }
  return packed;
}

PackedGemmMatrix PackedGemmMatrix::PackB(const GemmArgs& g, Isa isa) {
  CheckSizes(g);
  CheckLeadingDimensionB(g);
  if (g.k > 0 && g.n > 0 && g.b == nullptr) FailGemm("B is null");
  const MicroKernelEntry& kernel = KernelFor(isa);
  const int64_t col_panels = CeilDiv(g.n, kernel.nr);
  PackedGemmMatrix packed(isa, kernel.nr, false, g.k, g.n,
                          static_cast<size_t>(col_panels * kernel.nr * std::max<int64_t>(g.k, 1)));
  packed.block_stride_ = col_panels * kernel.nr;
  float* out = static_cast<float*>(packed.data_->data());
  const int64_t depth = BlockDepth(kernel, g.k);
  for (int64_t pc = 0; pc < g.k; pc += depth) {
    const int64_t kc = std::min(depth, g.k - pc);
    for (int64_t q = 0; q < col_panels; ++q) {
      PackBPanel(g, q, pc, kc, 0, g.n, kernel.nr,
                 out + pc * packed.block_stride_ + q * kernel.nr * kc);
    }
  }
  return packed;
}

void SetAvx512PackingForTesting(Avx512Packing packing) {
  g_avx512_packing.store(packing, std::memory_order_relaxed);
}

void ValidateGemmArgs(const GemmArgs& g) {
  CheckSizes(g);
  CheckLeadingDimensionA(g);
  CheckLeadingDimensionB(g);
  if (g.ldc < std::max<int64_t>(g.n, 1)) {
    FailGemm("ldc " + std::to_string(g.ldc) + " < n " + std::to_string(g.n));
  }
  if (g.m > 0 && g.n > 0 && g.c == nullptr) FailGemm("C is null");
  if (g.m > 0 && g.n > 0 && g.k > 0 &&
      ((g.a == nullptr && g.packed_a == nullptr) || (g.b == nullptr && g.packed_b == nullptr))) {
    FailGemm("A or B is null");
  }
}

namespace {

// Few rows of A (the skinny kernel): B streamed once, in fixed column units.
// C already holds beta * C + bias.
void RunSkinny(const GemmArgs& g, const MicroKernelEntry& kernel, threading::ThreadPool* pool) {
  // A unit's time is the larger of its FMAs and its share of B's bytes.
  const double unit_ns = std::max(2.0 * g.m * g.k * kSkinnyColsPerUnit / kFlopsPerNs,
                                  4.0 * g.k * kSkinnyColsPerUnit / kStreamBytesPerNs);
  threading::ParallelFor(pool, CeilDiv(g.n, kSkinnyColsPerUnit), unit_ns,
                         [&](int64_t begin, int64_t end) {
                           // Unit by unit: the same column ranges whatever
                           // the thread count, so the same rounding.
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t j0 = unit * kSkinnyColsPerUnit;
                             const int64_t j1 = std::min(g.n, j0 + kSkinnyColsPerUnit);
                             kernel.skinny(g, j0, j1);
                             RunEpilogue(g, 0, g.m, j0, j1 - j0);
                           }
                         });
}

// One k block [pc, pc + kc) of the packed path against one column block
// [jc, jc + nc) of C, A's block already packed.
struct PackedBlock {
  const GemmArgs& g;
  const MicroKernelEntry& kernel;
  const float* a_block;  // A's block packed, or null when A is read in place
  int64_t pc, kc, jc, nc;
  int64_t row_panels, col_panels;
  bool last_block;  // the epilogue runs after this block
  bool overwrite;   // the kernel writes C instead of adding to it

  // B panel q (packed at b_panel) times row panels [r0, r1) of A's block.
  // With `epilogue`, each tile's epilogue runs right after the tile.
  //
  // With `next_panel` (A read in place; RunPrepackedB passes the unit's next
  // B panel), the row tiles prefetch it while they compute: a unit of 8+
  // tiles over its first 8, each a line every 4 steps (4 * kc floats, 1/8
  // of a 32-column panel); a smaller unit over its first 4, a line every 2
  // steps. Weights from L3 (twelve 1024 x 1024 matrices cycled, like a
  // model's layers), medians of 5: m = 60 153 GFLOP/s without, 177 with;
  // m = 72 (6 tiles) 109 without, 137 with every 4, 148 with every 2;
  // m = 96 (8 tiles) 122, 151 and 149. A prefetch burst before each tile
  // instead, or the current panel 16 steps ahead, measured slower or no
  // change (bench/results/transformers-gemm-2026-12-05.md).
  void MultiplyPanel(int64_t q, const float* b_panel, int64_t r0, int64_t r1, bool epilogue,
                     const float* next_panel = nullptr) const {
    const int mr = kernel.mr, nr = kernel.nr;
    const int64_t col = jc + q * nr;
    const int cols = static_cast<int>(std::min<int64_t>(nr, g.n - col));
    for (int64_t r = r0; r < r1; ++r) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, g.m - r * mr));
      float* c = g.c + r * mr * g.ldc + col;
      if (a_block == nullptr) {
        const int every = r1 - r0 >= 8 ? 4 : 2;
        const int64_t tiles = every == 4 ? 8 : 4;
        const float* prefetch = next_panel != nullptr && r - r0 < tiles
                                    ? next_panel + (r - r0) * (16 / every) * kc
                                    : nullptr;
        kernel.run_rows(kc, g.a + r * mr * g.lda + pc, g.lda, b_panel, c, g.ldc, g.alpha, rows,
                        cols, !overwrite, prefetch, every);
      } else {
        kernel.run(kc, a_block + r * mr * kc, b_panel, c, g.ldc, g.alpha, rows, cols, !overwrite);
      }
      if (epilogue && last_block) RunEpilogue(g, r * mr, rows, col, cols);
    }
  }
};

// A packed (constant weights), B not, and columns enough for every thread:
// each unit packs its own B panels and multiplies them at once, one
// fork-join per block instead of two, each B panel still hot when it is
// used. Workers that block between fork-joins (spin wait 0) pay one
// wake-up per block, not two.
void PackAndMultiplyColumns(const PackedBlock& block, float* b_panels,
                            threading::ThreadPool* pool) {
  const GemmArgs& g = block.g;
  const int nr = block.kernel.nr;
  const int64_t units = CeilDiv(block.col_panels, kColPanelsPerUnit);
  const double unit_flops = 2.0 * g.m * kColPanelsPerUnit * nr * block.kc;
  threading::ParallelFor(pool, units, unit_flops / kFlopsPerNs, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t q0 = unit * kColPanelsPerUnit;
      const int64_t q1 = std::min(block.col_panels, q0 + kColPanelsPerUnit);
      for (int64_t q = q0; q < q1; ++q) {
        float* b_panel = b_panels + q * nr * block.kc;
        PackBPanel(g, q, block.pc, block.kc, block.jc, block.nc, nr, b_panel);
        block.MultiplyPanel(q, b_panel, 0, block.row_panels, true);
      }
    }
  });
}

// B's block already packed at b_block: units of row panels x column panels
// (UnitShape) over the pool.
void MultiplyPackedColumns(const PackedBlock& block, const float* b_block, int threads,
                           threading::ThreadPool* pool) {
  const GemmArgs& g = block.g;
  const int mr = block.kernel.mr, nr = block.kernel.nr;
  // Named copies, not a structured binding: lambdas below capture them
  // (clang before 16, which builds the fuzz targets, cannot capture one).
  const auto unit_shape = UnitShape(block.row_panels, block.col_panels, threads);
  const int64_t rows_per_unit = unit_shape.first, cols_per_unit = unit_shape.second;
  const int64_t unit_rows = CeilDiv(block.row_panels, rows_per_unit);
  const int64_t unit_cols = CeilDiv(block.col_panels, cols_per_unit);
  const double unit_flops = 2.0 * rows_per_unit * mr * cols_per_unit * nr * block.kc;
  threading::ParallelFor(pool, unit_rows * unit_cols, unit_flops / kFlopsPerNs,
                         [&](int64_t begin, int64_t end) {
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t r0 = (unit / unit_cols) * rows_per_unit;
                             const int64_t q0 = (unit % unit_cols) * cols_per_unit;
                             const int64_t r1 = std::min(block.row_panels, r0 + rows_per_unit);
                             const int64_t q1 = std::min(block.col_panels, q0 + cols_per_unit);
                             // One B panel stays in L1 while it meets every A panel of the unit.
                             for (int64_t q = q0; q < q1; ++q) {
                               block.MultiplyPanel(q, b_block + q * nr * block.kc, r0, r1, false);
                             }
                             // One epilogue call per row of the unit (up to cols_per_unit
                             // panels wide), its C still in L1/L2: with a call per tile row,
                             // MatMul + bias + Relu on 64 x 128 x 512 took 120 µs, now 100.
                             if (block.last_block) {
                               const int64_t col = block.jc + q0 * nr;
                               RunEpilogue(g, r0 * mr, std::min(g.m, r1 * mr) - r0 * mr, col,
                                           std::min(g.n, block.jc + q1 * nr) - col);
                             }
                           }
                         });
}

// Whether the packed path reads A in place (the kernel's rows form)
// instead of packing it: A given row-major, not prepacked.
bool ReadAInPlace(const GemmArgs& g, const MicroKernelEntry& kernel) {
  return kernel.run_rows != nullptr && g.packed_a == nullptr && !g.transpose_a && g.a != nullptr;
}

// B prepacked (constant weights) and A read in place: nothing to pack, so
// the whole product is one fork-join over units of row panels x column
// panels, each unit walking every k block (its C tile stays in cache
// between blocks) and running the epilogue on its tile at the end. Each
// element of C gets the same k blocks in the same order as in RunPacked's
// block-by-block walk, so both give the same bits whatever the units.
void RunPrepackedB(const GemmArgs& g, const MicroKernelEntry& kernel, bool overwrite_first_block,
                   threading::ThreadPool* pool) {
  const int mr = kernel.mr, nr = kernel.nr;
  const int64_t row_panels = CeilDiv(g.m, mr);
  const int64_t col_panels = CeilDiv(g.n, nr);
  const int64_t depth = BlockDepth(kernel, g.k);
  const auto unit_shape = UnitShape(row_panels, col_panels, threading::MaxParallelism(pool));
  const int64_t rows_per_unit = unit_shape.first, cols_per_unit = unit_shape.second;
  const int64_t unit_rows = CeilDiv(row_panels, rows_per_unit);
  const int64_t unit_cols = CeilDiv(col_panels, cols_per_unit);
  const double unit_flops = 2.0 * rows_per_unit * mr * cols_per_unit * nr * g.k;
  threading::ParallelFor(
      pool, unit_rows * unit_cols, unit_flops / kFlopsPerNs, [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
          const int64_t r0 = (unit / unit_cols) * rows_per_unit;
          const int64_t q0 = (unit % unit_cols) * cols_per_unit;
          const int64_t r1 = std::min(row_panels, r0 + rows_per_unit);
          const int64_t q1 = std::min(col_panels, q0 + cols_per_unit);
          for (int64_t pc = 0; pc < g.k; pc += depth) {
            const int64_t kc = std::min(depth, g.k - pc);
            const PackedBlock block{.g = g,
                                    .kernel = kernel,
                                    .a_block = nullptr,
                                    .pc = pc,
                                    .kc = kc,
                                    .jc = 0,
                                    .nc = g.n,
                                    .row_panels = row_panels,
                                    .col_panels = col_panels,
                                    .last_block = false,
                                    .overwrite = overwrite_first_block && pc == 0};
            const float* b_block = g.packed_b->block(pc);
            // One B panel stays in L1 while it meets every A row panel of
            // the unit, and the unit's next panel (this block's next, else
            // the next block's first) is prefetched meanwhile.
            const float* next_block = pc + kc < g.k ? g.packed_b->block(pc + kc) : nullptr;
            for (int64_t q = q0; q < q1; ++q) {
              const float* next = q + 1 < q1 ? b_block + (q + 1) * nr * kc
                                  : next_block != nullptr
                                      ? next_block + q0 * nr * std::min(depth, g.k - pc - kc)
                                      : nullptr;
              block.MultiplyPanel(q, b_block + q * nr * kc, r0, r1, false, next);
            }
          }
          const int64_t col = q0 * nr;
          RunEpilogue(g, r0 * mr, std::min(g.m, r1 * mr) - r0 * mr, col,
                      std::min(g.n, q1 * nr) - col);
        }
      });
}

// The packed path: k blocks of BlockDepth; per block A packed once (unless
// prepacked or read in place), then column blocks of kNc with B packed
// (unless prepacked) and multiplied. `overwrite_first_block`: C was not
// initialized and the first k block writes it.
void RunPacked(const GemmArgs& g, const MicroKernelEntry& kernel, bool a_in_place,
               bool overwrite_first_block, threading::ThreadPool* pool) {
  const int mr = kernel.mr, nr = kernel.nr;
  const int64_t row_panels = CeilDiv(g.m, mr);
  const int64_t depth = BlockDepth(kernel, g.k);
  PackingScratch scratch;
  float* a_panels = g.packed_a != nullptr || a_in_place
                        ? nullptr
                        : scratch.Get(0, static_cast<size_t>(row_panels * mr * depth));
  float* b_panels =
      g.packed_b != nullptr
          ? nullptr
          : scratch.Get(1, static_cast<size_t>(CeilDiv(std::min(g.n, kNc), nr) * nr * depth));
  const int threads = threading::MaxParallelism(pool);
  for (int64_t pc = 0; pc < g.k; pc += depth) {
    const int64_t kc = std::min(depth, g.k - pc);
    const float* a_block = a_panels;
    if (g.packed_a != nullptr) {
      a_block = g.packed_a->block(pc);
    } else if (!a_in_place) {
      threading::ParallelFor(pool, row_panels, static_cast<double>(mr * kc),
                             [&](int64_t begin, int64_t end) {
                               for (int64_t r = begin; r < end; ++r) {
                                 PackAPanel(g, r, pc, kc, mr, a_panels + r * mr * kc);
                               }
                             });
    }
    for (int64_t jc = 0; jc < g.n; jc += kNc) {
      const int64_t nc = std::min(kNc, g.n - jc);
      const PackedBlock block{.g = g,
                              .kernel = kernel,
                              .a_block = a_block,
                              .pc = pc,
                              .kc = kc,
                              .jc = jc,
                              .nc = nc,
                              .row_panels = row_panels,
                              .col_panels = CeilDiv(nc, nr),
                              .last_block = pc + kc == g.k,
                              .overwrite = overwrite_first_block && pc == 0};
      if (g.packed_b == nullptr && g.packed_a != nullptr &&
          block.col_panels >= kColPanelsPerUnit * 4 * threads) {
        PackAndMultiplyColumns(block, b_panels, pool);
        continue;
      }
      const float* b_block = b_panels;
      if (g.packed_b != nullptr) {
        b_block = g.packed_b->block(pc) + (jc / nr) * nr * kc;  // kNc is a multiple of NR
      } else {
        threading::ParallelFor(pool, block.col_panels, static_cast<double>(nr * kc),
                               [&](int64_t begin, int64_t end) {
                                 for (int64_t q = begin; q < end; ++q) {
                                   PackBPanel(g, q, pc, kc, jc, nc, nr, b_panels + q * nr * kc);
                                 }
                               });
      }
      MultiplyPackedColumns(block, b_block, threads, pool);
    }
  }
}

}  // namespace

void f32_gemm(const GemmArgs& g, threading::ThreadPool* pool, Isa isa) {
  ValidateGemmArgs(g);
  if (g.m == 0 || g.n == 0) return;
  const MicroKernelEntry& kernel = KernelFor(isa);
  CheckPacked(g.packed_a, true, g.m, g.k, isa, kernel);
  CheckPacked(g.packed_b, false, g.k, g.n, isa, kernel);
  // m = 1 with B prepacked reads the packed panels in memory order.
  const bool gemv_packed = g.m == 1 && g.packed_b != nullptr && g.a != nullptr && !g.transpose_a &&
                           kernel.gemv_packed != nullptr;
  const bool skinny =
      g.m <= (g.packed_b != nullptr ? kernel.skinny_max_rows_packed_b : kernel.skinny_max_rows) &&
      !g.transpose_b && g.a != nullptr && g.b != nullptr && !gemv_packed;
  // With beta = 0 and no bias, the micro-kernels' first k block writes C
  // outright (accumulate = false); every other path adds onto an
  // initialized C.
  const bool overwrite_first_block =
      g.beta == 0.0f && g.bias == nullptr && !skinny && !gemv_packed && g.k > 0 && g.alpha != 0.0f;
  if (!overwrite_first_block) InitializeC(g, pool);
  if (g.k == 0 || g.alpha == 0.0f) {
    threading::ParallelFor(pool, g.m, static_cast<double>(g.n), [&](int64_t begin, int64_t end) {
      RunEpilogue(g, begin, end - begin, 0, g.n);
    });
  } else if (gemv_packed) {
    RunGemvPacked(g, kernel, pool);
  } else if (skinny && g.m == 1 && kernel.gemv_rows != nullptr && !g.transpose_a) {
    RunGemv(g, kernel.gemv_rows, pool);
  } else if (skinny) {
    RunSkinny(g, kernel, pool);
  } else {
    const bool a_in_place = ReadAInPlace(g, kernel);
    if (a_in_place && g.packed_b != nullptr) {
      RunPrepackedB(g, kernel, overwrite_first_block, pool);
    } else {
      RunPacked(g, kernel, a_in_place, overwrite_first_block, pool);
    }
  }
}

}  // namespace loom::kernels
