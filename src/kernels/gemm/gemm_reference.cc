// The plain triple loop, accumulated in double so that it is a tighter oracle
// than any float kernel it checks.
#include "kernels/gemm/gemm.h"
#include "loom/errors.h"

namespace loom::kernels {

// Reads the raw A and B (the reference ignores packed operands).
void f32_gemm_reference(const GemmArgs& g) {
  ValidateGemmArgs(g);
  if (g.k > 0 && g.m > 0 && g.n > 0 && (g.a == nullptr || g.b == nullptr)) {
    throw InvalidArgumentError("gemm reference: needs the unpacked A and B");
  }
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
    if (g.epilogue.fn != nullptr) g.epilogue.fn(g.epilogue.state, g.c + i * g.ldc, i, 0, g.n);
  }
}

}  // namespace loom::kernels
