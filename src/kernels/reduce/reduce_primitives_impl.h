// Template bodies of the reduction primitives (reduce_primitives.h).
//
// Included by reduce_primitives_portable.cc and the x86/ files, each
// compiled with its own ISA flags, and by reduce.cc for the scalar helpers
// (Add, Max, Identity, ...) that combine partial results. Everything here has internal linkage (an
// unnamed namespace), so an AVX-512 copy of a helper can never be picked by
// the linker for the portable table. Plain ternaries instead of std::max /
// std::abs for the same reason: no shared inline functions.
//
// Loops run in blocks of kLanes with a fixed trip count, which GCC
// vectorizes even at -O2 (its "very cheap" cost model skips loops of
// unknown length), and keep kLanes independent partial results so a sum
// is not one serial dependency chain. The lanes are combined in a fixed
// tree, so the result does not depend on the vector width either.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/reduce/reduce_primitives.h"

namespace loom::kernels {
namespace {

// 32 lanes = 4 AVX2 / 2 AVX-512 registers of float: enough independent
// chains to hide the 4-cycle add latency on two ports.
constexpr int kLanes = 32;

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

// Integer sums and products wrap (via unsigned arithmetic) instead of UB.
template <typename T>
inline T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T Mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Types narrower than int promote to (signed) int before multiplying,
    // where 0xffff * 0xffff would overflow: multiply as unsigned int then.
    using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
    return static_cast<T>(static_cast<Wide>(static_cast<Unsigned<T>>(a)) *
                          static_cast<Wide>(static_cast<Unsigned<T>>(b)));
  } else {
    return a * b;
  }
}
template <typename T>
inline T Abs(T x) {
  if constexpr (std::is_unsigned_v<T>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    return x < 0 ? static_cast<T>(Unsigned<T>{0} - static_cast<Unsigned<T>>(x)) : x;
  } else {
    return x < 0 ? -x : x;
  }
}
// Keeps a NaN accumulator; takes x when x is larger or NaN.
template <typename T>
inline T Max(T acc, T x) {
  return (acc > x || acc != acc) ? acc : x;
}
template <typename T>
inline T Min(T acc, T x) {
  return (acc < x || acc != acc) ? acc : x;
}

template <typename T>
constexpr T Identity(ReducePrim prim) {
  switch (prim) {
    case ReducePrim::kMax:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    case ReducePrim::kMin:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
    case ReducePrim::kProd:
      return T{1};
    default:
      return T{0};
  }
}

// Folds x[0, n) into kLanes partial results with `step`, then combines the
// lanes pairwise with `combine`.
template <typename T, typename Step, typename Combine>
inline T LaneFold(const T* __restrict x, int64_t n, T identity, Step step, Combine combine) {
  T lanes[kLanes];
  for (int j = 0; j < kLanes; ++j) lanes[j] = identity;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = step(lanes[j], x[i + j]);
  }
  for (int j = 0; i + j < n; ++j) lanes[j] = step(lanes[j], x[i + j]);
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int j = 0; j < width; ++j) lanes[j] = combine(lanes[j], lanes[j + width]);
  }
  return lanes[0];
}

