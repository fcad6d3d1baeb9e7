// Pooling loops as templates, compiled once per ISA level: included by
// pool_rows_portable.cc and by pool/f32_pool_rows__avx2_fma.cc (built with
// -mavx2 -mfma), so the compiler vectorizes the same loops for each level.
//
// Everything here has internal linkage (anonymous namespace) on purpose:
// each ISA's translation unit must keep its own copies, or the linker could
// merge an AVX2 instantiation into the portable path. For the same reason
// the loops use no out-of-line library templates (no std::vector): setup
// and scratch space come from RowWindows, compiled once in pool_common.cc.
//
// One output row (see pool_common.h) reads a set of input rows ("tap rows":
// the in-range positions of every spatial axis but the last, in row-major
// window order) and, on the last axis, positions ow * s - pb + t * d for
// t < k. Columns whose windows lie inside the input on the last axis
// ("interior", [lo, hi)) run loops over output columns with no bounds
// checks, one window tap at a time, which the compiler vectorizes (stride 1
// and 2 are template constants); the few border columns check bounds per
// element. Both visit a window's elements in the same row-major order, so
// results never depend on which path, ISA or thread computed them.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/pool/pool_common.h"
#include "kernels/pool/pool_max_bytes_sse2.h"

namespace loom::kernels {
namespace {

template <typename T>
constexpr T LowestValue() {
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

template <typename T>
inline bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

// Whether v replaces best: strictly greater (ties keep the earlier element)
// or the first NaN (which then stays).
// Bitwise, not short-circuit, operators: no branch, so the compiler can
// if-convert and vectorize the loops that use it.
template <typename T>
inline bool Takes(T v, T best) {
  return (v > best) | (IsNan(v) & !IsNan(best));
}

// ---- MaxPool ----

// Border column ow, bounds-checked. Sets *y and the in-plane *index.
template <typename T>
void MaxWindow(const RowWindows& w, const T* plane, int64_t ow, T* y, int64_t* index) {
  bool found = false;
  T best = LowestValue<T>();
  int64_t best_index = -1;
  const int64_t start = ow * w.s - w.pb;
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const TapRow& tap = w.taps[r];
    for (int64_t t = 0; t < w.k; ++t) {
      const int64_t iw = start + t * w.d;
      if (iw < 0 || iw >= w.in_w) continue;
      const T v = plane[tap.offset + iw];
      if (!found || Takes(v, best)) {
        found = true;
        best = v;
        best_index = tap.index + iw * w.index_step;
      }
    }
  }
  *y = best;
  *index = best_index;
}

// The same without the index: the window's taps in range are computed up
// front, so the loop has no per-element checks. Same order, so the same
// value (an empty window gives LowestValue, as MaxWindow does).
template <typename T>
T MaxWindowValue(const RowWindows& w, const T* plane, int64_t ow) {
  const int64_t start = ow * w.s - w.pb;
  const int64_t t_begin = start >= 0 ? 0 : (-start + w.d - 1) / w.d;
  const int64_t in_range = start >= w.in_w ? 0 : (w.in_w - 1 - start) / w.d + 1;
  const int64_t t_end = in_range < w.k ? in_range : w.k;
  T best = LowestValue<T>();
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const int64_t row = w.taps[r].offset + start;  // may be before the row: index, no pointer
    for (int64_t t = t_begin; t < t_end; ++t) {
      const T v = plane[row + t * w.d];
      best = Takes(v, best) ? v : best;
    }
  }
  return best;
}

// Interior columns [lo, hi) of one row; y and index point at column lo. The
// in-plane index is kept in I (int32 when the plane allows) so it has the
// width of a float lane.
template <typename T, typename I, int kStride>
void MaxRowInterior(const RowWindows& w, const T* plane, T* __restrict y, I* __restrict index) {
  const int64_t s = kStride != 0 ? kStride : w.s;
  const I n = static_cast<I>(w.hi - w.lo);
  const I index_stride = static_cast<I>(s * w.index_step);
  bool first = true;
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const TapRow& tap = w.taps[r];
    for (int64_t t = 0; t < w.k; ++t) {
      const int64_t start = w.lo * s - w.pb + t * w.d;  // >= 0 in the interior
      const T* __restrict src = plane + tap.offset + start;
      const I base = static_cast<I>(tap.index + start * w.index_step);
      // `candidate` is an induction variable rather than base + j * stride:
      // that multiply was a vpmulld per vector per tap.
      I candidate = base;
      if (first) {
        for (I j = 0; j < n; ++j) {
          y[j] = src[j * s];
          index[j] = candidate;
          candidate += index_stride;
        }
        first = false;
        continue;
      }
      for (I j = 0; j < n; ++j) {
        const T v = src[j * s];
        const bool take = Takes(v, y[j]);
        y[j] = take ? v : y[j];
        index[j] = take ? candidate : index[j];
        candidate += index_stride;
      }
    }
  }
}

