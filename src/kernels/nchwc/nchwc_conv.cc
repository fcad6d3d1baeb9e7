// NchwcConv (nchwc.h): weight packing (the prepare stage) and the driver
// that pads the input and shards output tiles over the intra-op pool.
//
// Packed weights: per group g, the output blocks in tile groups of up to
// TB = tile_blocks (the micro-kernel's register tile; TileGroups below says
// how the blocks split); a tile group of T blocks starting at block ob0
// holds, for each input block icb, tap (kh, kw) and input channel ic of the
// block, the T x B weights of its output channels side by side, so a tile
// reads one sequential stream:
//   packed[(g * OBg + ob0) * S + ((((icb * KH + kh) * KW + kw) * CPB + ic) * T + t) * B + l]
//     = W[g * Mg + (ob0 + t) * B + l][icb * CPB + ic][kh][kw]   (0 past Mg or Cg)
// with S = ICBg * KH * KW * CPB * B the floats per output block. CPB
// (channels per block) is B for a blocked input and C for a plain one (one
// block holding every channel, so 3 input channels cost 3, not B).
// Depthwise weights are [cb][kh][kw][B]. Winograd's are 36 matrices
// G g G^T, each packed as a 1x1 convolution's (PrepareWinograd).
#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/int_math.h"
#include "kernels/fused_activation.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/nchwc/nchwc_micro_kernel.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// The output blocks of one group in register-tile groups of at most
// tile_blocks. The threads share a conv by units of one tile group x one
// pixel chunk, so with few tile groups a short last one leaves units of
// unequal work: MobileNet-V2's 576->96 1x1 at 14^2 as 4 + 2 blocks split
// into 7 units of twice the work of the other 7, and at intra 2 the caller
// took ~125 us while its helper worked ~85. Up to 3 tile groups therefore split
// evenly (6 blocks as 3 + 3, 10 as 3 + 3 + 4): those layers 1.15-1.19x
// faster at intra 2. With more, the short group is a small share and full
// 4-block tiles do more per load: RegNet-X-400MF's 400->400 1x1 at 7^2
// (25 blocks) as 4 x 6 + 1 ran 84 us at intra 2, split evenly 92
// (bench/results/nchwc-balance-2026-12-04.md).
struct TileGroups {
  int64_t blocks;  // output blocks of a group
  int64_t tile_blocks;
  int64_t count;
  bool even;
  TileGroups(int64_t obg, int64_t tb)
      : blocks(obg),
        tile_blocks(tb),
        count(base::CeilDiv(obg, tb)),
        even(count <= 3 && obg % tb != 0) {}
  int64_t First(int64_t t) const {
    return even ? t * blocks / count : std::min(t * tile_blocks, blocks);
  }
  int64_t Size(int64_t t) const { return First(t + 1) - First(t); }
  int64_t Largest() const {
    return even ? base::CeilDiv(blocks, count) : std::min(tile_blocks, blocks);
  }
  // The tile group holding block ob.
  int64_t Of(int64_t ob) const {
    int64_t t = even ? ob * count / blocks : ob / tile_blocks;
    while (First(t + 1) <= ob) ++t;
    while (First(t) > ob) --t;
    return t;
  }
};

constexpr std::string_view kOp = "NchwcConv";

using base::CeilDiv;

// The zero-padded copy of the input, kept per calling thread and only
// grown; the pool's workers read it while the caller waits in ParallelFor.
float* PaddedScratch(size_t floats) {
  thread_local base::GrowOnlyBuffer buffer;
  return buffer.Floats(floats);
}

// A strided 1x1 conv's input pixels gathered (RunDirect), per calling
// thread, grown only; the pool's workers read it while the caller waits.
float* SubsampledScratch(size_t floats) {
  thread_local base::GrowOnlyBuffer buffer;
  return buffer.Floats(floats);
}

// One group's zero-padded input, per thread that runs a unit (RunDirect's
// pad_in_unit), grown only.
float* UnitPaddedScratch(size_t floats) {
  thread_local base::GrowOnlyBuffer buffer;
  return buffer.Floats(floats);
}

// Winograd's transformed input and products, per calling thread, grown
// only (the pool's workers use them while the caller waits).
float* WinogradScratch(int which, size_t floats) {
  thread_local base::GrowOnlyBuffer buffers[2];
  return buffers[which].Floats(floats);
}

// Winograd's scratch for one pass: images are taken in passes whose
// transformed input and products (2.25x the input and output each) stay
// within this, so they are still in L2/L3 when the next phase reads them.
constexpr int64_t kWinogradPassBytes = 4 * 1024 * 1024;

// The transformed weights are 4x the 3x3 ones (36 values for 9), read once
// per image. Chains of four 3x3 convs, 1 thread, median of 30 alternating
// runs (direct / Winograd, bench/results/winograd-2026-12-04.md): 64 and
// 128 channels at 56^2 and 28^2 2.1x faster; 16 and 32 channels at 112^2
// 1.5x and 1.65x; 128 channels at 7^2 (2.4 MB of weights, 4 tiles) 1.18x;
// 256 at 14^2 (9.4 MB, 16 tiles) 1.08-1.27x; 512 at 7^2 (37 MB) 0.65x. So:
// at most 16 MB, and at most 1 MB per 4x4 tile of one image.
constexpr int64_t kWinogradMaxWeightBytes = 16 * 1024 * 1024;
constexpr int64_t kWinogradWeightBytesPerTile = 1024 * 1024;

// Output pixels one unit of work covers, in register tiles: enough to
// amortize the unit's start (each unit reads its tile group's weights
// again), few enough that two threads get many units. Winograd's products
// (RunWinograd) use 4: with 8, ResNet-18's 14^2 layer had 16 units of
// ~100 us, and the two threads finished ~half a unit apart on average; 4
// with ParallelFor's finer shards for long loops took ResNet-18 at intra 2
// from 1.22-1.24x ONNX Runtime to 1.10x (bench/results/nchwc-2026-12-02c.md),
// and 8 changed nothing later (ResNet-18 1.00x, ResNet-50 0.97-1.02x).
constexpr int64_t kWinogradChunkTiles = 4;
// The direct kernel's units, per CPU (DirectChunkTiles). On Intel (48 KiB
// L1, 16 KiB weight slices) 16 against 4, sums of per-node minima over 5
// alternating rounds (bench/results/nchwc-chunks-2026-12-05.md): RegNet-X-
// 400MF 1.044x at intra 1 and 1.039x at intra 2, LR-ASPP 1.029 / 1.045,
// ShuffleNet-V2 1.020 / 1.041, MobileNet-V3 1.027 / 1.021, EfficientNet-B0
// 1.040 / 0.989; 8 about half that, 32 no better than 16 (0.96-1.04x). A
// 400->400 1x1 at 7^2 split its 49 pixels in 30 + 19 (a one-pixel tile
// last) and read each 4-block group's 100 KB of weights twice. On AMD Zen 4
// (32 KiB L1, 128 KiB slices) 8 against 4 was 0.98-0.99x at intra 2
// (bench/results/nchwc-balance-2026-12-04.md): it keeps 4.
//
// Those were AVX-512 tiles. The AVX2 tiles (2 blocks x 6 pixels, 24 pixels
// a unit at 4) take 16 on every CPU: on Zen 3 (AVX2 only, 32 KiB L1,
// 128 KiB slices), 16 against 4, conv sums of per-node p10s over 30-60
// alternating runs in one process (bench/results/nchwc-avx2-chunks-
// 2026-12-07.md): RegNet-X-400MF 1.05-1.11x at intra 1 and 1.01-1.04x at
// intra 2, ShuffleNet-V2 1.06 / 1.04-1.10, MobileNet-V2 1.06 / 1.05,
// GoogLeNet 1.06 / 1.04, eight more CNNs 1.02-1.05 at intra 1 and
// 0.97-1.11 at intra 2; 8 no better than 16. Its 400->400 1x1 at 7^2 ran
// as 30 + 19 pixels and read each 2-block group's 26 KB of weights twice.
constexpr int64_t kDirectChunkTilesIntel = 16;
constexpr int64_t kDirectChunkTilesAmd = 4;
constexpr int64_t kDirectChunkTilesAvx2 = 16;