// Max (kIsMax) or Min of x[0, n), NaN-propagating. For floats the fast
// loop is a plain compare-select (one vmaxps) plus a running sum per lane:
// a NaN anywhere makes its lane's sum NaN, and only then (or on inf - inf,
// a harmless false alarm) is the row rescanned with the NaN-aware select,
// which costs twice as much per element.
template <typename T, bool kIsMax>
T ExtremeRow(const T* __restrict x, int64_t n) {
  auto nan_aware = [](T a, T v) { return kIsMax ? Max(a, v) : Min(a, v); };
  if constexpr (std::is_floating_point_v<T>) {
    auto plain = [](T a, T v) { return (kIsMax ? v > a : v < a) ? v : a; };
    T best[kLanes], sum[kLanes];
    for (int j = 0; j < kLanes; ++j) {
      best[j] = Identity<T>(kIsMax ? ReducePrim::kMax : ReducePrim::kMin);
      sum[j] = T{0};
    }
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) {
        best[j] = plain(best[j], x[i + j]);
        sum[j] += x[i + j];
      }
    }
    for (int j = 0; i + j < n; ++j) {
      best[j] = plain(best[j], x[i + j]);
      sum[j] += x[i + j];
    }
    bool suspect = false;
    for (int j = 0; j < kLanes; ++j) suspect |= sum[j] != sum[j];
    if (!suspect) {
      for (int width = kLanes / 2; width >= 1; width /= 2) {
        for (int j = 0; j < width; ++j) best[j] = plain(best[j], best[j + width]);
      }
      return best[0];
    }
  }
  return LaneFold(x, n, Identity<T>(kIsMax ? ReducePrim::kMax : ReducePrim::kMin), nan_aware,
                  nan_aware);
}

template <typename T>
T RowImpl(ReducePrim prim, const T* x, int64_t n, T shift) {
  const T id = Identity<T>(prim);
  auto add = [](T a, T b) { return Add(a, b); };
  switch (prim) {
    case ReducePrim::kSum:
      return LaneFold(x, n, id, add, add);
    case ReducePrim::kSumAbs:
      return LaneFold(
          x, n, id, [](T a, T v) { return Add(a, Abs(v)); }, add);
    case ReducePrim::kSumSquare:
      return LaneFold(
          x, n, id, [](T a, T v) { return Add(a, Mul(v, v)); }, add);
    case ReducePrim::kMax:
      return LaneFold(
          x, n, id, [](T a, T v) { return Max(a, v); }, [](T a, T b) { return Max(a, b); });
    case ReducePrim::kMin:
      return LaneFold(
          x, n, id, [](T a, T v) { return Min(a, v); }, [](T a, T b) { return Min(a, b); });
    case ReducePrim::kProd:
      return LaneFold(
          x, n, id, [](T a, T v) { return Mul(a, v); }, [](T a, T b) { return Mul(a, b); });
    case ReducePrim::kSumExp:
      if constexpr (std::is_floating_point_v<T>) {
        return LaneFold(
            x, n, id, [shift](T a, T v) { return a + std::exp(v - shift); }, add);
      }
      break;
  }
  return id;
}

// acc[i] = step(acc[i], x[i]) in blocks of kLanes.
template <typename T, typename Step>
inline void ColumnFold(T* __restrict acc, const T* __restrict x, int64_t n, Step step) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[i + j] = step(acc[i + j], x[i + j]);
  }
  for (; i < n; ++i) acc[i] = step(acc[i], x[i]);
}

template <typename T>
void ColumnImpl(ReducePrim prim, T* acc, const T* x, int64_t n, const T* shift) {
  switch (prim) {
    case ReducePrim::kSum:
      return ColumnFold(acc, x, n, [](T a, T v) { return Add(a, v); });
    case ReducePrim::kSumAbs:
      return ColumnFold(acc, x, n, [](T a, T v) { return Add(a, Abs(v)); });
    case ReducePrim::kSumSquare:
      return ColumnFold(acc, x, n, [](T a, T v) { return Add(a, Mul(v, v)); });
    case ReducePrim::kMax:
      return ColumnFold(acc, x, n, [](T a, T v) { return Max(a, v); });
    case ReducePrim::kMin:
      return ColumnFold(acc, x, n, [](T a, T v) { return Min(a, v); });
    case ReducePrim::kProd:
      return ColumnFold(acc, x, n, [](T a, T v) { return Mul(a, v); });
    case ReducePrim::kSumExp:
      if constexpr (std::is_floating_point_v<T>) {
        for (int64_t i = 0; i < n; ++i) acc[i] += std::exp(x[i] - shift[i]);
      }
      return;
  }
}

template <typename T>
constexpr ReducePrimitives<T> kPrimitives = {RowImpl<T>, ColumnImpl<T>};

}  // namespace
}  // namespace loom::kernels
