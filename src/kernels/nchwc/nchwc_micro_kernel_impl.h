// The NCHWc inner loops as templates over a vector type `T` (one per ISA
// file: f32_nchwc__<isa>.cc). Include only from those files, with `T`
// declared in an anonymous namespace there, so every instantiation has
// internal linkage and the linker cannot merge an AVX-512 copy into the
// portable one.
//
// T provides: V (vector of kBlock floats), kBlock, kTileBlocks, kTileWidth
// (pixels per register tile, indexed by the tile's output blocks),
// Load, Store (unaligned), Broadcast (one float to every lane), Fma(a, b, c)
// = a * b + c, Add, Sub, Mul, Div, Max and Min (b when either is NaN),
// Zero, Transpose(V (&r)[kBlock]) (r[i] lane j and r[j] lane i swapped
// for every i, j); and either Exp(v) (the ISA's own exp, so that
// the conv's fused Sigmoid/SiLU agree with the unary kernels) or the two
// pieces of the template one: Round (to nearest, ties to even) and
// Scale2(v, n) = v * 2^n for a whole n in [-150, 128] (subnormal and
// infinite results right).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernels/nchwc/nchwc_micro_kernel.h"

namespace loom::kernels::nchwc_detail {

inline constexpr float kOne = 1.0f;
inline constexpr float kMinusInfinity = -__builtin_inff();
inline constexpr float kExpLow = -104.0f, kExpHigh = 89.0f;
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kMinusLn2Hi = -0.693359375f, kMinusLn2Lo = 2.12194440e-4f;
inline constexpr float kExpPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                      4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

// min(high, max(low, r)) with a NaN in r kept: Max and Min return their
// second operand when either is NaN.
template <class T>
inline typename T::V Clamp(typename T::V r, typename T::V low, typename T::V high) {
  return T::Min(high, T::Max(low, r));
}

// e^t for t already clamped (Exp: [-104, 89], ExpForSigmoid: [-20, 89]) or
// NaN: t = n ln2 + r with |r| <= ln2 / 2, e^r by the polynomial, times 2^n
// through T::Scale2.
template <class T>
inline typename T::V ScaledExp(typename T::V t) {
  using V = typename T::V;
  const V n = T::Round(T::Mul(t, T::Broadcast(&kLog2e)));
  V r = T::Fma(n, T::Broadcast(&kMinusLn2Hi), t);
  r = T::Fma(n, T::Broadcast(&kMinusLn2Lo), r);
  V p = T::Broadcast(&kExpPoly[0]);
#pragma GCC unroll 5
  for (int i = 1; i < 6; ++i) p = T::Fma(p, r, T::Broadcast(&kExpPoly[i]));
  p = T::Fma(p, T::Mul(r, r), T::Add(r, T::Broadcast(&kOne)));
  return T::Scale2(p, n);
}

// exp(x) in every lane, the Cephes scheme: x = n ln2 + r with |r| <= ln2 / 2
// (ln 2 in two parts, so n * ln2_hi is exact), a degree-6 polynomial for
// e^r, then 2^n (the scheme and coefficients of the AVX2 activation
// kernels' exp). Below -104 the result is 0, above 89 +inf; a NaN stays NaN
// (Max and Min keep their second operand). The sigmoid built on it is
// tested within 4 ulp over [-120, 120] (nchwc_test.cc). A T with its own
// Exp (AVX2: Exp8, x86/exp8__avx2_fma.h) uses that instead.
template <class T>
inline typename T::V Exp(typename T::V x) {
  using V = typename T::V;
  if constexpr (requires(V v) { T::Exp(v); }) {
    return T::Exp(x);
  } else {
    const V t = T::Min(T::Broadcast(&kExpHigh), T::Max(T::Broadcast(&kExpLow), x));
    return ScaledExp<T>(t);
  }
}

// exp(t) where only 1 + exp(t) matters (the sigmoid): the scheme of
// vector_math::ExpForSigmoid (x86/vector_math_impl.h), t clamped into
// [-20, 89], so the result is normal or +inf: the same bits as Exp wherever
// they can change 1 + exp(t). A T with its own (AVX2) uses that.
template <class T>
inline typename T::V ExpForSigmoid(typename T::V t) {
  using V = typename T::V;
  if constexpr (requires(V v) { T::ExpForSigmoid(v); }) {
    return T::ExpForSigmoid(t);
  } else {
    static constexpr float kLow = -20.0f;
    t = T::Min(T::Broadcast(&kExpHigh), T::Max(T::Broadcast(&kLow), t));
    return ScaledExp<T>(t);
  }
}

// NchwcActivation with its constants in registers.
template <class T>
struct ActivationVectors {
  using V = typename T::V;
  V scale, shift, low, high;
  bool affine, sigmoid, times_input;
  // kClamp without scale, shift or the product with the input: Relu (no
  // upper bound) or a clip, the activations of most convolutions.
  bool plain_clamp, no_upper_bound;
  explicit ActivationVectors(const NchwcActivation& a)
      : scale(T::Broadcast(&a.scale)),
        shift(T::Broadcast(&a.shift)),
        low(T::Broadcast(&a.low)),
        high(T::Broadcast(&a.high)),
        affine(a.scale != 1.0f || a.shift != 0.0f),
        sigmoid(a.kind == NchwcActivation::Kind::kSigmoid),
        times_input(a.times_input),
        plain_clamp(a.kind == NchwcActivation::Kind::kClamp && !affine && !times_input),
        no_upper_bound(a.high == __builtin_inff()) {}
  V Apply(V x) const {
    V t;
    if (sigmoid) {
      // 1 / (1 + e^-x): 0 from e^-x = +inf (x < -89), 1 from e^-x < 2^-24.
      const V one = T::Broadcast(&kOne);
      t = T::Div(one, T::Add(one, ExpForSigmoid<T>(T::Sub(T::Zero(), x))));
    } else {
      t = Clamp<T>(affine ? T::Fma(x, scale, shift) : x, low, high);
    }
    return times_input ? T::Mul(x, t) : t;
  }
  // Apply for every kind but the sigmoid, always inlined: GCC kept Apply
  // out of line in the depthwise tiles, and the call per output vector made
  // it spill every accumulator (all vector registers are caller-saved).
  __attribute__((always_inline)) V ApplyNotSigmoid(V x) const {
    const V t = Clamp<T>(affine ? T::Fma(x, scale, shift) : x, low, high);
    return times_input ? T::Mul(x, t) : t;
  }
};

inline constexpr int64_t kCacheLine = 64;

// Up to `count` of the `left` cache lines at `prefetch` into L2
// (prefetcht1), advancing both.
inline void PrefetchLines(const char*& prefetch, int64_t& left, int64_t count) {
  for (int64_t k = 0; k < count && left > 0; ++k, --left) {
    __builtin_prefetch(prefetch, 0, 2);
    prefetch += kCacheLine;
  }
}

// One input channel of a register tile: acc[ob][j] += w[ob] * *at(j), with
// OB weight vectors from `w` and one broadcast of pixel j's input at(j).
template <class T, int OB, int OW, class At>
__attribute__((always_inline)) inline void MultiplyAddChannel(typename T::V (&acc)[OB][OW],
                                                              const float* w, At at) {
  constexpr int B = T::kBlock;
  typename T::V wv[OB];
#pragma GCC unroll 8
  for (int ob = 0; ob < OB; ++ob) wv[ob] = T::Load(w + ob * B);
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) {
    const typename T::V xv = T::Broadcast(at(j));
#pragma GCC unroll 8
    for (int ob = 0; ob < OB; ++ob) acc[ob][j] = T::Fma(wv[ob], xv, acc[ob][j]);
  }
}

