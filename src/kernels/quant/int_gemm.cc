#include "kernels/quant/int_gemm.h"

#include <algorithm>
#include <array>
#include <vector>

#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// A unit: 4 rows x 128 columns of sums (2 KiB, in L1); each B pair row
// segment loaded once serves 4 rows of A.
constexpr int64_t kRows = 4;
constexpr int64_t kCols = 128;

struct Int16GemmKernels {
  Isa isa;
  Int16GemmTileFn tile;
};

constexpr std::array<Int16GemmKernels, 2> kKernels = {{
    {Isa::kPortable, s16_gemm_tile__portable},
    {Isa::kAvx2Fma, s16_gemm_4x16__avx2},
}};

}  // namespace

void s16_gemm_tile__portable(int64_t rows, int64_t cols, int64_t k, const int16_t* a, int64_t lda,
                             const int16_t* bp, int64_t ldbp, int32_t* c, int64_t ldc) {
  uint32_t acc[kRows][kCols];
  for (int64_t r = 0; r < rows; ++r) std::fill(acc[r], acc[r] + cols, 0u);
  const int64_t pairs = (k + 1) / 2;
  for (int64_t p = 0; p < pairs; ++p) {
    const int16_t* brow = bp + p * ldbp;
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t a0 = a[r * lda + 2 * p];
      const int32_t a1 = 2 * p + 1 < k ? a[r * lda + 2 * p + 1] : 0;
      uint32_t* out = acc[r];
      // Each product fits int32 (|a|, |b| <= 255); the sum wraps in uint32.
      for (int64_t j = 0; j < cols; ++j) {
        out[j] += static_cast<uint32_t>(a0 * brow[2 * j] + a1 * brow[2 * j + 1]);
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) c[r * ldc + j] = static_cast<int32_t>(acc[r][j]);
  }
}

Int16GemmTileFn Int16GemmTileFor(Isa isa) {
  return SelectIsaVariant("integer gemm", kKernels, isa).tile;
}

IsaMask Int16GemmIsaLevels() { return IsaVariantLevels(kKernels); }

void Int16Gemm(threading::ThreadPool* pool, Isa isa, int64_t m, int64_t k, int64_t n,
               const int16_t* a, int64_t lda, const int16_t* b, int64_t ldb, int32_t* c,
               int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // empty sums; also keeps null operand pointers out of the arithmetic below
    for (int64_t r = 0; r < m; ++r) std::fill(c + r * ldc, c + r * ldc + n, 0);
    return;
  }
  // B in k pairs: packed[p][j] = (B[2p, j], B[2p + 1, j]), 0 past the end.
  const int64_t pairs = (k + 1) / 2;
  std::vector<int16_t> packed(static_cast<size_t>(pairs * n * 2));
  for (int64_t p = 0; p < pairs; ++p) {
    int16_t* dst = packed.data() + p * n * 2;
    const int16_t* b0 = b + 2 * p * ldb;
    const int16_t* b1 = 2 * p + 1 < k ? b0 + ldb : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      dst[2 * j] = b0[j];
      dst[2 * j + 1] = b1 != nullptr ? b1[j] : int16_t{0};
    }
  }
  const Int16GemmTileFn tile = Int16GemmTileFor(isa);
  const int64_t row_groups = (m + kRows - 1) / kRows;
  const int64_t col_blocks = (n + kCols - 1) / kCols;
  // ~0.05 ns per multiply-add once vectorized (a guess, not measured).
  const double cost = 0.05 * static_cast<double>(kRows * kCols) * static_cast<double>(k + 1);
  threading::ParallelFor(pool, row_groups * col_blocks, cost, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t r0 = (unit / col_blocks) * kRows;
      const int64_t c0 = (unit % col_blocks) * kCols;
      tile(std::min(kRows, m - r0), std::min(kCols, n - c0), k, a + r0 * lda, lda,
           packed.data() + c0 * 2, n * 2, c + r0 * ldc + c0, ldc);
    }
  });
}

}  // namespace loom::kernels
