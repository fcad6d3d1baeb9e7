#include "kernels/gemm/gemm_micro_kernel.h"

namespace loom::kernels {

void f32_gemm_4x8__portable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                            float alpha, int mr, int nr, bool accumulate) {
  constexpr int kMr = 4, kNr = 8;
  float acc[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kNr; ++j) acc[i][j] += a[p * kMr + i] * b[p * kNr + j];
    }
  }
  for (int i = 0; i < mr; ++i) {
    for (int j = 0; j < nr; ++j) {
      c[i * ldc + j] = alpha * acc[i][j] + (accumulate ? c[i * ldc + j] : 0.0f);
    }
  }
}

}  // namespace loom::kernels