// A register tile's accumulators at the start: the partial sums in `out`
// (a later slice of input blocks) or the bias.
template <class T, int OB, int OW>
__attribute__((always_inline)) inline void InitTile(const NchwcConvParams& p, const float* bias,
                                                    const float* out,
                                                    typename T::V (&acc)[OB][OW]) {
  constexpr int B = T::kBlock;
  if (p.accumulate) {
#pragma GCC unroll 8
    for (int ob = 0; ob < OB; ++ob) {
#pragma GCC unroll 16
      for (int j = 0; j < OW; ++j) acc[ob][j] = T::Load(out + ob * p.out_block_stride + j * B);
    }
  } else {
#pragma GCC unroll 8
    for (int ob = 0; ob < OB; ++ob) {
      const typename T::V b = T::Load(bias + ob * B);
#pragma GCC unroll 16
      for (int j = 0; j < OW; ++j) acc[ob][j] = b;
    }
  }
}

// Stores a register tile; the last slice (p.finish) first adds `sum` and
// applies the activation. Always inlined, as InitTile: once the inline
// affine clamp made it large (ba2f762), GCC called it out of line with the
// accumulators' address, so every tile kept its accumulators in memory and
// stored all of them on every multiply-add step: on Zen 3 (AVX2),
// ResNet-18's direct 3x3 layers ran at 29 GFLOP/s instead of 68-77 and its
// 7x7 stem at 28 instead of 87 (bench/results/avx2-zen3-2026-12-07.md).
template <class T, int OB, int OW>
__attribute__((always_inline)) inline void FinishTile(const NchwcConvParams& p,
                                                      const ActivationVectors<T>& activation,
                                                      typename T::V (&acc)[OB][OW], float* out,
                                                      const float* sum) {
  constexpr int B = T::kBlock;
  const int64_t obs = p.out_block_stride;
  const bool activate = p.finish && p.activation.kind != NchwcActivation::Kind::kNone;
  // Read once: a vector store to `out` may alias `p`, so p.finish tested
  // per vector was reloaded after every store.
  const bool add_sum = p.finish && sum != nullptr;
  // The activation's kind picked once a tile, not per vector: with 16 input
  // channels (MobileNet-V3's 16->64 1x1 at 56^2) the per-vector branches of
  // Apply made the layer 1.2x slower (78 against 65 us).
  auto finish = [&](auto apply) __attribute__((always_inline)) {
#pragma GCC unroll 8
    for (int ob = 0; ob < OB; ++ob) {
#pragma GCC unroll 16
      for (int j = 0; j < OW; ++j) {
        typename T::V r = acc[ob][j];
        if (add_sum) r = T::Add(r, T::Load(sum + ob * obs + j * B));
        T::Store(out + ob * obs + j * B, apply(r));
      }
    }
  };
  using V = typename T::V;
  // The affine clamp (HardSwish, HardSigmoid) applied in registers needs
  // scale, shift, low, high and a temporary beside the accumulators; where
  // they do not fit (AVX2's 16 registers, a 2 x 6 tile) it runs on the
  // stored tile instead.
  constexpr bool kAffineInRegisters = OB * OW + 5 <= T::kRegisters;
  if (!activate) {
    finish([](V r) __attribute__((always_inline)) { return r; });
  } else if (activation.plain_clamp && activation.no_upper_bound) {
    finish([&](V r) __attribute__((always_inline)) { return T::Max(activation.low, r); });
  } else if (activation.plain_clamp) {
    finish([&](V r) __attribute__((always_inline)) {
      return Clamp<T>(r, activation.low, activation.high);
    });
  } else if (!activation.sigmoid && kAffineInRegisters) {
    finish([&](V r) __attribute__((always_inline)) { return activation.ApplyNotSigmoid(r); });
  } else {
    // The sigmoid (out of line) on the stored tile, in a pass of its own:
    // called with the accumulators live, each call spilled all of them. The
    // affine clamp too where its four constants and a temporary do not fit
    // beside the accumulators (below).
    finish([](V r) __attribute__((always_inline)) { return r; });
    for (int ob = 0; ob < OB; ++ob) {
      for (int j = 0; j < OW; ++j) {
        float* at = out + ob * obs + j * B;
        T::Store(at, activation.Apply(T::Load(at)));
      }
    }
  }
}

// A blocked tile's multiply-adds over every input block, tap and channel:
// `pixel(j, offset)` is pixel j's input at `offset` floats (the block, tap
// and channel) from its input at tap (0, 0) of channel 0. p.prefetch's lines
// are spread over the steps. The offset is a local integer, so the inner
// loop reads nothing from `p` (a vector store may alias it).
template <class T, int OB, int OW, class Pixel>
__attribute__((always_inline)) inline void BlockedTileSteps(const NchwcConvParams& p,
                                                            typename T::V (&acc)[OB][OW],
                                                            const float* w, const char* prefetch,
                                                            int64_t prefetch_lines, Pixel pixel) {
  constexpr int B = T::kBlock;
  const int64_t kw_step = p.dilation_w * p.in_col_stride;
  const int64_t kh_step = p.dilation_h * p.in_row_stride;
  const int64_t block_stride = p.in_block_stride;
  const int64_t in_blocks = p.in_blocks, kernel_h = p.kernel_h, kernel_w = p.kernel_w;
  const int64_t steps = in_blocks * kernel_h * kernel_w;
  const int64_t lines_per_step = prefetch_lines > 0 ? (prefetch_lines + steps - 1) / steps : 0;
  for (int64_t icb = 0; icb < in_blocks; ++icb) {
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        PrefetchLines(prefetch, prefetch_lines, lines_per_step);
        int64_t offset = icb * block_stride + kh * kh_step + kw * kw_step;
#pragma GCC unroll 4
        for (int ic = 0; ic < B; ++ic) {
          MultiplyAddChannel<T, OB, OW>(acc, w, [&](int j) { return pixel(j, offset); });
          w += OB * B;
          ++offset;
        }
      }
    }
  }
}

// One register tile: OB output blocks x OW output pixels, summed over every
// input channel and tap. `in[j]` is pixel j's input at tap (0, 0) of
// channel 0; `w` the tile's packed weights (one OB x B row per channel and
// tap, read front to back: a single stream for the prefetcher); `out`
// (and `sum`) the tile's first pixel of its first block: the OW pixels are
// consecutive in the output, possibly across a row end. `prefetch` points
// at `prefetch_lines` cache lines to pull into L2 during the tile (see
// NchwcConvParams::prefetch). Not inlined: inside ConvPixels the compiler
// ran out of registers and reloaded the pixel pointers from the stack in
// the inner loop.
template <class T, int OB, int OW, bool kBlocked>
__attribute__((noinline)) void ConvTile(const NchwcConvParams& p, const float* const* in,
                                        const float* w, const float* bias, float* out,
                                        const float* sum, const char* prefetch,
                                        int64_t prefetch_lines) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  V acc[OB][OW];
  InitTile<T, OB, OW>(p, bias, out, acc);
  const float* x[OW];
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) x[j] = in[j];
  if constexpr (!kBlocked) {
    // A first layer's few channels and taps (an RGB 7x7: 147 steps): one
    // flat loop over precomputed offsets. Nested kh/kw/channel loops spilled
    // an accumulator and reloaded strides from the stack in the inner loop.
    // Its weights (37 KiB for ResNet's stem) need no prefetch.
    const int64_t steps = p.kernel_h * p.kernel_w * p.channels_per_block;
#pragma GCC unroll 1
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t offset = p.step_offsets[s];
      MultiplyAddChannel<T, OB, OW>(acc, w, [&](int j) { return x[j] + offset; });
      w += OB * B;
    }
  } else {
    BlockedTileSteps<T, OB, OW>(p, acc, w, prefetch, prefetch_lines,
                                [&](int j, int64_t offset) { return x[j] + offset; });
  }
  FinishTile<T, OB, OW>(p, ActivationVectors<T>(p.activation), acc, out, sum);
}

