// Portable softmax exp loops: std::exp per element (libm, correctly
// rounded to within an ulp), sums in kLanes independent partial sums
// combined in a fixed tree.
#include <array>
#include <cmath>

#include "kernels/normalization/softmax_primitives.h"

namespace loom::kernels {
namespace {

constexpr int kLanes = 8;

template <typename T>
T ExpShiftSum(const T* x, T shift, T* y, int64_t n) {
  T lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      y[i + j] = std::exp(x[i + j] - shift);
      lanes[j] += y[i + j];
    }
  }
  for (int j = 0; i + j < n; ++j) {
    y[i + j] = std::exp(x[i + j] - shift);
    lanes[j] += y[i + j];
  }
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  }
  return lanes[0];
}

template <typename T>
void ExpShift(const T* x, const T* shift, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - shift[i]);
}

template <typename T>
constexpr SoftmaxPrimitives<T> kPortable = {ExpShiftSum<T>, ExpShift<T>};

}  // namespace

template <typename T>
const SoftmaxPrimitives<T>& PortableSoftmaxPrimitives() {
  return kPortable<T>;
}

template const SoftmaxPrimitives<float>& PortableSoftmaxPrimitives<float>();
template const SoftmaxPrimitives<double>& PortableSoftmaxPrimitives<double>();

namespace {

struct F32SoftmaxVariant {
  Isa isa;
  const SoftmaxPrimitives<float>& (*primitives)();
};

constexpr std::array<F32SoftmaxVariant, 2> kF32Variants = {{
    {Isa::kPortable, PortableSoftmaxPrimitives<float>},
    {Isa::kAvx2Fma, F32SoftmaxPrimitives__avx2_fma},
}};

}  // namespace

const SoftmaxPrimitives<float>& F32SoftmaxPrimitivesFor(Isa isa) {
  return SelectIsaVariant("softmax", kF32Variants, isa).primitives();
}

IsaMask F32SoftmaxIsaLevels() { return IsaVariantLevels(kF32Variants); }

}  // namespace loom::kernels
