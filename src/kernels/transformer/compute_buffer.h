// The transformer kernels compute in float32 (float64 when an operand is
// float64): these helpers view any float tensor in the compute type and
// store results back in the output dtype, each element rounded once.
#pragma once

#include <type_traits>

#include "kernels/half_float.h"
#include "kernels/reference/element_access.h"
#include "loom/tensor.h"

namespace loom::kernels {

// `t` in compute type C (float or double): `t` itself when it already is,
// else a converted copy (exact when widening).
template <typename C>
Tensor InComputeType(const Tensor& t) {
  const DType target = std::is_same_v<C, float> ? DType::kFloat32 : DType::kFloat64;
  if (t.dtype() == target) return t;
  if (target == DType::kFloat32 && ComputesInFloat32(t.dtype())) return WidenToFloat32(t);
  Tensor out = Tensor::uninitialized(target, t.shape());
  C* o = out.data<C>();
  for (int64_t i = 0; i < t.num_elements(); ++i) o[i] = static_cast<C>(ReadElementAsDouble(t, i));
  return out;
}

// `t` (float32 or float64) as `dtype`, each element rounded once.
inline Tensor FromComputeType(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  if (t.dtype() == DType::kFloat32 && ComputesInFloat32(dtype)) return NarrowFromFloat32(t, dtype);
  Tensor out = Tensor::uninitialized(dtype, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    WriteElementFromDouble(out, i, ReadElementAsDouble(t, i));
  }
  return out;
}

}  // namespace loom::kernels