// ConvTile for OW pixels of one output row, of a blocked input at column
// stride S: pixel j reads in + j * S * B, a constant offset from one
// pointer. ConvTile keeps OW input pointers, more than the general-purpose
// registers hold beside its loop state at OW = 12 (one output block): GCC
// reloaded them from the stack for every broadcast, and RegNet-X's 3x3/2
// convs of one block a group took 1.22-1.26x ONNX Runtime's time.
template <class T, int OB, int OW, int S>
__attribute__((noinline)) void ConvRowTile(const NchwcConvParams& p, const float* in,
                                           const float* w, const float* bias, float* out,
                                           const float* sum, const char* prefetch,
                                           int64_t prefetch_lines) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  V acc[OB][OW];
  InitTile<T, OB, OW>(p, bias, out, acc);
  BlockedTileSteps<T, OB, OW>(p, acc, w, prefetch, prefetch_lines,
                              [&](int j, int64_t offset) { return in + offset + j * S * B; });
  FinishTile<T, OB, OW>(p, ActivationVectors<T>(p.activation), acc, out, sum);
}

// Output pixels walked in row-major order without a division per pixel:
// `at` is the input of pixel (row, col) at tap (0, 0).
struct PixelCursor {
  const NchwcConvParams& p;
  int64_t col;
  const float* row_start;  // input of (row, 0)
  PixelCursor(const NchwcConvParams& params, int64_t pixel) : p(params) {
    const int64_t row = pixel / p.out_width;
    col = pixel % p.out_width;
    row_start = p.input + row * p.stride_h * p.in_row_stride;
  }
  const float* at() const { return row_start + col * p.stride_w * p.in_col_stride; }
  void Next() {
    if (++col == p.out_width) {
      col = 0;
      row_start += p.stride_h * p.in_row_stride;
    }
  }
  // n pixels on within the row (col + n <= out_width).
  void Skip(int64_t n) {
    col += n;
    if (col == p.out_width) {
      col = 0;
      row_start += p.stride_h * p.in_row_stride;
    }
  }
};

// Tiles of OW pixels over [pixel, pixel_end), then one narrower tile for
// the rest; the full tiles share p.prefetch (the narrow one if none).
template <class T, int OB, int OW, bool kBlocked>
inline void ConvPixels(const NchwcConvParams& p, int64_t pixel, int64_t pixel_end) {
  constexpr int B = T::kBlock;
  const int64_t full_tiles = (pixel_end - pixel) / OW;
  const int64_t lines =
      p.prefetch != nullptr ? (p.prefetch_bytes + kCacheLine - 1) / kCacheLine : 0;
  const int64_t lines_per_tile = full_tiles > 0 ? (lines + full_tiles - 1) / full_tiles : 0;
  const char* prefetch = reinterpret_cast<const char*>(p.prefetch);
  int64_t lines_left = lines;
  PixelCursor cursor(p, pixel);
  // Column stride 1 or 2 on a blocked input: tiles within one row take
  // ConvRowTile.
  const int row_stride =
      kBlocked && p.in_col_stride == B && (p.stride_w == 1 || p.stride_w == 2) ? p.stride_w : 0;
  for (; pixel + OW <= pixel_end; pixel += OW) {
    const int64_t tile_lines = std::min(lines_per_tile, lines_left);
    const float* sum = p.sum != nullptr ? p.sum + pixel * B : nullptr;
    if (row_stride != 0 && cursor.col + OW <= p.out_width) {
      const float* in = cursor.at();
      if (row_stride == 1) {
        ConvRowTile<T, OB, OW, 1>(p, in, p.weights, p.bias, p.output + pixel * B, sum, prefetch,
                                  tile_lines);
      } else {
        ConvRowTile<T, OB, OW, 2>(p, in, p.weights, p.bias, p.output + pixel * B, sum, prefetch,
                                  tile_lines);
      }
      cursor.Skip(OW);
    } else {
      const float* in[OW];
      for (int j = 0; j < OW; ++j) {
        in[j] = cursor.at();
        cursor.Next();
      }
      ConvTile<T, OB, OW, kBlocked>(p, in, p.weights, p.bias, p.output + pixel * B, sum, prefetch,
                                    tile_lines);
    }
    prefetch += tile_lines * kCacheLine;
    lines_left -= tile_lines;
  }
  if constexpr (OW > 1) {
    if (pixel < pixel_end) {
      if (full_tiles == 0) {
        ConvPixels<T, OB, OW - 1, kBlocked>(p, pixel, pixel_end);
      } else {
        NchwcConvParams rest = p;
        rest.prefetch = nullptr;
        ConvPixels<T, OB, OW - 1, kBlocked>(rest, pixel, pixel_end);
      }
    }
  }
}

// The OW pixels of one input block that the next tile reads, into L1
// (T::kPrefetchNextTile). A tile reads a few lines from each of up to
// hundreds of block planes (a block plane apart: 100 KB at 56^2), more
// streams than the hardware prefetchers follow, so every tile waited on its
// first broadcast of each line: on Zen 3, ResNet-50's 256->64 1x1 at 56^2
// sat at ~62 GFLOP/s (65 % of the FMA peak) with those broadcasts the
// hottest instructions. Asked for one tile ahead (~1,500 cycles of work at
// 32 input blocks), 84 GFLOP/s; ResNet-50 110 -> 95 ms and DenseNet-121 78
// -> 67 ms at one thread (bench/results/avx2-zen3-2026-12-07.md).
template <class T, int OW>
__attribute__((always_inline)) inline void PrefetchNextTile(const float* x) {
  constexpr int kLines =
      static_cast<int>((OW * T::kBlock * sizeof(float) + kCacheLine - 1) / kCacheLine);
  const char* line = reinterpret_cast<const char*>(x);
#pragma GCC unroll 16
  for (int l = 0; l < kLines; ++l) __builtin_prefetch(line + l * kCacheLine, 0, 3);
}

// A pointwise conv (1x1, stride 1, blocked, unpadded) reads pixel q's input
// at input + q * B: one pointer serves the whole tile, so `tiles`
// consecutive full tiles run in one call without ConvTile's per-tile
// set-up (a call, OW input pointers, the activation's constants). That
// set-up was about a third of the time of MobileNet's 16- and 32-channel
// expansions, which have 16 or 32 multiply-add steps a tile
// (bench/results/nchwc-2026-12-02b.md). p.prefetch is spread over the
// tiles' input blocks as in ConvTile.
template <class T, int OB, int OW>
__attribute__((noinline)) void ConvTilesPointwise(const NchwcConvParams& p, int64_t pixel,
                                                  int64_t tiles) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  const ActivationVectors<T> activation(p.activation);
  int64_t lines_left = p.prefetch != nullptr ? (p.prefetch_bytes + kCacheLine - 1) / kCacheLine : 0;
  const int64_t lines_per_step = (lines_left + tiles * p.in_blocks - 1) / (tiles * p.in_blocks);
  const char* prefetch = reinterpret_cast<const char*>(p.prefetch);
  for (int64_t t = 0; t < tiles; ++t, pixel += OW) {
    float* out = p.output + pixel * B;
    V acc[OB][OW];
    InitTile<T, OB, OW>(p, p.bias, out, acc);
    const float* w = p.weights;
    for (int64_t icb = 0; icb < p.in_blocks; ++icb) {
      PrefetchLines(prefetch, lines_left, lines_per_step);
      const float* x = p.input + icb * p.in_block_stride + pixel * B;
      if constexpr (T::kPrefetchNextTile) PrefetchNextTile<T, OW>(x + OW * B);
#pragma GCC unroll 4
      for (int c = 0; c < B; ++c) {
        MultiplyAddChannel<T, OB, OW>(acc, w, [&](int j) { return x + j * B + c; });
        w += OB * B;
      }
    }
    FinishTile<T, OB, OW>(p, activation, acc, out, p.sum != nullptr ? p.sum + pixel * B : nullptr);
  }
}