constexpr int64_t kWeightBoundChunkTiles = 16;

int64_t DirectChunkTiles(Isa isa) {
  if (isa == Isa::kAvx2Fma) return kDirectChunkTilesAvx2;
  static const int64_t tiles =
      __builtin_cpu_is("amd") ? kDirectChunkTilesAmd : kDirectChunkTilesIntel;
  return tiles;
}

// The weights of one input slice of a tile group (see RunDirect): well
// inside L2 (2 MiB on the development machines) with the input rows and
// partial sums beside them. ResNet-18's 512-channel 3x3 layer streamed its
// 1.2 MB per tile group from L2 at 92 GFLOP/s unsliced. Best of 5
// alternating runs, AVX-512, ResNet-18 layers 1/3/4: 256 KiB slices
// 142/155/124 GFLOP/s, 64 KiB 140/151/124, 32 KiB (L1-sized, ONNX
// Runtime's choice) 131/138/120.
constexpr int64_t kSliceBytes = 256 * 1024;
// On Intel a 1x1 convolution's slices fit L1 instead: each tile of pixels reads its
// slice's weights once per input channel, so an L1-resident slice saves the
// L2 traffic that bounded it (one 64-byte weight vector per 6 multiply-adds).
// Alternating in one process (AVX-512, bench/results/nchwc-pointwise-
// 2026-12-04.md), 16 or 32 KiB against 256: a chain of 400->400 1x1 convs at
// 7^2 0.93x at 1 thread and 0.92x at 2; ResNet-50 0.94x / 0.96x (its 1x1
// layers with 256-2048 input channels 5-15 % faster, the 64-channel ones
// unchanged); RegNet-X-400MF 0.99x / 0.92x; 16 and 32 KiB equal (1.00x).
//
// That was measured on Intel (two 512-bit FMA ports, 48 KiB L1). On AMD
// Zen 4 (32 KiB L1, 512-bit FMAs in two halves) the partial sums each slice
// stores and reloads cost more than the L2 reads they save: against 16 KiB,
// 128 KiB slices ran three chained 1024->512 1x1 convs at 14^2 1.058x
// faster, 512->256 at 28^2 1.041x, ResNeXt-50 1.021x, MobileNet-V2 1.019x,
// RegNet-X-400MF 1.016x (1.019x at intra 2), EfficientNet-B0 1.012x; 64 KiB
// about half that gain, 256 KiB within 1 % of 128
// (bench/results/nchwc-balance-2026-12-04.md).
constexpr int64_t kPointwiseSliceBytesIntel = 16 * 1024;
constexpr int64_t kPointwiseSliceBytesAmd = 128 * 1024;

int64_t PointwiseSliceBytes() {
  static const int64_t bytes =
      __builtin_cpu_is("amd") ? kPointwiseSliceBytesAmd : kPointwiseSliceBytesIntel;
  return bytes;
}

// What one operand may take of the 2 MiB L2 and still be there when it is
// read again. ResNet-50's 1x1/2 downsample (256->512, 56^2 input, 3.2 MB in,
// 512 KiB of weights) ran at 91 GFLOP/s in tile-group-major order and 110
// in chunk-major (best median of 3 alternating runs, 1 thread); the
// stride-1 pointwise 256->128 at 56^2 gained nothing (112 vs 116) and lost
// at 2 threads (219 vs 201), so only strided convs switch. (Strided 1x1
// convs have since gathered their pixels and run as stride-1 ones, RunDirect;
// the order now matters for strided 3x3 and larger. 512 KiB for Zen 4's
// 1 MiB L2 changed ResNet-18/50 and RegNet-X by 0.2-0.5 %.)
constexpr int64_t kL2ResidentBytes = 1024 * 1024;

// Strided 1x1 convs gather their pixels first (RunDirect) from this many
// input channels. Per-node minima, one thread, Intel AVX-512 (bench/results/
// nchwc-chunks-2026-12-05.md): gathered / in place, 32 -> 32 from 112^2
// 83 / 65 us (ORT 55), 32 -> 64 from 56^2 27 / 26, 64 -> 160 from 28^2
// 28.4 / 28.5, 160 -> 400 from 14^2 46 / 48, 256 -> 512 from 56^2
// 1228 / 1326.
constexpr int64_t kGatherMinChannels = 64;

// ParallelFor's cost model: ns per multiply-add lane. 0.02 is ~100 GFLOP/s,
// what the direct kernel reaches on one AVX-512 core with its overheads;
// depthwise layers are bound by memory (below). Estimates below the truth
// made MobileNet-V2's small layers (60-160 us) run at 0.7-1x on two threads:
// ParallelFor then wakes the helper next to the caller.
constexpr double kNsPerMultiplyAdd = 0.02;
// A Winograd transform of one tile and block: ~250 vector operations.
constexpr double kWinogradTransformNs = 60;
// Per lane-tap, as a depthwise layer costs where the estimate decides
// something: at intra 2 or more, reading an input that two threads wrote,
// half of it in the other core's L2. MobileNet-V2's 3x3/2 on 192 channels
// at 28^2 and on 576 at 14^2 took 21 and 19 us at intra 1 but 23 and 35 run
// inline at intra 2 (0.085 and 0.135 ns a lane-tap); 0.05 kept them inline,
// with 0.1 they split, 14 and 19 us, and the model's node sum fell 3 %
// (bench/results/nchwc-balance-2026-12-04.md).
constexpr double kNsPerDepthwiseTap = 0.1;

// The zero-padded copy of the input splits over the conv's threads from
// this size. Below threading::kMinParallelMemoryBytes (1 MiB, set for the
// reorders, whose output the next op reads on the caller's CPU) the caller
// copied alone while the helper waited for the conv: at intra 2, ResNet-18's
// and RegNet-X-400MF's padded inputs (160-860 KB) took 0.79 and 0.57 ms of
// the caller's time a run (6 % and 9 %); split, 0.46 and 0.41 ms, and whole
// runs 4-6 % faster (bench/results/nchwc-pad-shapes-2026-12-04.md).
constexpr int64_t kPadParallelMinBytes = 64 * 1024;

