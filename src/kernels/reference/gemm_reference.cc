// The plain triple loop, accumulated in double so that it is a tighter oracle
// than any float kernel it checks.
#include "kernels/gemm.h"

namespace loom::kernels {

void f32_gemm_reference(const GemmArgs& g) {
  ValidateGemmArgs(g);
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        const float a = g.transpose_a ? g.a[p * g.lda + i] : g.a[i * g.lda + p];
        const float b = g.transpose_b ? g.b[j * g.ldb + p] : g.b[p * g.ldb + j];
        sum += static_cast<double>(a) * b;
      }
      double out = g.alpha * sum;
      if (g.beta != 0.0f) out += static_cast<double>(g.beta) * g.c[i * g.ldc + j];
      if (g.bias != nullptr) out += g.bias[j];
      g.c[i * g.ldc + j] = static_cast<float>(out);
    }
  }
}

}  // namespace loom::kernels