// Full tiles through ConvTilesPointwise, the rest through ConvPixels. A
// rest under OW - 1 pixels would be one narrow tile with too few sums to
// hide the multiply-add latency (a 7^2 layer's 49 pixels as 8 x 6 + 1: the
// 1-pixel tile took 7 % of a 400 -> 400 1x1 conv on Zen 3), so where the
// pixels allow they are cut as tiles of OW and OW - 1 instead, both through
// ConvTilesPointwise (49 = 4 x 6 + 5 x 5;
// bench/results/nchwc-pointwise-tail-2026-12-07.md).
template <class T, int OB, int OW>
inline void PointwisePixels(const NchwcConvParams& p, int64_t pixel, int64_t pixel_end) {
  const int64_t count = pixel_end - pixel;
  int64_t tiles = count / OW, narrower = 0;
  if constexpr (OW > 2) {
    if (count % OW != 0 && count % OW < OW - 1) {
      const int64_t all = tiles + 1;
      const int64_t n = OW * all - count;  // tiles of OW - 1 in the even cut
      if (n <= all) {
        tiles = all - n;
        narrower = n;
      }
    }
  }
  if (tiles > 0) ConvTilesPointwise<T, OB, OW>(p, pixel, tiles);
  pixel += tiles * OW;
  if constexpr (OW > 2) {
    if (narrower > 0) {
      NchwcConvParams rest = p;
      if (tiles > 0) rest.prefetch = nullptr;
      ConvTilesPointwise<T, OB, OW - 1>(rest, pixel, narrower);
      pixel += narrower * (OW - 1);
    }
  }
  if constexpr (OW > 1) {
    if (pixel < pixel_end) {
      NchwcConvParams rest = p;
      rest.prefetch = nullptr;
      ConvPixels<T, OB, OW - 1, true>(rest, pixel, pixel_end);
    }
  }
}

// Tiles of OB output blocks x T::kTileWidth[OB] pixels; kPointwise
// (blocked input only) takes PointwisePixels.
template <class T, int OB, bool kBlocked, bool kPointwise>
inline void SegmentOf(const NchwcConvParams& p, int64_t pixel_begin, int64_t pixel_end) {
  if constexpr (kPointwise) {
    PointwisePixels<T, OB, T::kTileWidth[OB]>(p, pixel_begin, pixel_end);
  } else {
    ConvPixels<T, OB, T::kTileWidth[OB], kBlocked>(p, pixel_begin, pixel_end);
  }
}

// Tiles of `blocks` output blocks use T::kTileWidth[blocks] pixels: fewer
// blocks leave registers for more pixels, so each weight vector loaded
// serves more multiply-adds.
template <class T, bool kBlocked, bool kPointwise = false>
void ConvSegment(const NchwcConvParams& p, int64_t blocks, int64_t pixel_begin, int64_t pixel_end) {
  static_assert(T::kTileBlocks >= 1 && T::kTileBlocks <= 4);
  switch (blocks) {
    case 1:
      SegmentOf<T, 1, kBlocked, kPointwise>(p, pixel_begin, pixel_end);
      break;
    case 2:
      if constexpr (T::kTileBlocks >= 2) {
        SegmentOf<T, 2, kBlocked, kPointwise>(p, pixel_begin, pixel_end);
      }
      break;
    case 3:
      if constexpr (T::kTileBlocks >= 3) {
        SegmentOf<T, 3, kBlocked, kPointwise>(p, pixel_begin, pixel_end);
      }
      break;
    default:
      if constexpr (T::kTileBlocks >= 4) {
        SegmentOf<T, 4, kBlocked, kPointwise>(p, pixel_begin, pixel_end);
      }
      break;
  }
}

template <class T>
void ConvSegmentAnyInput(const NchwcConvParams& p, int64_t blocks, int64_t pixel_begin,
                         int64_t pixel_end) {
  if (p.in_col_stride == T::kBlock && p.in_channel_stride == 1 &&
      p.channels_per_block == T::kBlock) {
    // Pixel q's input at input + q * B: one tap, stride 1, input rows as
    // wide as output rows (no padding).
    const bool pointwise = p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 &&
                           p.stride_w == 1 && p.in_row_stride == p.out_width * T::kBlock;
    if (pointwise) {
      ConvSegment<T, true, true>(p, blocks, pixel_begin, pixel_end);
    } else {
      ConvSegment<T, true>(p, blocks, pixel_begin, pixel_end);
    }
  } else {
    ConvSegment<T, false>(p, blocks, pixel_begin, pixel_end);
  }
}

// Winograd F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional
// Neural Networks", 2016): a 6x6 input patch d and a 3x3 kernel g give the
// 4x4 output A^T [(G g G^T) . (B^T d B)] A, 36 multiplies per input and
// output channel where the direct form takes 144. The matrices:
//   B^T = [4  0 -5  0  1  0]   A^T = [1  1  1  1  1  0]
//         [0 -4 -4  1  1  0]         [0  1 -1  2 -2  0]
//         [0  4 -4 -1  1  0]         [0  1  1  4  4  0]
//         [0 -2 -1  2  1  0]         [0  1 -1  8 -8  1]
//         [0  2 -1 -2  1  0]
//         [0  4  0 -5  0  1]
// (G in nchwc_conv.cc, applied to the weights once.)
inline constexpr float kWinogradTwo = 2.0f, kWinogradFour = 4.0f, kWinogradEight = 8.0f;
inline constexpr float kWinogradMinusTwo = -2.0f, kWinogradMinusFour = -4.0f,
                       kWinogradMinusFive = -5.0f;

// t = B^T d for one column (or row) of six vectors.
template <class T>
__attribute__((always_inline)) inline void WinogradInputLine(const typename T::V (&d)[6],
                                                             typename T::V (&t)[6]) {
  using V = typename T::V;
  const V four = T::Broadcast(&kWinogradFour), minus_four = T::Broadcast(&kWinogradMinusFour);
  const V two = T::Broadcast(&kWinogradTwo), minus_two = T::Broadcast(&kWinogradMinusTwo);
  const V minus_five = T::Broadcast(&kWinogradMinusFive);
  const V d4_minus_d2 = T::Sub(d[4], d[2]);
  const V d3_minus_d1 = T::Sub(d[3], d[1]);
  t[0] = T::Fma(four, d[0], T::Fma(minus_five, d[2], d[4]));
  t[1] = T::Fma(minus_four, T::Add(d[1], d[2]), T::Add(d[3], d[4]));
  t[2] = T::Fma(four, T::Sub(d[1], d[2]), T::Sub(d[4], d[3]));
  t[3] = T::Fma(two, d3_minus_d1, d4_minus_d2);
  t[4] = T::Fma(minus_two, d3_minus_d1, d4_minus_d2);
  t[5] = T::Fma(four, d[1], T::Fma(minus_five, d[3], d[5]));
}