struct Padded {
  const float* data;
  int64_t rows, cols;  // padded spatial size
};

// The padded input's rows and columns: a zero border of (top, left) and
// enough rows and columns to cover every window.
std::pair<int64_t, int64_t> PaddedSize(int64_t rows, int64_t cols, const SpatialGeometry& g) {
  const int64_t need_rows = (g.output[0] - 1) * g.stride[0] + (g.kernel[0] - 1) * g.dilation[0] + 1;
  const int64_t need_cols = (g.output[1] - 1) * g.stride[1] + (g.kernel[1] - 1) * g.dilation[1] + 1;
  return {std::max(g.pad_begin[0] + rows + g.pad_end[0], need_rows),
          std::max(g.pad_begin[1] + cols + g.pad_end[1], need_cols)};
}

// Padded rows [begin, end) of planes of rows x cols x lanes floats (row r is
// plane r / prows, padded row r % prows) into `out` (prows x pcols x lanes a
// plane).
void PadRows(const float* x, int64_t rows, int64_t cols, int64_t lanes, int64_t prows,
             int64_t pcols, const SpatialGeometry& g, int64_t begin, int64_t end, float* out) {
  const int64_t top = g.pad_begin[0], left = g.pad_begin[1];
  const int64_t row_floats = pcols * lanes;
  const int64_t copy_cols = std::min(cols, pcols - left);
  for (int64_t r = begin; r < end; ++r) {
    const int64_t plane = r / prows, pr = r % prows;
    float* dst = out + r * row_floats;
    const int64_t ir = pr - top;
    if (ir < 0 || ir >= rows) {
      std::fill(dst, dst + row_floats, 0.0f);
      continue;
    }
    std::fill(dst, dst + left * lanes, 0.0f);
    const float* src = x + (plane * rows + ir) * cols * lanes;
    std::copy(src, src + copy_cols * lanes, dst + left * lanes);
    std::fill(dst + (left + copy_cols) * lanes, dst + row_floats, 0.0f);
  }
}

// The floats of `planes` padded planes, checked against Loom's tensor size
// limit before anything is allocated.
int64_t PaddedFloats(int64_t planes, int64_t prows, int64_t pcols, int64_t lanes) {
  int64_t floats = 0;
  if (__builtin_mul_overflow(planes * prows, pcols * lanes, &floats) ||
      floats > kMaxTensorBytes / static_cast<int64_t>(sizeof(float))) {
    ThrowKernelError(kOp, "the padded input of " + std::to_string(planes) + " planes of " +
                              std::to_string(prows) + " x " + std::to_string(pcols) +
                              " exceeds Loom's tensor size limit");
  }
  return floats;
}

// Copies planes [N * planes] of rows x cols x lanes floats into a zero border
// (PaddedSize).
Padded PadInput(const KernelContext& ctx, const float* x, int64_t planes, int64_t rows,
                int64_t cols, int64_t lanes, const SpatialGeometry& g) {
  const auto [prows, pcols] = PaddedSize(rows, cols, g);
  const int64_t floats = PaddedFloats(planes, prows, pcols, lanes);
  float* out = PaddedScratch(static_cast<size_t>(floats));
  const int64_t row_floats = pcols * lanes;
  // ~0.5 ns a float copied (memory read and write); below
  // kPadParallelMinBytes the caller copies alone.
  const double cost =
      threading::MemoryBoundCost(floats * static_cast<int64_t>(sizeof(float)),
                                 static_cast<double>(row_floats) * 0.5, kPadParallelMinBytes);
  threading::ParallelFor(ctx.pool, planes * prows, cost, [&](int64_t begin, int64_t end) {
    PadRows(x, rows, cols, lanes, prows, pcols, g, begin, end, out);
  });
  return {out, prows, pcols};
}

// The widest channel block (AVX-512's 16 floats; NchwcBlockSize).
constexpr int64_t kMaxBlock = 16;

// The 6x6 patch of a blocked plane (rows x cols x B floats) whose top-left
// is (r0, c0), zero where it lies outside the plane, into patch[6][6][B].
void GatherPatch(const float* plane, int64_t rows, int64_t cols, int64_t B, int64_t r0, int64_t c0,
                 float* patch) {
  std::fill(patch, patch + 36 * B, 0.0f);
  const int64_t first_col = std::max<int64_t>(c0, 0), last_col = std::min<int64_t>(c0 + 6, cols);
  if (first_col >= last_col) return;
  for (int64_t r = std::max<int64_t>(r0, 0); r < std::min<int64_t>(r0 + 6, rows); ++r) {
    const float* src = plane + (r * cols + first_col) * B;
    std::copy(src, src + (last_col - first_col) * B, patch + ((r - r0) * 6 + first_col - c0) * B);
  }
}

// Whether the micro-kernels apply Sigmoid and SiLU to each stored tile
// (FinishTile) rather than ApplyRows to a unit's finished rows. On AVX2 the
// rows: the same bits (one ExpForSigmoid), but a row of a unit (up to 96
// pixels) keeps more sigmoids in flight than a 2 x 6 tile's 12 vectors. On
// Zen 3, alternating the two per run in one process (the tiles then through
// a branch-free loop, faster than today's), the rows were 1.08-1.13x faster
// on EfficientNet-B0's 16 -> 96 1x1 + SiLU at 112^2 and 1.05-1.06x over all
// of its Sigmoid/SiLU convs
// (bench/results/sigmoid-exp-2026-12-07.md). AVX-512 keeps the tiles,
// measured 1.23x faster than rows on EfficientNet-B0 when they came in
// (baffe71), not measured since.
bool SigmoidInTiles(Isa isa) { return isa != Isa::kAvx2Fma; }

// The activations the micro-kernels apply in registers (NchwcActivation).
NchwcActivation InRegisters(const Activation& activation, Isa isa) {
  constexpr float kInf = __builtin_inff();
  using Kind = NchwcActivation::Kind;
  switch (activation.kind) {
    case ActivationKind::kRelu:
      return {.kind = Kind::kClamp, .low = 0.0f, .high = kInf};
    case ActivationKind::kClip:
      return {.kind = Kind::kClamp, .low = activation.alpha, .high = activation.beta};
    case ActivationKind::kHardSigmoid:
      return {
          .kind = Kind::kClamp, .scale = activation.alpha, .shift = activation.beta, .high = 1.0f};
    case ActivationKind::kHardSwish:
      return {.kind = Kind::kClamp,
              .times_input = true,
              .scale = 1.0f / 6.0f,
              .shift = 0.5f,
              .high = 1.0f};
    case ActivationKind::kSigmoid:
      if (!SigmoidInTiles(isa)) return {};
      return {.kind = Kind::kSigmoid};
    case ActivationKind::kSilu:
      if (!SigmoidInTiles(isa)) return {};
      return {.kind = Kind::kSigmoid, .times_input = true};
    default:
      return {};
  }
}

// Applies an activation the micro-kernels do not apply to finished output rows.
void ApplyRows(const Activation& activation, Isa isa, float* y, int64_t block_stride,
               int64_t blocks, int64_t floats) {
  if (activation.kind == ActivationKind::kIdentity ||
      InRegisters(activation, isa).kind != NchwcActivation::Kind::kNone) {
    return;
  }
  for (int64_t b = 0; b < blocks; ++b)
    ApplyActivation(activation, y + b * block_stride, floats, isa);
}

}  // namespace

