// NCHWc inner loops (nchwc_micro_kernel_impl.h) in portable C++: blocks of 8
// floats as a GCC vector (two SSE registers on x86-64's baseline), tiles of
// 2 output blocks x 4 columns; no fused multiply-add. Also the table lookup.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/nchwc/nchwc_micro_kernel_impl.h"

namespace loom::kernels {
namespace {

struct Portable {
  typedef float V __attribute__((vector_size(32)));
  static constexpr int kBlock = 8;
  static constexpr bool kPrefetchNextTile = false;
  // No register file to fit (plain arrays): the epilogue as in registers.
  static constexpr int kRegisters = 1 << 16;
  static constexpr int kTileBlocks = 2;
  static constexpr int kTileWidth[3] = {0, 4, 4};
  static constexpr int kDepthwiseWidth = 4;
  static V Load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, V v) { std::memcpy(p, &v, sizeof(v)); }
  static V Broadcast(const float* p) { return V{} + *p; }
  static V Fma(V a, V b, V c) { return a * b + c; }
  static V Mul(V a, V b) { return a * b; }
  static V Add(V a, V b) { return a + b; }
  static V Sub(V a, V b) { return a - b; }
  static V Div(V a, V b) { return a / b; }
  static V Round(V a) {
    for (int l = 0; l < kBlock; ++l) a[l] = std::nearbyint(a[l]);
    return a;
  }
  static V Scale2(V v, V n) {
    for (int l = 0; l < kBlock; ++l) {
      if (!std::isnan(n[l])) v[l] = std::ldexp(v[l], static_cast<int>(n[l]));
    }
    return v;
  }
  static V Max(V a, V b) { return a > b ? a : b; }
  static V Min(V a, V b) { return a < b ? a : b; }
  static void Transpose(V (&r)[kBlock]) {
    V t[kBlock];
    for (int i = 0; i < kBlock; ++i)
      for (int j = 0; j < kBlock; ++j) t[j][i] = r[i][j];
    for (int i = 0; i < kBlock; ++i) r[i] = t[i];
  }
  static V Zero() { return V{}; }
};

}  // namespace

const NchwcMicroKernels& NchwcMicroKernelsPortable() {
  static constexpr NchwcMicroKernels kKernels{
      .isa = Isa::kPortable,
      .block = Portable::kBlock,
      .conv_segment = nchwc_detail::ConvSegmentAnyInput<Portable>,
      .depthwise_segment = nchwc_detail::DepthwiseSegment<Portable>,
      .affine_plane = nchwc_detail::AffinePlane<Portable>,
      .pool_row = nchwc_detail::PoolRow<Portable>,
      .global_pool = nchwc_detail::GlobalPool<Portable>,
      .reorder_in = nchwc_detail::ReorderIn<Portable>,
      .reorder_out = nchwc_detail::ReorderOut<Portable>,
      .winograd_input = nchwc_detail::WinogradInput<Portable>,
      .winograd_output = nchwc_detail::WinogradOutput<Portable>,
      .tile_blocks = Portable::kTileBlocks,
      .tile_width = {Portable::kTileWidth[1], Portable::kTileWidth[2], Portable::kTileWidth[2],
                     Portable::kTileWidth[2]},
  };
  return kKernels;
}

namespace {

struct NchwcVariant {
  Isa isa;
  const NchwcMicroKernels& (*kernels)();
};

constexpr std::array<NchwcVariant, 3> kNchwcVariants = {{
    {Isa::kPortable, NchwcMicroKernelsPortable},
    {Isa::kAvx2Fma, NchwcMicroKernelsAvx2},
    {Isa::kAvx512f, NchwcMicroKernelsAvx512},
}};

}  // namespace

const NchwcMicroKernels& NchwcMicroKernelsFor(Isa isa) {
  return SelectIsaVariant("NCHWc", kNchwcVariants, isa).kernels();
}

IsaMask NchwcIsaLevels() { return IsaVariantLevels(kNchwcVariants); }

const NchwcMicroKernels* NchwcMicroKernelsForBlock(Isa isa, int64_t block) {
  const NchwcMicroKernels& own = NchwcMicroKernelsFor(isa);
  if (own.block == block) return &own;
  if (block == NchwcMicroKernelsPortable().block) return &NchwcMicroKernelsPortable();
  return nullptr;
}

}  // namespace loom::kernels