template <class T>
void WinogradInput(const float* in, int64_t row_stride, float* out, int64_t out_stride) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  V t[6][6];  // t[i][j]: row i of B^T d, column j
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    V d[6], column[6];
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) d[r] = T::Load(in + r * row_stride + j * B);
    WinogradInputLine<T>(d, column);
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) t[i][j] = column[i];
  }
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    V row[6];
    WinogradInputLine<T>(t[i], row);
#pragma GCC unroll 6
    for (int j = 0; j < 6; ++j) T::Store(out + (6 * i + j) * out_stride, row[j]);
  }
}

// s = A^T m for one column (or row) of six vectors.
template <class T>
__attribute__((always_inline)) inline void WinogradOutputLine(const typename T::V (&m)[6],
                                                              typename T::V (&s)[4]) {
  using V = typename T::V;
  const V two = T::Broadcast(&kWinogradTwo), four = T::Broadcast(&kWinogradFour);
  const V eight = T::Broadcast(&kWinogradEight);
  const V a = T::Add(m[1], m[2]), b = T::Sub(m[1], m[2]);
  const V c = T::Add(m[3], m[4]), d = T::Sub(m[3], m[4]);
  s[0] = T::Add(T::Add(m[0], a), c);
  s[1] = T::Fma(two, d, b);
  s[2] = T::Fma(four, c, a);
  s[3] = T::Add(T::Fma(eight, d, b), m[5]);
}

template <class T>
void WinogradOutput(const float* in, int64_t in_stride, const float* bias, const float* sum,
                    float* out, int64_t row_stride, int rows, int cols,
                    const NchwcActivation& activation) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  V s[4][6];  // s[r][j]: row r of A^T m, column j
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    V m[6], column[4];
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) m[i] = T::Load(in + (6 * i + j) * in_stride);
    WinogradOutputLine<T>(m, column);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) s[r][j] = column[r];
  }
  const V b = T::Load(bias);
  const bool activate = activation.kind != NchwcActivation::Kind::kNone;
  const ActivationVectors<T> vectors(activation);
  for (int r = 0; r < rows; ++r) {
    V row[4];
    WinogradOutputLine<T>(s[r], row);
    for (int c = 0; c < cols; ++c) {
      V y = T::Add(row[c], b);
      if (sum != nullptr) y = T::Add(y, T::Load(sum + r * row_stride + c * B));
      if (activate) y = vectors.Apply(y);
      T::Store(out + r * row_stride + c * B, y);
    }
  }
}

// A depthwise tile's last step: the activation (if any) on its OW
// accumulators, then the stores.
template <class T, int OW>
__attribute__((always_inline)) inline void FinishDepthwiseTile(const NchwcDepthwiseParams& p,
                                                               typename T::V (&acc)[OW],
                                                               float* out) {
  if (p.activation.kind != NchwcActivation::Kind::kNone) {
    const ActivationVectors<T> activation(p.activation);
    if (activation.sigmoid) {
      // Stored first, then activated in place (FinishTile says why).
#pragma GCC unroll 16
      for (int j = 0; j < OW; ++j) T::Store(out + j * T::kBlock, acc[j]);
      for (int j = 0; j < OW; ++j) {
        float* at = out + j * T::kBlock;
        T::Store(at, activation.Apply(T::Load(at)));
      }
      return;
    }
#pragma GCC unroll 16
    for (int j = 0; j < OW; ++j) acc[j] = activation.ApplyNotSigmoid(acc[j]);
  }
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) T::Store(out + j * T::kBlock, acc[j]);
}

// Depthwise: OW columns of one channel block, every lane its own channel.
// `in` is the first column's input at tap (kh_begin, kw_begin), `w` the
// weights of that tap; taps [kh_begin, kh_end) x [kw_begin, kw_end) are
// summed (the caller clips them to the input, so no padding is read).
template <class T, int OW>
inline void DepthwiseTile(const NchwcDepthwiseParams& p, const float* in, const float* w,
                          const float* bias, float* out, int64_t kh_count, int64_t kw_begin,
                          int64_t kw_end) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  V acc[OW];
  const V b = T::Load(bias);
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) acc[j] = b;
  const int64_t column_step = p.stride_w * B;
  for (int64_t kh = 0; kh < kh_count; ++kh) {
    const float* in_row = in + kh * p.dilation_h * p.in_row_stride;
    const float* w_row = w + kh * p.kernel_w * B;
    for (int64_t kw = kw_begin; kw < kw_end; ++kw) {
      const V wv = T::Load(w_row + kw * B);
      const float* x = in_row + (kw - kw_begin) * p.dilation_w * B;
#pragma GCC unroll 16
      for (int j = 0; j < OW; ++j) acc[j] = T::Fma(T::Load(x + j * column_step), wv, acc[j]);
    }
  }
  FinishDepthwiseTile<T, OW>(p, acc, out);
}

template <class T, int OW>
inline void DepthwiseColumns(const NchwcDepthwiseParams& p, const float* in_row, const float* w,
                             const float* bias, float* out_row, int64_t kh_count, int64_t ow,
                             int64_t ow_end) {
  constexpr int B = T::kBlock;
  for (; ow + OW <= ow_end; ow += OW) {
    DepthwiseTile<T, OW>(p, in_row + (ow * p.stride_w - p.pad_left) * B, w, bias, out_row + ow * B,
                         kh_count, 0, p.kernel_w);
  }
  if constexpr (OW > 1) {
    if (ow < ow_end) {
      DepthwiseColumns<T, OW - 1>(p, in_row, w, bias, out_row, kh_count, ow, ow_end);
    }
  }
}

// Input vector C of a sliding tile's tap row into the accumulators of the
// output columns whose window holds it (tap K of column (C - K D) / S). The
// taps and columns are template arguments, so every index is a constant and
// the accumulators stay in registers whatever else the tile inlines (with
// plain loops GCC kept them in memory once a fused activation was inlined:
// a 144-channel 56^2 layer took 218 us with Relu, 139 without).
// The output column (of OW, at column stride S) whose tap k, D columns
// apart, reads input vector c; -1 if none.
template <int OW, int S, int D>
constexpr int SlidingColumn(int c, int k) {
  const int offset = c - k * D;
  return offset >= 0 && offset % S == 0 && offset / S < OW ? offset / S : -1;
}

template <class T, int OW, int S, int D, int C, int K>
__attribute__((always_inline)) inline void SlidingTap(typename T::V x, const typename T::V* w,
                                                      typename T::V* acc) {
  constexpr int kColumn = SlidingColumn<OW, S, D>(C, K);
  if constexpr (kColumn >= 0) acc[kColumn] = T::Fma(x, w[K], acc[kColumn]);
}

// Whether any of a sliding tile's KW taps reads input vector c.
template <int OW, int KW, int S, int D>
constexpr bool SlidingReads(int c) {
  for (int k = 0; k < KW; ++k) {
    if (SlidingColumn<OW, S, D>(c, k) >= 0) return true;
  }
  return false;
}

