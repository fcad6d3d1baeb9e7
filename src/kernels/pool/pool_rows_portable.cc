// The pooling loops of pool_row_kernels.h compiled for the x86-64 baseline:
// float32's portable entry in the ISA table, and the only variant of the
// other element types (float64 accumulates in float64; int8 and uint8 only
// have MaxPool, which needs no accumulator).
#include "kernels/pool/pool_row_kernels.h"

namespace loom::kernels {

void f32_max_pool_rows__portable(const PoolPlan& plan, const float* x, float* y, int64_t* indices,
                                 int64_t row_begin, int64_t row_end) {
  MaxRows(plan, x, y, indices, row_begin, row_end);
}

void f32_average_pool_rows__portable(const PoolPlan& plan, const float* x, float* y,
                                     int64_t row_begin, int64_t row_end) {
  AverageRows<float, float>(plan, x, y, row_begin, row_end);
}

void f32_global_max_pool__portable(const float* x, int64_t plane_size, float* y,
                                   int64_t plane_begin, int64_t plane_end) {
  GlobalMaxPlanes(x, plane_size, y, plane_begin, plane_end);
}

void f32_global_average_pool__portable(const float* x, int64_t plane_size, float* y,
                                       int64_t plane_begin, int64_t plane_end) {
  GlobalAveragePlanes(x, plane_size, y, plane_begin, plane_end);
}

void max_pool_rows__portable(const PoolPlan& plan, const double* x, double* y, int64_t* indices,
                             int64_t row_begin, int64_t row_end) {
  MaxRows(plan, x, y, indices, row_begin, row_end);
}

void max_pool_rows__portable(const PoolPlan& plan, const int8_t* x, int8_t* y, int64_t* indices,
                             int64_t row_begin, int64_t row_end) {
  MaxRows(plan, x, y, indices, row_begin, row_end);
}

void max_pool_rows__portable(const PoolPlan& plan, const uint8_t* x, uint8_t* y, int64_t* indices,
                             int64_t row_begin, int64_t row_end) {
  MaxRows(plan, x, y, indices, row_begin, row_end);
}

void average_pool_rows__portable(const PoolPlan& plan, const double* x, double* y,
                                 int64_t row_begin, int64_t row_end) {
  AverageRows<double, double>(plan, x, y, row_begin, row_end);
}

void global_max_pool__portable(const double* x, int64_t plane_size, double* y, int64_t plane_begin,
                               int64_t plane_end) {
  GlobalMaxPlanes(x, plane_size, y, plane_begin, plane_end);
}

void global_average_pool__portable(const double* x, int64_t plane_size, double* y,
                                   int64_t plane_begin, int64_t plane_end) {
  GlobalAveragePlanes(x, plane_size, y, plane_begin, plane_end);
}

}  // namespace loom::kernels