int NchwcBlockSize(Isa isa) { return isa == Isa::kAvx512f ? 16 : 8; }

bool NchwcConvSupports(int64_t in_channels, int64_t out_channels, int64_t group,
                       int64_t kernel_rank, int block) {
  if (kernel_rank != 2 || group < 1 || in_channels % group != 0 || out_channels % group != 0) {
    return false;
  }
  if (group == 1) return true;
  const int64_t cg = in_channels / group, mg = out_channels / group;
  if (cg == 1 && mg == 1) return true;  // depthwise
  return cg % block == 0 && mg % block == 0;
}

PreparedNchwcConv::PreparedNchwcConv(const Attributes& attrs, const Tensor& weights,
                                     const Tensor* bias, Isa isa)
    : attrs_(attrs), isa_(isa) {
  CheckDType(kOp, "W", weights, {DType::kFloat32});
  CheckRank(kOp, "W", weights, 4);
  block_ = static_cast<int>(attrs.get_int("block"));
  if (block_ != NchwcBlockSize(isa)) {
    ThrowKernelError(kOp, "attribute 'block' is " + std::to_string(block_) + " but ISA " +
                              std::string(IsaName(isa)) + " uses blocks of " +
                              std::to_string(NchwcBlockSize(isa)));
  }
  const std::string layout = attrs.get_string("input_layout", "nchwc");
  if (layout != "nchwc" && layout != "nchw") {
    ThrowKernelError(kOp,
                     "attribute 'input_layout' must be 'nchwc' or 'nchw' (got '" + layout + "')");
  }
  plain_input_ = layout == "nchw";
  group_ = attrs.get_int("group", 1);
  out_channels_ = weights.shape().dim(0);
  const int64_t cg = weights.shape().dim(1);
  kernel_h_ = weights.shape().dim(2);
  kernel_w_ = weights.shape().dim(3);
  if (group_ < 1 || out_channels_ % group_ != 0) {
    ThrowKernelError(kOp, "group " + std::to_string(group_) +
                              " must be positive and divide the output channels of 'W' (shape " +
                              weights.shape().to_string() + ")");
  }
  in_channels_ = cg * group_;
  const int64_t mg = out_channels_ / group_;
  depthwise_ = group_ > 1 && cg == 1 && mg == 1;
  if (!NchwcConvSupports(in_channels_, out_channels_, group_, 2, block_) ||
      (plain_input_ && group_ != 1)) {
    ThrowKernelError(kOp, "group " + std::to_string(group_) + " with 'W' of shape " +
                              weights.shape().to_string() +
                              " needs channels per group that are multiples of the block " +
                              std::to_string(block_) + " (or depthwise on a blocked input)");
  }
  activation_ = FusedActivationFromAttributes(kOp, attrs);
  std::vector<int64_t> probe(2, 1 << 20);
  ResolveSpatialGeometry(kOp, attrs_, probe, std::vector<int64_t>{kernel_h_, kernel_w_});

  const int64_t B = block_;
  const int64_t out_blocks = CeilDiv(out_channels_, B);
  bias_.assign(static_cast<size_t>(out_blocks * B), 0.0f);
  if (bias != nullptr) {
    CheckDType(kOp, "B", *bias, {DType::kFloat32});
    if (bias->shape().rank() != 1 || bias->shape().dim(0) != out_channels_) {
      ThrowKernelError(kOp, "input 'B' must have shape [" + std::to_string(out_channels_) +
                                "] (got shape " + bias->shape().to_string() + ")");
    }
    std::copy(bias->data<float>(), bias->data<float>() + out_channels_, bias_.begin());
  }
  const float* w = weights.data<float>();
  const int64_t taps = kernel_h_ * kernel_w_;
  // Blocking pads channels up to whole blocks (B-fold for a hand-written
  // model with one channel per block): size the packing before allocating.
  {
    const int64_t mg_blocks = CeilDiv(out_channels_ / group_, B);
    const int64_t cg_rounded = plain_input_ ? cg : CeilDiv(cg, B) * B;
    int64_t floats = 0;
    const bool overflow =
        depthwise_ ? __builtin_mul_overflow(out_blocks * B, taps, &floats)
                   : (__builtin_mul_overflow(group_ * mg_blocks * B, cg_rounded, &floats) ||
                      __builtin_mul_overflow(floats, taps, &floats));
    if (overflow || floats > kMaxTensorBytes / static_cast<int64_t>(sizeof(float))) {
      ThrowKernelError(kOp, "the blocked weights of 'W' (shape " + weights.shape().to_string() +
                                ") exceed Loom's tensor size limit");
    }
  }
  if (depthwise_) {
    packed_.assign(static_cast<size_t>(out_blocks * taps * B), 0.0f);
    for (int64_t c = 0; c < out_channels_; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        packed_[static_cast<size_t>(((c / B) * taps + t) * B + c % B)] = w[c * taps + t];
      }
    }
    return;
  }
  const int64_t obg = CeilDiv(mg, B);
  const int64_t icbg = plain_input_ ? 1 : CeilDiv(cg, B);
  const int64_t cpb = plain_input_ ? cg : B;
  const int64_t per_block = icbg * taps * cpb * B;
  const int64_t tile_blocks = NchwcMicroKernelsFor(isa).tile_blocks;
  const TileGroups tiles(obg, tile_blocks);
  packed_.assign(static_cast<size_t>(group_ * obg * per_block), 0.0f);
  for (int64_t g = 0; g < group_; ++g) {
    for (int64_t m = 0; m < mg; ++m) {
      const int64_t ob = m / B;
      const int64_t ob0 = tiles.First(tiles.Of(ob));
      const int64_t blocks = tiles.Size(tiles.Of(ob));
      for (int64_t c = 0; c < cg; ++c) {
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t step = ((c / cpb) * taps + t) * cpb + c % cpb;
          const int64_t at = (g * obg + ob0) * per_block + (step * blocks + ob - ob0) * B + m % B;
          packed_[static_cast<size_t>(at)] = w[((g * mg + m) * cg + c) * taps + t];
        }
      }
    }
  }
  PrepareWinograd(attrs, w, cg, obg, icbg, tile_blocks);
}

