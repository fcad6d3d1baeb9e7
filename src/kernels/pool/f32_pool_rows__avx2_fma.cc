// The float32 pooling loops of pool_row_kernels.h compiled with -mavx2 -mfma
// (see pool.cmake): the same source as the portable variant, vectorized
// eight floats wide. There is no multiply-add in these loops to contract,
// so results equal the portable variant's bit for bit.
#include "kernels/pool/pool_row_kernels.h"

namespace loom::kernels {

void f32_max_pool_rows__avx2_fma(const PoolPlan& plan, const float* x, float* y, int64_t* indices,
                                 int64_t row_begin, int64_t row_end) {
  MaxRows(plan, x, y, indices, row_begin, row_end);
}

void f32_average_pool_rows__avx2_fma(const PoolPlan& plan, const float* x, float* y,
                                     int64_t row_begin, int64_t row_end) {
  AverageRows<float, float>(plan, x, y, row_begin, row_end);
}

void f32_global_max_pool__avx2_fma(const float* x, int64_t plane_size, float* y,
                                   int64_t plane_begin, int64_t plane_end) {
  GlobalMaxPlanes(x, plane_size, y, plane_begin, plane_end);
}

void f32_global_average_pool__avx2_fma(const float* x, int64_t plane_size, float* y,
                                       int64_t plane_begin, int64_t plane_end) {
  GlobalAveragePlanes(x, plane_size, y, plane_begin, plane_end);
}

}  // namespace loom::kernels