// Input vectors outside [CL, CE) lie in the zero padding: they are neither
// loaded nor multiplied (a clipped tap, as DepthwiseTile skips it), and `x`
// points at vector CL.
template <class T, int OW, int S, int D, int CL, int CE, int C, int... K>
__attribute__((always_inline)) inline void SlidingInput(const float* x, const typename T::V* w,
                                                        typename T::V* acc,
                                                        std::integer_sequence<int, K...>) {
  if constexpr (C >= CL && C < CE && SlidingReads<OW, sizeof...(K), S, D>(C)) {
    const typename T::V xv = T::Load(x + (C - CL) * T::kBlock);
    (SlidingTap<T, OW, S, D, C, K>(xv, w, acc), ...);
  }
}

template <class T, int OW, int KW, int S, int D, int CL, int CE, int... C>
__attribute__((always_inline)) inline void SlidingRow(const float* x, const typename T::V* w,
                                                      typename T::V* acc,
                                                      std::integer_sequence<int, C...>) {
  (SlidingInput<T, OW, S, D, CL, CE, C>(x, w, acc, std::make_integer_sequence<int, KW>{}), ...);
}

// DepthwiseTile for a full-width window of KW taps D columns apart, at
// column stride S: each input vector of a tap row is loaded once and
// multiplied into every output column whose window holds it,
// (OW - 1) * S + (KW - 1) * D + 1 loads a row at most instead of OW * KW.
// Each accumulator still sums its taps in kw order, so the results equal
// DepthwiseTile's bit for bit. The first CL and last CR input vectors of
// each row are padding (clipped taps; `in` points at vector CL): the edge
// columns of a row run in the same tile as their neighbours instead of one
// at a time.
template <class T, int OW, int KW, int S, int D, int CL = 0, int CR = 0>
__attribute__((always_inline)) inline void DepthwiseTileSliding(const NchwcDepthwiseParams& p,
                                                                const float* in, const float* w,
                                                                const float* bias, float* out,
                                                                int64_t kh_count) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  constexpr int kInputs = (OW - 1) * S + (KW - 1) * D + 1;
  static_assert(CL >= 0 && CR >= 0 && CL + CR < kInputs);
  V acc[OW];
  const V b = T::Load(bias);
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) acc[j] = b;
  for (int64_t kh = 0; kh < kh_count; ++kh) {
    const float* w_row = w + kh * KW * B;
    V wv[KW];
#pragma GCC unroll 8
    for (int k = 0; k < KW; ++k) wv[k] = T::Load(w_row + k * B);
    SlidingRow<T, OW, KW, S, D, CL, kInputs - CR>(in + kh * p.dilation_h * p.in_row_stride, wv, acc,
                                                  std::make_integer_sequence<int, kInputs>{});
  }
  FinishDepthwiseTile<T, OW>(p, acc, out);
}

// DepthwiseColumns with DepthwiseTileSliding's tiles: of OW columns, then
// narrower ones for the last few.
template <class T, int OW, int KW, int S, int D>
inline void DepthwiseColumnsSliding(const NchwcDepthwiseParams& p, const float* in_row,
                                    const float* w, const float* bias, float* out_row,
                                    int64_t kh_count, int64_t ow, int64_t ow_end) {
  constexpr int B = T::kBlock;
  for (; ow + OW <= ow_end; ow += OW) {
    DepthwiseTileSliding<T, OW, KW, S, D>(p, in_row + (ow * S - p.pad_left) * B, w, bias,
                                          out_row + ow * B, kh_count);
  }
  if constexpr (OW > 1) {
    if (ow < ow_end) {
      DepthwiseColumnsSliding<T, OW - 1, KW, S, D>(p, in_row, w, bias, out_row, kh_count, ow,
                                                   ow_end);
    }
  }
}

// A sliding tile of OW columns whose first L input vectors are padding, and
// whose last `right` (0..R, chosen at run time) are.
template <class T, int OW, int KW, int S, int D, int L, int R, int CR = 0>
__attribute__((always_inline)) inline void ClippedTile(const NchwcDepthwiseParams& p,
                                                       const float* in, const float* w,
                                                       const float* bias, float* out,
                                                       int64_t kh_count, int64_t right) {
  if (right == CR) {
    DepthwiseTileSliding<T, OW, KW, S, D, L, CR>(p, in, w, bias, out, kh_count);
  } else if constexpr (CR < R) {
    ClippedTile<T, OW, KW, S, D, L, R, CR + 1>(p, in, w, bias, out, kh_count, right);
  }
}

// `cols` (< OW + 1) columns in one tile whose first L input vectors are
// padding and whose last `right` (0..R) are.
template <class T, int OW, int KW, int S, int D, int L, int R>
inline void NarrowClippedTile(const NchwcDepthwiseParams& p, const float* in, const float* w,
                              const float* bias, float* out, int64_t kh_count, int64_t cols,
                              int64_t right) {
  if constexpr (OW > 1) {
    if (cols < OW) {
      NarrowClippedTile<T, OW - 1, KW, S, D, L, R>(p, in, w, bias, out, kh_count, cols, right);
      return;
    }
  }
  ClippedTile<T, OW, KW, S, D, L, R>(p, in, w, bias, out, kh_count, right);
}

// A whole output row of a layer whose left padding is CL input vectors (the
// "same" padding of KW taps D apart) and whose right padding is at most CL,
// in sliding tiles only: the first OW columns with the left padding clipped,
// whole tiles inside, and the last columns in one tile with the right
// padding clipped (a row narrower than a tile in one tile clipped on both
// sides). False when the row does not fit that plan.
template <class T, int OW, int KW, int S, int D, int CL>
bool SlideClippedRow(const NchwcDepthwiseParams& p, const float* in_row, const float* w,
                     const float* bias, float* out_row, int64_t kh_count, int64_t cols) {
  static_assert(OW * S >= CL, "only a row's first tile reaches into the left padding");
  constexpr int B = T::kBlock;
  if (p.pad_left != CL) return false;
  // Input vectors past the row's end under column c's window.
  auto past_end = [&](int64_t c) {
    return std::max<int64_t>(c * S - CL + (KW - 1) * D + 1 - p.in_cols, 0);
  };
  const int64_t right = past_end(cols - 1);
  if (right > CL || (cols - 1) * S - CL >= p.in_cols) return false;
  const int64_t first = std::min<int64_t>(cols, OW);
  NarrowClippedTile<T, OW, KW, S, D, CL, CL>(p, in_row, w, bias, out_row, kh_count, first,
                                             past_end(first - 1));
  int64_t c = first;
  for (; c + OW <= cols && past_end(c + OW - 1) == 0; c += OW) {
    DepthwiseTileSliding<T, OW, KW, S, D>(p, in_row + (c * S - CL) * B, w, bias, out_row + c * B,
                                          kh_count);
  }
  // The rest (the last tile or two), clipped on the right where it reaches
  // the padding.
  while (c < cols) {
    const int64_t n = std::min<int64_t>(cols - c, OW);
    NarrowClippedTile<T, OW, KW, S, D, 0, CL>(p, in_row + (c * S - CL) * B, w, bias,
                                              out_row + c * B, kh_count, n, past_end(c + n - 1));
    c += n;
  }
  return true;
}

// First index k in [0, count) with start + k * step >= 0 (count if none).
inline int64_t FirstInside(int64_t start, int64_t step, int64_t count) {
  if (start >= 0) return 0;
  return std::min(count, (-start + step - 1) / step);
}

// One past the last k in [0, count) with start + k * step < size.
inline int64_t EndInside(int64_t start, int64_t step, int64_t count, int64_t size) {
  if (start >= size) return 0;
  return std::min(count, (size - start + step - 1) / step);
}

