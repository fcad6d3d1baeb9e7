// Internal to the pooling kernels: a resolved pooling problem (PoolPlan) and
// the row kernels that execute it, one set per element type and, for
// float32, per ISA level.
//
// Work is cut into output rows: a row is one line of the last spatial axis
// of one (n, c) plane, with every other output coordinate fixed. Rows are
// numbered plane-major, 0 .. planes * rows_per_plane - 1, and a row kernel
// computes rows [row_begin, row_end) completely, so any split of that range
// over threads gives bit-identical results.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/isa_variant.h"
#include "kernels/op_kernel.h"
#include "kernels/spatial_geometry.h"

namespace loom::kernels {

struct PoolPlan {
  SpatialGeometry geometry;
  int64_t planes = 0;          // N * C
  int64_t plane_size = 0;      // input elements per plane
  int64_t out_plane_size = 0;  // output elements per plane
  int64_t rows_per_plane = 0;  // output rows per plane
  int64_t window_size = 0;     // product of kernel_shape (fits int64: checked)
  bool count_include_pad = false;
  bool column_major_indices = false;  // MaxPool storage_order 1
};

// Checks X has rank >= 3 and one of `dtypes`, resolves the geometry
// (ceil_mode allowed) and returns the plan with its output shape. Throws
// InvalidArgumentError("<op>: ...").
PoolPlan MakePoolPlan(std::string_view op, const Attributes& attrs, const Tensor& x,
                      std::initializer_list<DType> dtypes, Shape* output_shape);

// Checks X has rank >= 2, one of `dtypes` and a non-empty spatial extent;
// returns N * C and sets the N x C x 1 ... x 1 output shape.
int64_t MakeGlobalPoolPlanes(std::string_view op, const Tensor& x,
                             std::initializer_list<DType> dtypes, Shape* output_shape);

// An input row read by the windows of an output row.
struct TapRow {
  int64_t offset;  // of the input row's first element, within the plane
  int64_t index;   // Indices value of that element, within the plane
};

// Walks output rows for the row kernels: the last axis' geometry, the tap
// rows of the current output row (the in-range positions of every other
// spatial axis, in row-major window order) and per-shard scratch space.
// Compiled once, for the baseline ISA, in pool_common.cc; the ISA-specific
// loops only read its fields, so no inline code is shared between ISA
// translation units. One per shard; not thread-safe.
class RowWindows {
 public:
  explicit RowWindows(const PoolPlan& plan);
  ~RowWindows();
  RowWindows(const RowWindows&) = delete;
  RowWindows& operator=(const RowWindows&) = delete;

  // Sets taps, num_taps and outer_pad_count for output row `row` of a plane
  // (0 .. rows_per_plane - 1). taps stays valid until the next call.
  void Prepare(int64_t row);

  const TapRow* taps = nullptr;
  int64_t num_taps = 0;
  int64_t outer_pad_count = 1;  // window positions of the other axes inside
                                // the explicitly padded input

  // The last axis.
  int64_t in_w, out_w, k, s, d, pb, pe;
  int64_t index_step;  // Indices distance between neighbours on the last axis
  int64_t lo, hi;      // interior output columns: windows need no bounds checks
  void* scratch;       // hi - lo elements of up to 8 bytes

 private:
  const SpatialGeometry& g_;
  int last_;
  std::vector<int64_t> in_stride_;
  std::vector<int64_t> index_stride_;
  std::vector<int64_t> coords_;
  std::vector<TapRow> taps_, next_;
  std::vector<int64_t> scratch_;
  // Prepare's results by row, kept on first use: every plane repeats the
  // same rows, and working one out (divisions, the tap list) took about a
  // third of an 8-bit 3x3/2 row's time. Empty where a plane has too many
  // rows or taps to keep (see the constructor).
  struct MemoRow {
    int64_t first = -1;  // into memo_taps_; -1: not computed yet
    int64_t count = 0;
    int64_t outer_pad_count = 0;
  };
  std::vector<MemoRow> memo_;
  std::vector<TapRow> memo_taps_;
};

// Rows [row_begin, row_end) of MaxPool (values and int64 Indices; values
// only when indices is null).
template <typename T>
using MaxPoolRowsFn = void (*)(const PoolPlan& plan, const T* x, T* y, int64_t* indices,
                               int64_t row_begin, int64_t row_end);
// Rows [row_begin, row_end) of AveragePool.
template <typename T>
using AveragePoolRowsFn = void (*)(const PoolPlan& plan, const T* x, T* y, int64_t row_begin,
                                   int64_t row_end);
// y[p] = max or mean of plane p of x (plane_size elements), p in [begin, end).
template <typename T>
using GlobalPoolPlanesFn = void (*)(const T* x, int64_t plane_size, T* y, int64_t plane_begin,
                                    int64_t plane_end);

void f32_max_pool_rows__portable(const PoolPlan&, const float*, float*, int64_t*, int64_t, int64_t);
void f32_max_pool_rows__avx2_fma(const PoolPlan&, const float*, float*, int64_t*, int64_t, int64_t);
void f32_average_pool_rows__portable(const PoolPlan&, const float*, float*, int64_t, int64_t);
void f32_average_pool_rows__avx2_fma(const PoolPlan&, const float*, float*, int64_t, int64_t);
void f32_global_max_pool__portable(const float*, int64_t, float*, int64_t, int64_t);
void f32_global_max_pool__avx2_fma(const float*, int64_t, float*, int64_t, int64_t);
void f32_global_average_pool__portable(const float*, int64_t, float*, int64_t, int64_t);
void f32_global_average_pool__avx2_fma(const float*, int64_t, float*, int64_t, int64_t);

// Other element types: portable code only.
void max_pool_rows__portable(const PoolPlan&, const double*, double*, int64_t*, int64_t, int64_t);
void max_pool_rows__portable(const PoolPlan&, const int8_t*, int8_t*, int64_t*, int64_t, int64_t);
void max_pool_rows__portable(const PoolPlan&, const uint8_t*, uint8_t*, int64_t*, int64_t, int64_t);
void average_pool_rows__portable(const PoolPlan&, const double*, double*, int64_t, int64_t);
void global_max_pool__portable(const double*, int64_t, double*, int64_t, int64_t);
void global_average_pool__portable(const double*, int64_t, double*, int64_t, int64_t);

// The float32 kernels for one ISA level.
struct F32PoolKernels {
  Isa isa;
  MaxPoolRowsFn<float> max_rows;
  AveragePoolRowsFn<float> average_rows;
  GlobalPoolPlanesFn<float> global_max;
  GlobalPoolPlanesFn<float> global_average;
};

// The entry for the best level not above `isa`. There is no AVX-512 variant:
// a guess, unmeasured, that these memory-bound loops gain little from it. Throws
// InvalidArgumentError naming `op` if this CPU does not run `isa`.
const F32PoolKernels& F32PoolKernelsFor(std::string_view op, Isa isa);
// The ISA levels with their own row kernels (isa_variant.h).
IsaMask F32PoolIsaLevels();

}  // namespace loom::kernels