void PreparedNchwcConv::PrepareWinograd(const Attributes& attrs, const float* w, int64_t cg,
                                        int64_t obg, int64_t icbg, int64_t tile_blocks) {
  winograd_ = attrs.get_int("winograd", -1);
  if (winograd_ < -1 || winograd_ > 1) {
    ThrowKernelError(kOp, "attribute 'winograd' must be -1 (automatic), 0 or 1 (got " +
                              std::to_string(winograd_) + ")");
  }
  std::vector<int64_t> probe(2, 1 << 20);
  const SpatialGeometry g =
      ResolveSpatialGeometry(kOp, attrs_, probe, std::vector<int64_t>{kernel_h_, kernel_w_});
  const int64_t B = block_;
  const int64_t bytes = 36 * obg * B * icbg * B * static_cast<int64_t>(sizeof(float));
  if (winograd_ == 0 || plain_input_ || group_ != 1 || kernel_h_ != 3 || kernel_w_ != 3 ||
      g.stride[0] != 1 || g.stride[1] != 1 || g.dilation[0] != 1 || g.dilation[1] != 1 ||
      (winograd_ == -1 && bytes > kWinogradMaxWeightBytes)) {
    winograd_ = 0;
    return;
  }
  // U = G g G^T per (output, input) channel, in double; G as in Lavin and
  // Gray's F(4x4, 3x3).
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  // Each position's matrix packed as a pointwise conv's weights (the
  // layout of packed_ with one tap): [tile group][icb][ic][blocks][B].
  const int64_t per_block = icbg * B * B;
  const int64_t per_position = obg * per_block;
  winograd_packed_.assign(static_cast<size_t>(36 * per_position), 0.0f);
  zeros_.assign(static_cast<size_t>(obg * B), 0.0f);
  const TileGroups tiles(obg, tile_blocks);
  for (int64_t m = 0; m < out_channels_; ++m) {
    const int64_t ob = m / B;
    const int64_t ob0 = tiles.First(tiles.Of(ob));
    const int64_t blocks = tiles.Size(tiles.Of(ob));
    for (int64_t c = 0; c < cg; ++c) {
      const float* k = w + (m * cg + c) * 9;
      double t[6][3];
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 3; ++j) {
          t[i][j] = kG[i][0] * k[j] + kG[i][1] * k[3 + j] + kG[i][2] * k[6 + j];
        }
      }
      const int64_t at = ob0 * per_block + (c * blocks + ob - ob0) * B + m % B;
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
          const double u = t[i][0] * kG[j][0] + t[i][1] * kG[j][1] + t[i][2] * kG[j][2];
          winograd_packed_[static_cast<size_t>((6 * i + j) * per_position + at)] =
              static_cast<float>(u);
        }
      }
    }
  }
  winograd_ = 1;
}

Tensor PreparedNchwcConv::Run(const KernelContext& ctx, const Tensor& x, const Tensor* sum) const {
  if (ctx.isa != isa_) {
    ThrowKernelError(kOp, "prepared for ISA " + std::string(IsaName(isa_)) + ", run with " +
                              std::string(IsaName(ctx.isa)));
  }
  CheckDType(kOp, "X", x, {DType::kFloat32});
  const int64_t B = block_;
  int64_t batch = 0, rows = 0, cols = 0;
  if (plain_input_) {
    CheckRank(kOp, "X", x, 4);
    if (x.shape().dim(1) != in_channels_) {
      ThrowKernelError(kOp, "input 'X' (NCHW) has shape " + x.shape().to_string() +
                                " but 'W' expects " + std::to_string(in_channels_) + " channels");
    }
  } else {
    CheckRank(kOp, "X", x, 5);
    if (x.shape().dim(1) != CeilDiv(in_channels_, B) || x.shape().dim(4) != B) {
      ThrowKernelError(kOp, "input 'X' (NCHWc) has shape " + x.shape().to_string() +
                                " but 'W' expects " + std::to_string(in_channels_) +
                                " channels in blocks of " + std::to_string(B) + " ([N, " +
                                std::to_string(CeilDiv(in_channels_, B)) + ", H, W, " +
                                std::to_string(B) + "])");
    }
  }
  batch = x.shape().dim(0);
  rows = x.shape().dim(2);
  cols = x.shape().dim(3);
  const SpatialGeometry g = ResolveSpatialGeometry(kOp, attrs_, std::vector<int64_t>{rows, cols},
                                                   std::vector<int64_t>{kernel_h_, kernel_w_});
  const int64_t out_blocks = CeilDiv(out_channels_, B);
  Tensor y = Tensor::uninitialized(DType::kFloat32,
                                   Shape({batch, out_blocks, g.output[0], g.output[1], B}));
  if (sum != nullptr) {
    CheckDType(kOp, "Sum", *sum, {DType::kFloat32});
    if (sum->shape() != y.shape()) {
      ThrowKernelError(kOp, "input 'Sum' has shape " + sum->shape().to_string() +
                                " but the output has shape " + y.shape().to_string());
    }
  }
  if (y.num_elements() == 0) return y;
  if (depthwise_) {
    if (sum != nullptr) ThrowKernelError(kOp, "a depthwise convolution takes no 'Sum'");
    RunDepthwise(ctx, x.data<float>(), g, batch, y.data<float>());
  } else if (UseWinograd(g)) {
    RunWinograd(ctx, x.data<float>(), g, batch, sum != nullptr ? sum->data<float>() : nullptr,
                y.data<float>());
  } else {
    RunDirect(ctx, x.data<float>(), g, batch, sum != nullptr ? sum->data<float>() : nullptr,
              y.data<float>());
  }
  return y;
}