template <class T>
void DepthwiseSegment(const NchwcDepthwiseParams& p, int64_t cb, int64_t oh, int64_t ow_begin,
                      int64_t ow_end) {
  constexpr int B = T::kBlock;
  const int64_t ih0 = oh * p.stride_h - p.pad_top;
  const int64_t kh_begin = FirstInside(ih0, p.dilation_h, p.kernel_h);
  const int64_t kh_end = std::max(kh_begin, EndInside(ih0, p.dilation_h, p.kernel_h, p.in_rows));
  const float* in_row =
      p.input + cb * p.in_block_stride + (ih0 + kh_begin * p.dilation_h) * p.in_row_stride;
  const float* w = p.weights + (cb * p.kernel_h + kh_begin) * p.kernel_w * B;
  const float* bias = p.bias + cb * B;
  float* out_row = p.output + cb * p.out_block_stride + oh * p.out_row_stride;
  // Columns whose whole window lies inside the input run as tiles; the
  // others clip their taps one column at a time.
  const int64_t extent = (p.kernel_w - 1) * p.dilation_w;
  int64_t lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
  int64_t hi = p.in_cols - 1 - extent + p.pad_left >= 0
                   ? (p.in_cols - 1 - extent + p.pad_left) / p.stride_w + 1
                   : 0;
  lo = std::clamp(lo, ow_begin, ow_end);
  hi = std::clamp(hi, lo, ow_end);
  constexpr int W = T::kDepthwiseWidth;
  const int64_t kh_count = kh_end - kh_begin;
  // MobileNets', EfficientNets' and LRASPP's shapes (its 5x5 at dilation 2)
  // slide (DepthwiseTileSliding); false for the others.
  const int64_t k = p.kernel_w, s = p.stride_w, d = p.dilation_w;
  auto slide = [&](const NchwcDepthwiseParams& q, const float* row, int64_t from, int64_t to) {
    if (k == 3 && s == 1 && d == 1) {
      DepthwiseColumnsSliding<T, W, 3, 1, 1>(q, row, w, bias, out_row, kh_count, from, to);
    } else if (k == 3 && s == 2 && d == 1) {
      DepthwiseColumnsSliding<T, W, 3, 2, 1>(q, row, w, bias, out_row, kh_count, from, to);
    } else if (k == 5 && s == 1 && d == 1) {
      DepthwiseColumnsSliding<T, W, 5, 1, 1>(q, row, w, bias, out_row, kh_count, from, to);
    } else if (k == 5 && s == 2 && d == 1) {
      DepthwiseColumnsSliding<T, W, 5, 2, 1>(q, row, w, bias, out_row, kh_count, from, to);
    } else if (k == 5 && s == 1 && d == 2) {
      DepthwiseColumnsSliding<T, W, 5, 1, 2>(q, row, w, bias, out_row, kh_count, from, to);
    } else {
      return false;
    }
    return true;
  };
  // Whole rows of the common shapes with "same"-style padding: edge columns
  // inside the sliding tiles. One at a time (below), each edge column was a
  // chain of dependent FMAs, the hottest instructions of the layer in perf:
  // 960 channels at 7^2 took 26 us that way, 18.5 in the tiles.
  if (ow_begin == 0 && ow_end == p.out_row_stride / B && kh_count > 0) {
    bool done = false;
    if (k == 3 && s == 1 && d == 1) {
      done = SlideClippedRow<T, W, 3, 1, 1, 1>(p, in_row, w, bias, out_row, kh_count, ow_end);
    } else if (k == 3 && s == 2 && d == 1) {
      done = SlideClippedRow<T, W, 3, 2, 1, 1>(p, in_row, w, bias, out_row, kh_count, ow_end);
    } else if (k == 5 && s == 1 && d == 1) {
      done = SlideClippedRow<T, W, 5, 1, 1, 2>(p, in_row, w, bias, out_row, kh_count, ow_end);
    } else if (k == 5 && s == 2 && d == 1) {
      done = SlideClippedRow<T, W, 5, 2, 1, 2>(p, in_row, w, bias, out_row, kh_count, ow_end);
    }
    if (done) return;
  }
  // Narrow rows where clipped columns are half or more (5x5 at 7^2, 5x5 at
  // dilation 2 on 14^2): the tap rows go into a zero-bordered buffer first,
  // and every column slides over it. At a quarter (3x3 at 7^2, 5x5/2 to 7^2)
  // the copy cost more than the clipped columns.
  constexpr int64_t kBorderedFloats = 5 * 72 * 16;
  const int64_t bordered_cols = (ow_end - 1) * s + extent + 1;
  if (2 * ((lo - ow_begin) + (ow_end - hi)) >= ow_end - ow_begin &&
      kh_count * bordered_cols * B <= kBorderedFloats && kh_count > 0) {
    alignas(64) float bordered[kBorderedFloats];
    for (int64_t r = 0; r < kh_count; ++r) {
      const float* src = in_row + r * p.dilation_h * p.in_row_stride;
      float* dst = bordered + r * bordered_cols * B;
      const int64_t first = std::min(p.pad_left, bordered_cols);
      const int64_t last = std::clamp(p.pad_left + p.in_cols, first, bordered_cols);
      std::fill(dst, dst + first * B, 0.0f);
      if (last > first) {
        std::copy(src + (first - p.pad_left) * B, src + (last - p.pad_left) * B, dst + first * B);
      }
      std::fill(dst + last * B, dst + bordered_cols * B, 0.0f);
    }
    NchwcDepthwiseParams q = p;
    q.in_row_stride = bordered_cols * B;
    q.dilation_h = 1;
    q.pad_left = 0;
    if (slide(q, bordered, ow_begin, ow_end)) return;
  }
  auto edge = [&](int64_t ow) {
    const int64_t iw0 = ow * p.stride_w - p.pad_left;
    const int64_t kw_begin = FirstInside(iw0, p.dilation_w, p.kernel_w);
    const int64_t kw_end = std::max(kw_begin, EndInside(iw0, p.dilation_w, p.kernel_w, p.in_cols));
    DepthwiseTile<T, 1>(p, in_row + (iw0 + kw_begin * p.dilation_w) * B, w, bias, out_row + ow * B,
                        kh_end - kh_begin, kw_begin, kw_end);
  };
  for (int64_t ow = ow_begin; ow < lo; ++ow) edge(ow);
  if (!slide(p, in_row, lo, hi)) {
    DepthwiseColumns<T, W>(p, in_row, w, bias, out_row, kh_count, lo, hi);
  }
  for (int64_t ow = hi; ow < ow_end; ++ow) edge(ow);
}

template <class T>
void AffinePlane(const float* x, const float* scale, const float* shift, bool relu, int64_t pixels,
                 float* y) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  const V s = scale != nullptr ? T::Load(scale) : T::Broadcast(&kOne);
  const V t = shift != nullptr ? T::Load(shift) : T::Zero();
  for (int64_t i = 0; i < pixels; ++i) {
    V r = T::Fma(T::Load(x + i * B), s, t);
    if (relu) r = T::Max(r, T::Zero());
    T::Store(y + i * B, r);
  }
}