// The same without indices (MaxPool's Indices not wanted): y[j] = max over
// the window, NaN winning as in Takes. int8/uint8 at stride 1 or 2 take
// the SSE2 loop of pool_max_bytes_sse2.h instead.
template <typename T, int kStride>
void MaxRowInteriorValues(const RowWindows& w, const T* plane, T* __restrict y) {
  if (MaxRowInteriorBytes<T, kStride>(w, plane, y)) return;
  const int64_t s = kStride != 0 ? kStride : w.s;
  const int64_t n = w.hi - w.lo;
  bool first = true;
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const TapRow& tap = w.taps[r];
    for (int64_t t = 0; t < w.k; ++t) {
      const T* __restrict src = plane + tap.offset + w.lo * s - w.pb + t * w.d;
      if (first) {
        for (int64_t j = 0; j < n; ++j) y[j] = src[j * s];
        first = false;
        continue;
      }
      for (int64_t j = 0; j < n; ++j) {
        const T v = src[j * s];
        y[j] = Takes(v, y[j]) ? v : y[j];
      }
    }
  }
}

template <typename T, typename I, int kStride>
void MaxRowsImpl(const PoolPlan& plan, const T* x, T* y, int64_t* indices, int64_t row_begin,
                 int64_t row_end) {
  RowWindows w(plan);
  I* scratch = static_cast<I*>(w.scratch);
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t plane = row / plan.rows_per_plane;
    w.Prepare(row % plan.rows_per_plane);
    const T* in = x + plane * plan.plane_size;
    const int64_t index_base = plane * plan.plane_size;
    T* out = y + row * w.out_w;
    if (indices == nullptr) {  // values only
      if (w.num_taps == 0) {
        for (int64_t ow = 0; ow < w.out_w; ++ow) out[ow] = LowestValue<T>();
        continue;
      }
      for (int64_t ow = 0; ow < w.lo; ++ow) out[ow] = MaxWindowValue(w, in, ow);
      if (w.hi > w.lo) MaxRowInteriorValues<T, kStride>(w, in, out + w.lo);
      for (int64_t ow = w.hi; ow < w.out_w; ++ow) out[ow] = MaxWindowValue(w, in, ow);
      continue;
    }
    int64_t* out_index = indices + row * w.out_w;
    if (w.num_taps == 0) {  // every window of the row lies in padding
      for (int64_t ow = 0; ow < w.out_w; ++ow) {
        out[ow] = LowestValue<T>();
        out_index[ow] = -1;
      }
      continue;
    }
    auto border = [&](int64_t ow) {
      MaxWindow(w, in, ow, &out[ow], &out_index[ow]);
      if (out_index[ow] >= 0) out_index[ow] += index_base;
    };
    for (int64_t ow = 0; ow < w.lo; ++ow) border(ow);
    if (w.hi > w.lo) {
      MaxRowInterior<T, I, kStride>(w, in, out + w.lo, scratch);
      for (int64_t j = 0; j < w.hi - w.lo; ++j) out_index[w.lo + j] = index_base + scratch[j];
    }
    for (int64_t ow = w.hi; ow < w.out_w; ++ow) border(ow);
  }
}

template <typename T>
void MaxRows(const PoolPlan& plan, const T* x, T* y, int64_t* indices, int64_t row_begin,
             int64_t row_end) {
  if (plan.plane_size > std::numeric_limits<int32_t>::max()) {
    MaxRowsImpl<T, int64_t, 0>(plan, x, y, indices, row_begin, row_end);
    return;
  }
  switch (plan.geometry.stride.back()) {
    case 1:
      MaxRowsImpl<T, int32_t, 1>(plan, x, y, indices, row_begin, row_end);
      break;
    case 2:
      MaxRowsImpl<T, int32_t, 2>(plan, x, y, indices, row_begin, row_end);
      break;
    default:
      MaxRowsImpl<T, int32_t, 0>(plan, x, y, indices, row_begin, row_end);
  }
}

// ---- AveragePool ----

template <typename T, typename Acc>
T Quotient(Acc sum, int64_t divisor) {
  return divisor == 0 ? T(0) : static_cast<T>(sum / static_cast<Acc>(divisor));
}

// Border column ow, bounds-checked.
template <typename T, typename Acc>
T AverageWindow(const RowWindows& w, const T* plane, int64_t ow, bool count_include_pad) {
  const int64_t start = ow * w.s - w.pb;
  int64_t real_w = 0, padded_w = 0;
  for (int64_t t = 0; t < w.k; ++t) {
    const int64_t iw = start + t * w.d;
    if (iw >= 0 && iw < w.in_w) ++real_w;
    if (iw >= -w.pb && iw < w.in_w + w.pe) ++padded_w;
  }
  Acc sum = 0;
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const TapRow& tap = w.taps[r];
    for (int64_t t = 0; t < w.k; ++t) {
      const int64_t iw = start + t * w.d;
      if (iw >= 0 && iw < w.in_w) sum += static_cast<Acc>(plane[tap.offset + iw]);
    }
  }
  const int64_t divisor = count_include_pad ? w.outer_pad_count * padded_w : w.num_taps * real_w;
  return Quotient<T>(sum, divisor);
}