void PreparedNchwcConv::RunDirect(const KernelContext& ctx, const float* x,
                                  const SpatialGeometry& g, int64_t batch, const float* sum,
                                  float* y) const {
  const NchwcMicroKernels& mk = NchwcMicroKernelsFor(isa_);
  const int64_t B = block_;
  const int64_t in_planes = plain_input_ ? in_channels_ : CeilDiv(in_channels_, B);
  const int64_t lanes = plain_input_ ? 1 : B;
  const int64_t pixels = g.output[0] * g.output[1];
  if (kernel_h_ == 1 && kernel_w_ == 1 && (g.stride[0] > 1 || g.stride[1] > 1) && !plain_input_ &&
      !g.has_padding() && in_channels_ >= kGatherMinChannels) {
    // A strided 1x1 conv (ResNets' downsampling) reads every stride-th
    // pixel: those pixels are copied together first, and the conv runs as a
    // stride-1 pointwise one on the copy. In place, each tile's broadcasts
    // touched twice the lines, a unit's input overflowed L1, and 256->512
    // from 56^2 ran at 1.10x ORT's time against 1.03x for the same layer at
    // stride 1 (bench/results/nchwc-balance-2026-12-04.md). With few input
    // channels the copy costs more than it saves (kGatherMinChannels).
    const int64_t out_rows = g.output[0], out_cols = g.output[1];
    const int64_t floats = PaddedFloats(batch * in_planes, out_rows, out_cols, B);
    float* compact = SubsampledScratch(static_cast<size_t>(floats));
    const int64_t in_cols = g.input[1], in_plane = g.input[0] * in_cols * B;
    const int64_t row_floats = out_cols * B;
    const double cost =
        threading::MemoryBoundCost(floats * static_cast<int64_t>(sizeof(float)),
                                   static_cast<double>(row_floats) * 0.5, kPadParallelMinBytes);
    threading::ParallelFor(
        ctx.pool, batch * in_planes * out_rows, cost, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t plane = r / out_rows, oh = r % out_rows;
            const float* src = x + plane * in_plane + oh * g.stride[0] * in_cols * B;
            float* dst = compact + r * row_floats;
            for (int64_t ow = 0; ow < out_cols; ++ow) {
              std::copy_n(src + ow * g.stride[1] * B, B, dst + ow * B);
            }
          }
        });
    SpatialGeometry unit = g;
    unit.input = g.output;
    unit.stride = {1, 1};
    RunDirect(ctx, compact, unit, batch, sum, y);
    return;
  }
  const int64_t cg = in_channels_ / group_, mg = out_channels_ / group_;
  const int64_t obg = CeilDiv(mg, B);
  const int64_t icbg = plain_input_ ? 1 : CeilDiv(cg, B);
  const int64_t cpb = plain_input_ ? cg : B;
  const int64_t taps = kernel_h_ * kernel_w_;
  const int64_t per_block = icbg * taps * cpb * B;
  // Packed weight bytes of one input block for one output block.
  const int64_t tap_bytes = taps * cpb * B * static_cast<int64_t>(sizeof(float));
  // Input blocks per slice: a tile group's weights for one slice within
  // kSliceBytes.
  const int64_t slice_bytes = taps == 1 ? PointwiseSliceBytes() : kSliceBytes;
  const TileGroups tiles(obg, mk.tile_blocks);
  const int64_t slice = std::clamp<int64_t>(slice_bytes / (mk.tile_blocks * tap_bytes), 1, icbg);
  const int64_t tile_groups = tiles.count;
  // Pixel chunks of whole tiles (of the largest tile group), about
  // DirectChunkTiles(isa) tiles each.
  const int64_t width = mk.tile_width[tiles.Largest() - 1];
  // A tile group whose weights for the whole input exceed a slice streams
  // them from L3 again for every pixel chunk: its chunks take
  // kWeightBoundChunkTiles tiles. ResNet-18's 512-channel 3x3 at 7^2 (295 KB
  // a tile group on AVX2) ran its 49 pixels as two chunks of 30 and 19, each
  // reading the group's weights; as one, 3.42-3.50 -> 3.08-3.13 ms a layer on
  // Zen 3 (bench/results/avx2-zen3-2026-12-07.md).
  const bool weight_bound =
      per_block * tiles.Largest() * static_cast<int64_t>(sizeof(float)) > kSliceBytes;
  const int64_t chunk_tiles = weight_bound ? kWeightBoundChunkTiles : DirectChunkTiles(mk.isa);
  const int64_t chunks = std::max<int64_t>(1, pixels / (width * chunk_tiles));
  const int64_t chunk = CeilDiv(CeilDiv(pixels, chunks), width) * width;
  // A grouped conv with one tile group per group: each unit reads only its
  // group's planes, and only the rows under its pixel chunk, so it pads
  // those rows into its thread's scratch (a whole padded group, rows at
  // their own places) just before using them, instead of the caller padding
  // everything first (alone below kPadParallelMinBytes' worth of work, the
  // helper then reading the rows from the caller's cache; and at batch 8 a
  // 13 MB copy through memory). A thread's next unit, usually the next chunk
  // of the same group, pads only the rows it adds. RegNet-X-400MF's 25-group
  // 3x3 at 7^2, intra 2: 51 -> 44 us a layer (bench/results/nchwc-pointwise-
  // 2026-12-04.md); its 2-, 4- and 10-group 3x3/2 layers at 112^2-28^2:
  // bench/results/nchwc-zen4-2026-12-04.md.
  const bool pad_in_unit = g.has_padding() && group_ > 1 && !plain_input_ && tile_groups == 1;
  const int64_t in_rows = g.input[0], in_cols = g.input[1];
  const float* const unpadded = x;
  int64_t rows = in_rows, cols = in_cols;
  if (pad_in_unit) {
    std::tie(rows, cols) = PaddedSize(in_rows, in_cols, g);
    PaddedFloats(icbg, rows, cols, lanes);  // a unit's scratch: one group's planes
  } else if (g.has_padding()) {
    const Padded padded = PadInput(ctx, x, batch * in_planes, rows, cols, lanes, g);
    x = padded.data;
    rows = padded.rows;
    cols = padded.cols;
  }
  const int64_t in_image = in_planes * rows * cols * lanes;
  const int64_t unpadded_plane = in_rows * in_cols * lanes;
  const int64_t out_image = CeilDiv(out_channels_, B) * pixels * B;
  const int64_t units = batch * group_ * tile_groups * chunks;
  const double cost = kNsPerMultiplyAdd * static_cast<double>(mk.tile_blocks * B * chunk) *
                      static_cast<double>(cg * taps);
  const NchwcActivation in_registers = InRegisters(activation_, isa_);
  // A plain input's step offsets ([kh][kw][ic], NchwcConvParams::step_offsets):
  // at most 15 channels x the taps, fewer than the packed weights' floats.
  std::vector<int64_t> step_offsets;
  if (plain_input_) {
    step_offsets.reserve(static_cast<size_t>(taps * cpb));
    for (int64_t kh = 0; kh < kernel_h_; ++kh) {
      for (int64_t kw = 0; kw < kernel_w_; ++kw) {
        for (int64_t ic = 0; ic < cpb; ++ic) {
          step_offsets.push_back(kh * g.dilation[0] * cols + kw * g.dilation[1] + ic * rows * cols);
        }
      }
    }
  }
  // Units in chunk-major order (every tile group of a pixel chunk, then the
  // next chunk) when a strided conv's input is too big to stay in L2 across
  // the tile groups but its weights are not: tile-group-major order re-read
  // the input once per tile group, half of each line unused.
  const int64_t group_weight_bytes = obg * per_block * static_cast<int64_t>(sizeof(float));
  const int64_t group_input_bytes =
      icbg * rows * cols * lanes * static_cast<int64_t>(sizeof(float));
  const bool chunk_major = tile_groups > 1 && (g.stride[0] > 1 || g.stride[1] > 1) &&
                           group_weight_bytes <= kL2ResidentBytes &&
                           group_input_bytes > kL2ResidentBytes;

  threading::ParallelFor(ctx.pool, units, cost, [&](int64_t begin, int64_t end) {
    NchwcConvParams p;
    p.in_block_stride = rows * cols * lanes;
    p.in_row_stride = cols * lanes;
    p.in_col_stride = lanes;
    p.in_channel_stride = plain_input_ ? rows * cols : 1;
    p.in_blocks = icbg;
    p.channels_per_block = cpb;
    p.kernel_h = kernel_h_;
    p.kernel_w = kernel_w_;
    p.stride_h = g.stride[0];
    p.stride_w = g.stride[1];
    p.dilation_h = g.dilation[0];
    p.dilation_w = g.dilation[1];
    p.out_block_stride = pixels * B;
    p.out_width = g.output[1];
    p.activation = in_registers;
    p.step_offsets = step_offsets.data();
    // pad_in_unit: the padded rows [padded_begin, padded_end) of every
    // block plane of image and group `padded_key` are in this thread's scratch.
    int64_t padded_key = -1, padded_begin = 0, padded_end = 0;
    for (int64_t u = begin; u < end; ++u) {
      int64_t rest = u;
      int64_t c, tg;
      if (chunk_major) {
        tg = rest % tile_groups;
        rest /= tile_groups;
        c = rest % chunks;
        rest /= chunks;
      } else {
        c = rest % chunks;
        rest /= chunks;
        tg = rest % tile_groups;
        rest /= tile_groups;
      }
      const int64_t gi = rest % group_;
      const int64_t n = rest / group_;
      const int64_t first_block = gi * obg + tiles.First(tg);  // of the whole output
      const int64_t blocks = tiles.Size(tg);
      const int64_t pixel_begin = c * chunk, pixel_end = std::min(pixels, pixel_begin + chunk);
      if (pixel_begin >= pixel_end) continue;
      if (pad_in_unit) {
        float* padded = UnitPaddedScratch(static_cast<size_t>(icbg * p.in_block_stride));
        // The padded rows under output rows [first, last].
        const int64_t first = pixel_begin / p.out_width, last = (pixel_end - 1) / p.out_width;
        const int64_t r0 = first * p.stride_h;
        const int64_t r1 = std::min(rows, last * p.stride_h + (p.kernel_h - 1) * p.dilation_h + 1);
        const int64_t key = n * group_ + gi;
        if (key != padded_key || r0 < padded_begin || r0 > padded_end) {
          padded_key = key;
          padded_begin = padded_end = r0;
        }
        if (r1 > padded_end) {
          const float* group_input = unpadded + (n * in_planes + gi * icbg) * unpadded_plane;
          for (int64_t b = 0; b < icbg; ++b) {
            PadRows(group_input, in_rows, in_cols, lanes, rows, cols, g, b * rows + padded_end,
                    b * rows + r1, padded);
          }
          padded_end = r1;
        }
        p.input = padded;
      } else {
        p.input = x + n * in_image + gi * icbg * p.in_block_stride;
      }
      p.weights = packed_.data() + first_block * per_block;
      p.bias = bias_.data() + first_block * B;
      const int64_t out_offset = n * out_image + first_block * p.out_block_stride;
      p.output = y + out_offset;
      p.sum = sum != nullptr ? sum + out_offset : nullptr;
      // Input blocks in slices whose weights stay in L2 across the unit's
      // tiles; the partial sums stay in L1 between slices.
      const float* input = p.input;
      const float* weights = p.weights;
      // The weights read next: this tile group's next slice, else (when the
      // thread's next unit moves on to it) the next tile group's first slice.
      const bool next_group_follows =
          u + 1 < end && tg + 1 < tile_groups && (chunk_major || c == chunks - 1);
      const int64_t next_first_block = first_block + blocks;
      for (int64_t s0 = 0; s0 < icbg; s0 += slice) {
        p.in_blocks = std::min(slice, icbg - s0);
        p.input = input + s0 * p.in_block_stride;
        p.weights = weights + s0 * taps * cpb * blocks * B;
        p.accumulate = s0 > 0;
        p.finish = s0 + p.in_blocks == icbg;
        if (!p.finish) {
          p.prefetch = p.weights + p.in_blocks * taps * cpb * blocks * B;
          p.prefetch_bytes = std::min(slice, icbg - s0 - p.in_blocks) * tap_bytes * blocks;
        } else if (next_group_follows) {
          p.prefetch = packed_.data() + next_first_block * per_block;
          p.prefetch_bytes = std::min(slice, icbg) * tap_bytes * tiles.Size(tg + 1);
        } else {
          p.prefetch = nullptr;
          p.prefetch_bytes = 0;
        }
        mk.conv_segment(p, blocks, pixel_begin, pixel_end);
      }
      ApplyRows(activation_, isa_, p.output + pixel_begin * B, p.out_block_stride, blocks,
                (pixel_end - pixel_begin) * B);
    }
  });
}

