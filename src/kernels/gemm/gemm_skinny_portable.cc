#include <algorithm>

#include "kernels/gemm/gemm_skinny.h"

namespace loom::kernels {

void f32_gemm_skinny__portable(const GemmArgs& g, int64_t j0, int64_t j1) {
  for (int64_t i = 0; i < g.m; ++i) {
    float* c = g.c + i * g.ldc;
    for (int64_t p = 0; p < g.k; ++p) {
      const float a = g.alpha * (g.transpose_a ? g.a[p * g.lda + i] : g.a[i * g.lda + p]);
      const float* b = g.b + p * g.ldb;
      for (int64_t j = j0; j < j1; ++j) c[j] += a * b[j];
    }
  }
}

void f32_gemv_packed__portable(const float* a, const float* b, int64_t kc, int64_t panels, int nr,
                               float* sum, bool accumulate) {
  for (int64_t q = 0; q < panels; ++q) {
    const float* panel = b + q * kc * nr;
    float* out = sum + q * nr;
    if (!accumulate) std::fill(out, out + nr, 0.0f);
    for (int64_t p = 0; p < kc; ++p) {
      for (int j = 0; j < nr; ++j) out[j] += a[p] * panel[p * nr + j];
    }
  }
}

}  // namespace loom::kernels
