#include "kernels/half_float.h"

#include <string>

#include "loom/errors.h"

namespace loom::kernels {
namespace {

template <typename Half>
void Widen(const Half* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

template <typename Half>
void Narrow(const float* in, Half* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Half(in[i]);
}

}  // namespace

Tensor WidenToFloat32(const Tensor& tensor) {
  if (!ComputesInFloat32(tensor.dtype())) return tensor;
  Tensor out = Tensor::uninitialized(DType::kFloat32, tensor.shape());
  if (tensor.dtype() == DType::kFloat16) {
    Widen(tensor.data<Float16>(), out.data<float>(), tensor.num_elements());
  } else {
    Widen(tensor.data<BFloat16>(), out.data<float>(), tensor.num_elements());
  }
  return out;
}

Tensor NarrowFromFloat32(const Tensor& tensor, DType dtype) {
  if (dtype == DType::kFloat32) return tensor;
  if (tensor.dtype() != DType::kFloat32 || !ComputesInFloat32(dtype)) {
    throw InvalidArgumentError("NarrowFromFloat32: cannot narrow " +
                               std::string(dtype_name(tensor.dtype())) + " to " +
                               std::string(dtype_name(dtype)));
  }
  Tensor out = Tensor::uninitialized(dtype, tensor.shape());
  if (dtype == DType::kFloat16) {
    Narrow(tensor.data<float>(), out.data<Float16>(), tensor.num_elements());
  } else {
    Narrow(tensor.data<float>(), out.data<BFloat16>(), tensor.num_elements());
  }
  return out;
}

}  // namespace loom::kernels