bool PreparedNchwcConv::UseWinograd(const SpatialGeometry& g) const {
  if (winograd_ != 1) return false;
  if (attrs_.get_int("winograd", -1) == 1) return true;
  // Each image reads all 36 weight matrices once: with few tiles an image
  // (a small feature map) that read outweighs the saved multiplies.
  const int64_t tiles = CeilDiv(g.output[0], int64_t{4}) * CeilDiv(g.output[1], int64_t{4});
  const int64_t bytes = static_cast<int64_t>(winograd_packed_.size() * sizeof(float));
  return bytes <= tiles * kWinogradWeightBytesPerTile;
}

void PreparedNchwcConv::RunWinograd(const KernelContext& ctx, const float* x,
                                    const SpatialGeometry& g, int64_t batch, const float* sum,
                                    float* y) const {
  const NchwcMicroKernels& mk = NchwcMicroKernelsFor(isa_);
  const int64_t B = block_;
  const int64_t icb = CeilDiv(in_channels_, B), ocb = CeilDiv(out_channels_, B);
  const int64_t oh = g.output[0], ow = g.output[1];
  const int64_t th = CeilDiv(oh, int64_t{4}), tw = CeilDiv(ow, int64_t{4});
  const int64_t tiles = th * tw;
  // Tile (ty, tx) reads the 6x6 patch at input row ty * 4 - top, column
  // tx * 4 - left; patches reaching past the input are gathered into a
  // zero-filled copy first, the others read in place. Against a padded copy
  // of the whole input first (PadInput), alternated in one process: chains
  // of ResNet-18's 64- and 128-channel 3x3 layers 4-9 % faster at intra 1
  // and 2, ResNet-18 1-3 % (bench/results/nchwc-pad-shapes-2026-12-04.md).
  const int64_t in_rows = g.input[0], in_cols = g.input[1];
  const int64_t top = g.pad_begin[0], left = g.pad_begin[1];
  const int64_t in_plane = in_rows * in_cols * B;
  const int64_t in_row = in_cols * B;
  const int64_t v_position = icb * tiles * B;  // floats between positions in V
  const int64_t m_position = ocb * tiles * B;  // and in M
  const int64_t per_image = 36 * (v_position + m_position);
  const int64_t images = std::clamp<int64_t>(
      kWinogradPassBytes / (per_image * static_cast<int64_t>(sizeof(float))), 1, batch);
  float* v = WinogradScratch(0, static_cast<size_t>(images * 36 * v_position));
  float* m = WinogradScratch(1, static_cast<size_t>(images * 36 * m_position));
  const int64_t per_block = icb * B * B;
  const int64_t per_position = ocb * per_block;
  const TileGroups tile_split(ocb, mk.tile_blocks);
  const int64_t tile_groups = tile_split.count;
  const int64_t width = mk.tile_width[tile_split.Largest() - 1];
  const int64_t chunk = width * kWinogradChunkTiles;
  const int64_t chunks = CeilDiv(tiles, chunk);
  const NchwcActivation in_registers = InRegisters(activation_, isa_);
  const int64_t out_plane = oh * ow * B;
  for (int64_t n0 = 0; n0 < batch; n0 += images) {
    const int64_t count = std::min(images, batch - n0);
    // 1. V = B^T d B for every (image, input block, tile).
    threading::ParallelFor(
        ctx.pool, count * icb * th, static_cast<double>(tw) * kWinogradTransformNs,
        [&](int64_t begin, int64_t end) {
          alignas(64) float patch[36 * kMaxBlock];
          for (int64_t u = begin; u < end; ++u) {
            const int64_t ty = u % th, c = (u / th) % icb, n = u / (th * icb);
            const float* plane = x + ((n0 + n) * icb + c) * in_plane;
            float* out = v + n * 36 * v_position + (c * tiles + ty * tw) * B;
            const int64_t r0 = ty * 4 - top;
            const bool rows_inside = r0 >= 0 && r0 + 6 <= in_rows;
            for (int64_t tx = 0; tx < tw; ++tx) {
              const int64_t c0 = tx * 4 - left;
              if (rows_inside && c0 >= 0 && c0 + 6 <= in_cols) {
                mk.winograd_input(plane + r0 * in_row + c0 * B, in_row, out + tx * B, v_position);
              } else {
                GatherPatch(plane, in_rows, in_cols, B, r0, c0, patch);
                mk.winograd_input(patch, 6 * B, out + tx * B, v_position);
              }
            }
          }
        });
    // 2. M = U . V at each of the 36 positions: a pointwise convolution
    // over the tiles as pixels.
    threading::ParallelFor(
        ctx.pool, count * 36 * tile_groups * chunks,
        kNsPerMultiplyAdd * static_cast<double>(mk.tile_blocks * B * chunk * icb * B),
        [&](int64_t begin, int64_t end) {
          NchwcConvParams p{};
          p.in_block_stride = tiles * B;
          p.in_row_stride = tiles * B;
          p.in_col_stride = B;
          p.in_channel_stride = 1;
          p.in_blocks = icb;
          p.channels_per_block = B;
          p.kernel_h = p.kernel_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
          p.out_block_stride = tiles * B;
          p.out_width = tiles;
          p.accumulate = false;
          p.finish = true;
          for (int64_t u = begin; u < end; ++u) {
            const int64_t c = u % chunks;
            const int64_t tg = (u / chunks) % tile_groups;
            const int64_t pos = (u / (chunks * tile_groups)) % 36;
            const int64_t n = u / (chunks * tile_groups * 36);
            const int64_t first_block = tile_split.First(tg);
            const int64_t blocks = tile_split.Size(tg);
            p.input = v + (n * 36 + pos) * v_position;
            p.weights = winograd_packed_.data() + pos * per_position + first_block * per_block;
            p.bias = zeros_.data();
            p.output = m + (n * 36 + pos) * m_position + first_block * tiles * B;
            mk.conv_segment(p, blocks, c * chunk, std::min(tiles, (c + 1) * chunk));
          }
        });
    // 3. Y = A^T M A + bias (+ sum), activated, for every (image, output
    // block, tile row).
    threading::ParallelFor(
        ctx.pool, count * ocb * th, static_cast<double>(tw) * kWinogradTransformNs,
        [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t ty = u % th, ob = (u / th) % ocb, n = u / (th * ocb);
            const int64_t rows = std::min<int64_t>(4, oh - ty * 4);
            const int64_t out_offset = ((n0 + n) * ocb + ob) * out_plane + ty * 4 * ow * B;
            const float* in = m + n * 36 * m_position + (ob * tiles + ty * tw) * B;
            for (int64_t tx = 0; tx < tw; ++tx) {
              const int64_t at = out_offset + tx * 4 * B;
              mk.winograd_output(in + tx * B, m_position, bias_.data() + ob * B,
                                 sum != nullptr ? sum + at : nullptr, y + at, ow * B,
                                 static_cast<int>(rows),
                                 static_cast<int>(std::min<int64_t>(4, ow - tx * 4)), in_registers);
            }
            ApplyRows(activation_, isa_, y + out_offset, out_plane, 1, rows * ow * B);
          }
        });
  }
}