// OW output pixels of a pool, whose windows start at input column iw0,
// iw0 + stride_w, ...: taps [kh_begin, kh_end) x [kw_begin, kw_end) of each,
// divided by `count` (average). OW independent accumulators: one would wait
// on the max/add latency (4 cycles) at every tap.
template <class T, int OW>
inline void PoolPixels(const NchwcPoolParams& p, int64_t ih0, int64_t iw0, int64_t kh_begin,
                       int64_t kh_end, int64_t kw_begin, int64_t kw_end, int64_t count,
                       float* out) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  V acc[OW];
  const V init = p.max ? T::Broadcast(&kMinusInfinity) : T::Zero();
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) acc[j] = init;
  for (int64_t kh = kh_begin; kh < kh_end; ++kh) {
    const int64_t row = (ih0 + kh * p.dilation_h) * p.in_cols + iw0;
    for (int64_t kw = kw_begin; kw < kw_end; ++kw) {
      const float* x = p.input + (row + kw * p.dilation_w) * B;
      if (p.max) {
#pragma GCC unroll 16
        for (int j = 0; j < OW; ++j) acc[j] = T::Max(acc[j], T::Load(x + j * p.stride_w * B));
      } else {
#pragma GCC unroll 16
        for (int j = 0; j < OW; ++j) acc[j] = T::Add(acc[j], T::Load(x + j * p.stride_w * B));
      }
    }
  }
  const float scale = count == 0 ? 0.0f : 1.0f / static_cast<float>(count);
#pragma GCC unroll 16
  for (int j = 0; j < OW; ++j) {
    T::Store(out + j * B, p.max ? acc[j] : T::Mul(acc[j], T::Broadcast(&scale)));
  }
}

// Four accumulators over consecutive pixels, combined at the end, for the
// same reason as PoolPixels; each lane's result depends only on its plane.
template <class T>
void GlobalPool(bool max, const float* in, int64_t pixels, float* out) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  constexpr int kAccumulators = 4;
  const V init = max ? T::Broadcast(&kMinusInfinity) : T::Zero();
  V acc[kAccumulators] = {init, init, init, init};
  auto combine = [max](V a, V b) { return max ? T::Max(a, b) : T::Add(a, b); };
  int64_t i = 0;
  for (; i + kAccumulators <= pixels; i += kAccumulators) {
#pragma GCC unroll 4
    for (int k = 0; k < kAccumulators; ++k) acc[k] = combine(acc[k], T::Load(in + (i + k) * B));
  }
  for (; i < pixels; ++i) acc[0] = combine(acc[0], T::Load(in + i * B));
  V r = combine(combine(acc[0], acc[1]), combine(acc[2], acc[3]));
  if (!max) {
    const float scale = 1.0f / static_cast<float>(pixels);
    r = T::Mul(r, T::Broadcast(&scale));
  }
  T::Store(out, r);
}

template <class T>
void PoolRow(const NchwcPoolParams& p, int64_t oh, float* out) {
  constexpr int B = T::kBlock;
  const int64_t ih0 = oh * p.stride_h - p.pad_top;
  const int64_t kh_begin = FirstInside(ih0, p.dilation_h, p.kernel_h);
  const int64_t kh_end = std::max(kh_begin, EndInside(ih0, p.dilation_h, p.kernel_h, p.in_rows));
  // Window rows inside the padded extent (count_include_pad's divisor).
  const int64_t kh_pad_begin = FirstInside(ih0 + p.pad_top, p.dilation_h, p.kernel_h);
  const int64_t kh_pad_end = std::max(
      kh_pad_begin,
      EndInside(ih0 + p.pad_top, p.dilation_h, p.kernel_h, p.in_rows + p.pad_top + p.pad_bottom));
  const int64_t rows = p.count_include_pad ? kh_pad_end - kh_pad_begin : kh_end - kh_begin;
  // Columns whose window lies inside the input need no clipping (and no
  // divisions: they cost more than the window's loads).
  const int64_t extent = (p.kernel_w - 1) * p.dilation_w;
  int64_t lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
  int64_t hi = p.in_cols - 1 - extent + p.pad_left >= 0
                   ? (p.in_cols - 1 - extent + p.pad_left) / p.stride_w + 1
                   : 0;
  lo = std::min(lo, p.out_cols);
  hi = std::clamp(hi, lo, p.out_cols);
  auto edge = [&](int64_t ow) {
    const int64_t iw0 = ow * p.stride_w - p.pad_left;
    const int64_t kw_begin = FirstInside(iw0, p.dilation_w, p.kernel_w);
    const int64_t kw_end = std::max(kw_begin, EndInside(iw0, p.dilation_w, p.kernel_w, p.in_cols));
    int64_t columns = kw_end - kw_begin;
    if (p.count_include_pad) {
      const int64_t kw_pad_begin = FirstInside(iw0 + p.pad_left, p.dilation_w, p.kernel_w);
      columns = std::max(kw_pad_begin, EndInside(iw0 + p.pad_left, p.dilation_w, p.kernel_w,
                                                 p.in_cols + p.pad_left + p.pad_right)) -
                kw_pad_begin;
    }
    PoolPixels<T, 1>(p, ih0, iw0, kh_begin, kh_end, kw_begin, kw_end, rows * columns, out + ow * B);
  };
  for (int64_t ow = 0; ow < lo; ++ow) edge(ow);
  constexpr int kWidth = 8;
  int64_t ow = lo;
  for (; ow + kWidth <= hi; ow += kWidth) {
    PoolPixels<T, kWidth>(p, ih0, ow * p.stride_w - p.pad_left, kh_begin, kh_end, 0, p.kernel_w,
                          rows * p.kernel_w, out + ow * B);
  }
  for (; ow < hi; ++ow) {
    PoolPixels<T, 1>(p, ih0, ow * p.stride_w - p.pad_left, kh_begin, kh_end, 0, p.kernel_w,
                     rows * p.kernel_w, out + ow * B);
  }
  for (ow = std::max(hi, lo); ow < p.out_cols; ++ow) edge(ow);
}

// Plain NCHW planes to one block, B pixels at a time: one vector from each
// of the block's channel planes (zeros past `lanes`), transposed in
// registers (T::Transpose) into B blocked pixels. Gathers did this one pixel
// per instruction, which on AMD Zen 4 took 3-4x as long (ShuffleNet's and
// ResNeXt's reorders; bench/results/nchwc-zen4-2026-12-04.md).
template <class T>
void ReorderIn(const float* planes, int64_t plane, int64_t lanes, int64_t pixels, float* blocked) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  int64_t i = 0;
  for (; i + B <= pixels; i += B) {
    V r[B];
#pragma GCC unroll 16
    for (int l = 0; l < B; ++l) r[l] = l < lanes ? T::Load(planes + l * plane + i) : T::Zero();
    T::Transpose(r);
#pragma GCC unroll 16
    for (int k = 0; k < B; ++k) T::Store(blocked + (i + k) * B, r[k]);
  }
  for (; i < pixels; ++i) {
    for (int64_t l = 0; l < B; ++l) blocked[i * B + l] = l < lanes ? planes[l * plane + i] : 0.0f;
  }
}

// One block back to NCHW planes: B blocked pixels transposed in registers
// into B pixels of each lane's plane.
template <class T>
void ReorderOut(const float* blocked, int64_t plane, int64_t lanes, int64_t pixels, float* planes) {
  using V = typename T::V;
  constexpr int B = T::kBlock;
  int64_t i = 0;
  for (; i + B <= pixels; i += B) {
    V r[B];
#pragma GCC unroll 16
    for (int k = 0; k < B; ++k) r[k] = T::Load(blocked + (i + k) * B);
    T::Transpose(r);
    for (int64_t l = 0; l < lanes; ++l) T::Store(planes + l * plane + i, r[l]);
  }
  for (; i < pixels; ++i) {
    for (int64_t l = 0; l < lanes; ++l) planes[l * plane + i] = blocked[i * B + l];
  }
}

}  // namespace loom::kernels::nchwc_detail
