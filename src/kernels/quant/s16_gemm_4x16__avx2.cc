// The int16 pair GEMM tile (quant/int_gemm.h) with AVX2: per 16 columns, 4
// rows x 2 vectors of 8 int32 sums; each k pair broadcasts (a0, a1) of a row
// and vpmaddwd multiplies it with 8 packed (b0, b1) pairs, adding
// a0 * b0 + a1 * b1 per column exactly (|a|, |b| <= 255, so no pair sum
// nears int32's range; vpmaddwd's only overflow, -32768 * -32768 twice, is
// out of reach). vpaddd wraps modulo 2^32 like the portable kernel, so the
// results are the same bits. Columns past the last 16 go to the portable
// tile.
#include <immintrin.h>

#include <cstring>

#include "kernels/quant/int_gemm.h"

namespace loom::kernels {

namespace {

// (a[2p], a[2p + 1]) as one int32, a[2p + 1] = 0 past the end of k.
inline int32_t Pair(const int16_t* a, int64_t p, int64_t k) {
  if (2 * p + 1 < k) {
    int32_t v;
    std::memcpy(&v, a + 2 * p, sizeof(v));  // little-endian: a[2p] low
    return v;
  }
  return static_cast<int32_t>(static_cast<uint16_t>(a[2 * p]));
}

// `Rows` rows (a compile-time count, so the sums stay in registers) x 16
// columns starting at column j.
template <int Rows>
void Tile(int64_t j, int64_t k, const int16_t* a, int64_t lda, const int16_t* bp, int64_t ldbp,
          int32_t* c, int64_t ldc) {
  const int64_t pairs = (k + 1) / 2;
  __m256i acc[Rows][2];
  for (int r = 0; r < Rows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t p = 0; p < pairs; ++p) {
    const int16_t* brow = bp + p * ldbp + 2 * j;
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(brow));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(brow + 16));
    for (int r = 0; r < Rows; ++r) {
      const __m256i av = _mm256_set1_epi32(Pair(a + r * lda, p, k));
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
    }
  }
  for (int r = 0; r < Rows; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc + j), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc + j + 8), acc[r][1]);
  }
}

}  // namespace

void s16_gemm_4x16__avx2(int64_t rows, int64_t cols, int64_t k, const int16_t* a, int64_t lda,
                         const int16_t* bp, int64_t ldbp, int32_t* c, int64_t ldc) {
  const int64_t full = cols / 16 * 16;
  for (int64_t j = 0; j < full; j += 16) {
    switch (rows) {
      case 4:
        Tile<4>(j, k, a, lda, bp, ldbp, c, ldc);
        break;
      case 3:
        Tile<3>(j, k, a, lda, bp, ldbp, c, ldc);
        break;
      case 2:
        Tile<2>(j, k, a, lda, bp, ldbp, c, ldc);
        break;
      default:
        Tile<1>(j, k, a, lda, bp, ldbp, c, ldc);
        break;
    }
  }
  if (full < cols) {
    s16_gemm_tile__portable(rows, cols - full, k, a, lda, bp + 2 * full, ldbp, c + full, ldc);
  }
}

}  // namespace loom::kernels