void PreparedNchwcConv::RunDepthwise(const KernelContext& ctx, const float* x,
                                     const SpatialGeometry& g, int64_t batch, float* y) const {
  const NchwcMicroKernels& mk = NchwcMicroKernelsFor(isa_);
  const int64_t B = block_;
  const int64_t blocks = CeilDiv(in_channels_, B);
  const int64_t rows = g.input[0], cols = g.input[1];
  const int64_t out_rows = g.output[0], out_cols = g.output[1];
  const int64_t units = batch * blocks * out_rows;
  const double cost =
      kNsPerDepthwiseTap * static_cast<double>(out_cols * B * kernel_h_ * kernel_w_);
  const NchwcActivation in_registers = InRegisters(activation_, isa_);
  const bool apply_rows = activation_.kind != ActivationKind::kIdentity &&
                          in_registers.kind == NchwcActivation::Kind::kNone;
  threading::ParallelFor(ctx.pool, units, cost, [&](int64_t begin, int64_t end) {
    NchwcDepthwiseParams p;
    p.in_block_stride = rows * cols * B;
    p.in_row_stride = cols * B;
    p.in_rows = rows;
    p.in_cols = cols;
    p.pad_top = g.pad_begin[0];
    p.pad_left = g.pad_begin[1];
    p.kernel_h = kernel_h_;
    p.kernel_w = kernel_w_;
    p.stride_h = g.stride[0];
    p.stride_w = g.stride[1];
    p.dilation_h = g.dilation[0];
    p.dilation_w = g.dilation[1];
    p.weights = packed_.data();
    p.bias = bias_.data();
    p.out_block_stride = out_rows * out_cols * B;
    p.out_row_stride = out_cols * B;
    p.activation = in_registers;
    // Unit u is row oh of block cb of image n, advanced in step with u.
    int64_t oh = begin % out_rows, cb = (begin / out_rows) % blocks,
            n = begin / (out_rows * blocks);
    for (int64_t u = begin; u < end; ++u) {
      p.input = x + n * blocks * p.in_block_stride;
      p.output = y + n * blocks * p.out_block_stride;
      mk.depthwise_segment(p, cb, oh, 0, out_cols);
      if (apply_rows) {
        ApplyRows(activation_, isa_, p.output + cb * p.out_block_stride + oh * p.out_row_stride,
                  p.out_block_stride, 1, out_cols * B);
      }
      if (++oh == out_rows) {
        oh = 0;
        if (++cb == blocks) {
          cb = 0;
          ++n;
        }
      }
    }
  });
}

namespace {

class PreparedNchwcConvKernel : public PreparedKernel {
 public:
  explicit PreparedNchwcConvKernel(PreparedNchwcConv conv) : conv_(std::move(conv)) {}
  std::vector<Tensor> Run(const KernelContext& ctx, KernelInputs inputs) const override {
    return {conv_.Run(ctx, RequiredInput(kOp, inputs, 0, "X"), OptionalInput(inputs, 3))};
  }
  const char* kind() const override { return "prepared nchwc conv"; }

 private:
  PreparedNchwcConv conv_;
};

}  // namespace

std::unique_ptr<PreparedKernel> PrepareNchwcConv(const PrepareArgs& args) {
  if (!args.HasConstantFloatWeights(4)) return nullptr;
  return std::make_unique<PreparedNchwcConvKernel>(
      PreparedNchwcConv(args.attrs, *args.constant(1), args.constant(2), args.isa));
}

std::vector<Tensor> NchwcConvKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 4);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& w = RequiredInput(kOp, inputs, 1, "W");
  PreparedNchwcConv conv(attrs, w, OptionalInput(inputs, 2), ctx.isa);
  return {conv.Run(ctx, x, OptionalInput(inputs, 3))};
}

}  // namespace loom::kernels