// Interior columns [lo, hi) of one row; y points at column lo.
template <typename T, typename Acc, int kStride>
void AverageRowInterior(const RowWindows& w, const T* plane, bool count_include_pad,
                        T* __restrict y, Acc* __restrict acc) {
  const int64_t s = kStride != 0 ? kStride : w.s;
  const int64_t n = w.hi - w.lo;
  for (int64_t j = 0; j < n; ++j) acc[j] = 0;
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const TapRow& tap = w.taps[r];
    for (int64_t t = 0; t < w.k; ++t) {
      const T* __restrict src = plane + tap.offset + w.lo * s - w.pb + t * w.d;
      for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<Acc>(src[j * s]);
    }
  }
  // Every last-axis position of an interior window is real input.
  const int64_t divisor = (count_include_pad ? w.outer_pad_count : w.num_taps) * w.k;
  if (divisor == 0) {
    for (int64_t j = 0; j < n; ++j) y[j] = T(0);
    return;
  }
  const Acc scale_divisor = static_cast<Acc>(divisor);
  for (int64_t j = 0; j < n; ++j) y[j] = static_cast<T>(acc[j] / scale_divisor);
}

template <typename T, typename Acc, int kStride>
void AverageRowsImpl(const PoolPlan& plan, const T* x, T* y, int64_t row_begin, int64_t row_end) {
  RowWindows w(plan);
  Acc* scratch = static_cast<Acc*>(w.scratch);
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t plane = row / plan.rows_per_plane;
    w.Prepare(row % plan.rows_per_plane);
    const T* in = x + plane * plan.plane_size;
    T* out = y + row * w.out_w;
    for (int64_t ow = 0; ow < w.lo; ++ow) {
      out[ow] = AverageWindow<T, Acc>(w, in, ow, plan.count_include_pad);
    }
    if (w.hi > w.lo) {
      AverageRowInterior<T, Acc, kStride>(w, in, plan.count_include_pad, out + w.lo, scratch);
    }
    for (int64_t ow = w.hi; ow < w.out_w; ++ow) {
      out[ow] = AverageWindow<T, Acc>(w, in, ow, plan.count_include_pad);
    }
  }
}

template <typename T, typename Acc>
void AverageRows(const PoolPlan& plan, const T* x, T* y, int64_t row_begin, int64_t row_end) {
  switch (plan.geometry.stride.back()) {
    case 1:
      AverageRowsImpl<T, Acc, 1>(plan, x, y, row_begin, row_end);
      break;
    case 2:
      AverageRowsImpl<T, Acc, 2>(plan, x, y, row_begin, row_end);
      break;
    default:
      AverageRowsImpl<T, Acc, 0>(plan, x, y, row_begin, row_end);
  }
}

// ---- Global pools ----

// Partial results per lane, combined in lane order: 16 lanes are two AVX2
// vectors (or four SSE ones) of float, and fixing the lane count rather
// than the vector width keeps every ISA's order, hence result, the same.
constexpr int kGlobalLanes = 16;

template <typename T>
T PlaneMax(const T* x, int64_t n) {  // n >= 1
  T best = x[0];
  int64_t i = 1;
  if (n >= 2 * kGlobalLanes) {
    T lanes[kGlobalLanes];
    for (int l = 0; l < kGlobalLanes; ++l) lanes[l] = x[l];
    for (i = kGlobalLanes; i + kGlobalLanes <= n; i += kGlobalLanes) {
      for (int l = 0; l < kGlobalLanes; ++l) {
        const T v = x[i + l];
        lanes[l] = Takes(v, lanes[l]) ? v : lanes[l];
      }
    }
    best = lanes[0];
    for (int l = 1; l < kGlobalLanes; ++l) best = Takes(lanes[l], best) ? lanes[l] : best;
  }
  for (; i < n; ++i) best = Takes(x[i], best) ? x[i] : best;
  return best;
}

template <typename T>
T PlaneSum(const T* x, int64_t n) {
  T lanes[kGlobalLanes] = {};
  int64_t i = 0;
  for (; i + kGlobalLanes <= n; i += kGlobalLanes) {
    for (int l = 0; l < kGlobalLanes; ++l) lanes[l] += x[i + l];
  }
  T sum = 0;
  for (int l = 0; l < kGlobalLanes; ++l) sum += lanes[l];
  for (; i < n; ++i) sum += x[i];
  return sum;
}

template <typename T>
void GlobalMaxPlanes(const T* x, int64_t plane_size, T* y, int64_t plane_begin, int64_t plane_end) {
  for (int64_t p = plane_begin; p < plane_end; ++p) y[p] = PlaneMax(x + p * plane_size, plane_size);
}

template <typename T>
void GlobalAveragePlanes(const T* x, int64_t plane_size, T* y, int64_t plane_begin,
                         int64_t plane_end) {
  const T count = static_cast<T>(plane_size);
  for (int64_t p = plane_begin; p < plane_end; ++p) {
    y[p] = PlaneSum(x + p * plane_size, plane_size) / count;
  }
}

}  // namespace
}  // namespace loom::kernels
