// Attention micro-kernels (attention_micro_kernel_impl.h) in portable C++:
// 8 floats as a GCC vector (two SSE registers on x86-64's baseline), up to
// 4 accumulators; no fused multiply-add. Also the table lookup.
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/attention/attention_micro_kernel_impl.h"

namespace loom::kernels {
namespace {

struct Portable {
  typedef float V __attribute__((vector_size(32)));
  static constexpr int kLanes = 8;
  static constexpr int kAccumulators = 4;
  static constexpr int kMaxColumnVectors = 4;
  static V Load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, V v) { std::memcpy(p, &v, sizeof(v)); }
  static V Broadcast(float x) { return V{} + x; }
  static V Fma(V a, V b, V c) { return a * b + c; }
  static V Zero() { return V{}; }
  static V Add(V a, V b) { return a + b; }
  static V Sub(V a, V b) { return a - b; }
  static V Mul(V a, V b) { return a * b; }
  static V Max(V a, V b) { return a > b ? a : b; }
  static float ReduceAdd(V v) {
    return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
  }
  static float ReduceMax(V v) {
    float m = v[0];
    for (int l = 1; l < kLanes; ++l) m = v[l] > m ? v[l] : m;
    return m;
  }
  static V Exp(V x) {
    for (int l = 0; l < kLanes; ++l) x[l] = std::exp(x[l]);
    return x;
  }
};

}  // namespace

const AttentionMicroKernels& AttentionMicroKernelsPortable() {
  static constexpr AttentionMicroKernels kKernels =
      attention_detail::MakeTable<Portable>(Isa::kPortable);
  return kKernels;
}

namespace {

struct AttentionVariant {
  Isa isa;
  const AttentionMicroKernels& (*kernels)();
};

constexpr std::array<AttentionVariant, 3> kAttentionVariants = {{
    {Isa::kPortable, AttentionMicroKernelsPortable},
    {Isa::kAvx2Fma, AttentionMicroKernelsAvx2},
    {Isa::kAvx512f, AttentionMicroKernelsAvx512},
}};

}  // namespace

const AttentionMicroKernels& AttentionMicroKernelsFor(Isa isa) {
  return SelectIsaVariant("attention", kAttentionVariants, isa).kernels();
}

IsaMask AttentionIsaLevels() { return IsaVariantLevels(kAttentionVariants); }

}  // namespace loom::kernels
