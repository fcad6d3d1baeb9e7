// The prepared VNNI QLinearConv (qlinear_conv_vnni.h): weights packed once,
// per call the quad/phase copy of x and the tiles over the thread pool.
#include "kernels/quant/qlinear_conv_vnni.h"

#include <emmintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/aligned_buffer.h"
#include "kernels/quant/byte_transpose.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_common.h"
#include "kernels/spatial_geometry.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "QLinearConv";
constexpr int64_t kRows = kVnniRows;                // output channels per tile
constexpr int64_t kTilePixels = 16 * kVnniVectors;  // pixels per tile
constexpr int64_t kAmxRows = 32;                    // the AMX tile: 32 channels x 32 pixels
constexpr int64_t kAmxPixels = 32;
// Below this many input channels the VNNI tile runs (an A row is 64 channels).
constexpr int64_t kAmxMinChannels = 64;
// With at most 4 channels: AMX when a step has this many taps (K = 4 x taps).
constexpr int64_t kAmxMinRowTaps = 3;
// ~0.0005 ns per multiply-add with AMX (2.6 T/s measured on one core).
constexpr double kNsPerAmxMac = 0.0005;
// ~0.003 ns per multiply-add (a vpdpbusd does 64) on a 3 GHz core issuing
// about one a cycle; the copy of x ~0.25 ns a byte.
constexpr double kNsPerMac = 0.003;
constexpr double kNsPerCopiedByte = 0.25;

// The phase-grid columns [j_lo, j_hi) of column phase b whose source
// column sw * j + b - left lies in the input's [0, w); the others are
// padding.
std::pair<int64_t, int64_t> SourceColumns(int64_t w, int64_t left, int64_t b, int64_t sw,
                                          int64_t wph) {
  const int64_t j_lo = std::max<int64_t>(0, (left - b + sw - 1) / sw);
  const int64_t last = w - 1 + left - b;  // j_hi's numerator, may be negative
  const int64_t j_hi = last < 0 ? j_lo : std::clamp<int64_t>(last / sw + 1, j_lo, wph);
  return {j_lo, j_hi};
}

inline __m128i LoadBytes(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Bytes 0, 2, ..., 30 of p[0..31].
inline __m128i EvenBytes(const uint8_t* p) {
  const __m128i low = _mm_set1_epi16(0x00ff);
  return _mm_packus_epi16(_mm_and_si128(LoadBytes(p), low), _mm_and_si128(LoadBytes(p + 16), low));
}

// Phase copies of one image: for each used phase, [quads][Hph][Wph] words.
struct PhaseGrid {
  int64_t sh = 1, sw = 1, hph = 0, wph = 0, quads = 0;
  int64_t plane = 0;            // words per quad plane: hph * wph
  std::vector<int64_t> offset;  // per phase (a * sw + b): first word, or -1 if unused
  int64_t words = 0;            // all planes, plus slack for the dropped pixels' reads
};

class PreparedVnniConv : public PreparedKernel {
 public:
  PreparedVnniConv(const Attributes& attrs, DType x_dtype, DType y_dtype, bool amx)
      : attrs_(attrs), x_dtype_(x_dtype), y_dtype_(y_dtype), amx_(amx) {}

  // Fills the packed weights, bias and multipliers; false when a weight's
  // difference to its zero point leaves int8 or a multiplier is not finite.
  bool Pack(const Tensor& w, const std::vector<int32_t>& w_zero, const std::vector<int32_t>& bias,
            float x_scale, const std::vector<float>& w_scale, float y_scale, int32_t x_zero,
            int32_t y_zero) {
    const auto& d = w.shape().dims();
    out_channels_ = d[0];
    channels_ = d[1];
    kh_ = d[2];
    kw_ = d[3];
    quads_ = (channels_ + 3) / 4;
    const int64_t taps = kh_ * kw_;
    const int64_t blocks = (out_channels_ + kRows - 1) / kRows;
    const std::vector<int32_t> wv = quant::ReadInts(w);
    weights_.assign(static_cast<size_t>(blocks * quads_ * taps * kRows * 4), 0);
    chunks_ = (channels_ + 63) / 64;
    const int64_t amx_blocks = (out_channels_ + kAmxRows - 1) / kAmxRows;
    // The few-channel AMX layout: a step per (kernel row, column phase b),
    // row_taps_ taps kw = b, b + sw, ... (padded with zero weights).
    const int64_t sw = attrs_.get_ints("strides", {1, 1}).back();
    const int64_t dw = attrs_.get_ints("dilations", {1, 1}).back();
    few_channels_ = amx_ && channels_ <= 4;
    if (few_channels_) {
      if (dw != 1 || sw < 1) return false;
      column_phases_ = std::min(sw, kw_);
      row_taps_ = (kw_ + sw - 1) / sw;
      if (row_taps_ > 16) return false;  // an A row holds at most 16 words
      amx_weights_.assign(
          static_cast<size_t>(amx_blocks * kh_ * column_phases_ * 2 * row_taps_ * 64), 0);
      MakeAmxTileConfig(static_cast<int>(4 * row_taps_), static_cast<int>(row_taps_), &amx_config_);
    } else if (amx_) {
      amx_weights_.assign(static_cast<size_t>(amx_blocks * taps * chunks_ * 2048), 0);
      MakeAmxTileConfig(64, 16, &amx_config_);
    }
    // Read by output channel in blocks of 8 (VNNI) or 32 (AMX).
    bias_.assign(static_cast<size_t>(amx_blocks * kAmxRows), 0);
    multiplier_.assign(static_cast<size_t>(amx_blocks * kAmxRows), 0.0);
    flip_ = x_dtype_ == DType::kInt8 ? 0x80 : 0;
    x_zero_ = static_cast<uint8_t>(x_zero + (flip_ != 0 ? 128 : 0));
    y_zero_ = y_zero;
    for (int64_t m = 0; m < out_channels_; ++m) {
      const int32_t zp = w_zero[w_zero.size() == 1 ? 0 : static_cast<size_t>(m)];
      uint32_t sum = 0;
      for (int64_t c = 0; c < channels_; ++c) {
        for (int64_t t = 0; t < taps; ++t) {
          const int32_t v = wv[static_cast<size_t>((m * channels_ + c) * taps + t)] - zp;
          if (v < -128 || v > 127) return false;
          sum += static_cast<uint32_t>(v);
          const int64_t at =
              ((((m / kRows) * quads_ + c / 4) * taps + t) * kRows + m % kRows) * 4 + c % 4;
          weights_[static_cast<size_t>(at)] = static_cast<int8_t>(v);
          if (few_channels_) {
            // [block][step = kh * column_phases + kw % sw][half][row = kw / sw][16 x 4]
            const int64_t kh = t / kw_, kw = t % kw_;
            const int64_t step = kh * column_phases_ + kw % sw;
            const int64_t few_at =
                ((((m / kAmxRows) * kh_ * column_phases_ + step) * 2 + (m % kAmxRows) / 16) *
                     row_taps_ +
                 kw / sw) *
                    64 +
                (m % 16) * 4 + c;
            amx_weights_[static_cast<size_t>(few_at)] = static_cast<int8_t>(v);
          } else if (amx_) {
            // [block][tap][chunk][half][row = channel / 4 in chunk][16 x 4]
            const int64_t amx_at =
                (((((m / kAmxRows) * taps + t) * chunks_ + c / 64) * 2 + (m % kAmxRows) / 16) * 16 +
                 (c % 64) / 4) *
                    64 +
                (m % 16) * 4 + c % 4;
            amx_weights_[static_cast<size_t>(amx_at)] = static_cast<int8_t>(v);
          }
        }
      }
      // acc = sum (x' - x_zero') w = sum x' w - x_zero' * sum w, modulo 2^32.
      const uint32_t b = bias.empty() ? 0u : static_cast<uint32_t>(bias[static_cast<size_t>(m)]);
      bias_[static_cast<size_t>(m)] =
          static_cast<int32_t>(b - static_cast<uint32_t>(x_zero_) * sum);
      // The general kernel's multiplier: float32 product and quotient.
      const float mult =
          x_scale * w_scale[w_scale.size() == 1 ? 0 : static_cast<size_t>(m)] / y_scale;
      if (!std::isfinite(mult)) return false;
      multiplier_[static_cast<size_t>(m)] = static_cast<double>(mult);
    }
    return true;
  }

  std::vector<Tensor> Run(const KernelContext& ctx, KernelInputs inputs) const override {
    const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
    // Anything unexpected goes to the general kernel, which checks and
    // reports it (and a forced lower ISA runs the general kernel too).
    if (!UseVnniConv(ctx.isa) || x.dtype() != x_dtype_ || x.shape().rank() != 4 ||
        x.shape().dim(1) != channels_) {
      return QLinearConvKernel(ctx, attrs_, inputs);
    }
    const auto& xd = x.shape().dims();
    const int64_t in_spatial[2] = {xd[2], xd[3]};
    const int64_t kernel[2] = {kh_, kw_};
    const SpatialGeometry g = ResolveSpatialGeometry(kOp, attrs_, in_spatial, kernel);
    const int64_t batch = xd[0];
    const int64_t out_h = g.output[0], out_w = g.output[1];
    Tensor y = Tensor::uninitialized(y_dtype_, Shape({batch, out_channels_, out_h, out_w}));
    if (y.num_elements() == 0) return {std::move(y)};

    if (amx_ && !few_channels_) {
      RunAmx(ctx, x, g, y);
      return {std::move(y)};
    }
    const PhaseGrid grid = Grid(g);
    // The calling thread's scratch (not zeroed: the copy writes every word
    // of the planes). The slack past the last plane is only read for
    // dropped pixels; zero it so those reads see defined values.
    thread_local base::GrowOnlyBuffer scratch;
    static_assert(sizeof(float) == sizeof(uint32_t));
    auto* words = reinterpret_cast<uint32_t*>(scratch.Floats(static_cast<size_t>(grid.words)));
    const int64_t used_end = grid.words - Slack(grid);
    std::fill(words + used_end, words + grid.words, 0u);
    const int64_t taps = kh_ * kw_;
    // Tap t's word offset from its phase's first word.
    std::vector<int64_t> tap_offset(static_cast<size_t>(taps));
    for (int64_t a = 0; a < kh_; ++a) {
      for (int64_t b = 0; b < kw_; ++b) {
        const int64_t dy = a * g.dilation[0], dx = b * g.dilation[1];
        tap_offset[static_cast<size_t>(a * kw_ + b)] =
            grid.offset[static_cast<size_t>((dy % grid.sh) * grid.sw + dx % grid.sw)] +
            (dy / grid.sh) * grid.wph + dx / grid.sw;
      }
    }
    const int64_t pixels = out_h * grid.wph;  // on the phase grid's width
    const int64_t pixel_tiles = (pixels + kTilePixels - 1) / kTilePixels;
    const int64_t blocks = (out_channels_ + kRows - 1) / kRows;
    const int64_t phases = grid.sh * grid.sw;
    const auto* xp = static_cast<const uint8_t*>(x.raw_data());
    auto* yp = static_cast<uint8_t*>(y.raw_data());
    const quant::IntRange range = quant::RangeOf(y_dtype_);

    for (int64_t n = 0; n < batch; ++n) {
      const uint8_t* image = xp + n * channels_ * xd[2] * xd[3];
      // The copy: one unit per (phase, quad) plane; split over threads by
      // its cost alone (as the AMX copy; the stem at intra 2 376 -> 366 us).
      threading::ParallelFor(
          ctx.pool, phases * grid.quads, kNsPerCopiedByte * static_cast<double>(grid.plane * 4),
          [&](int64_t begin, int64_t end) {
            for (int64_t u = begin; u < end; ++u) {
              const int64_t phase = u / grid.quads, quad = u % grid.quads;
              const int64_t start = grid.offset[static_cast<size_t>(phase)];
              if (start < 0) continue;
              FillPlane(image, xd[2], xd[3], g, grid, phase / grid.sw, phase % grid.sw, quad,
                        words + start + quad * grid.plane);
            }
          });
      uint8_t* image_out = yp + n * out_channels_ * out_h * out_w;
      if (few_channels_) {
        // Step (kh, b) starts at tap (kh, b)'s word; its taps are the next
        // row_taps_ words of each pixel.
        std::vector<int64_t> steps;
        for (int64_t a = 0; a < kh_; ++a) {
          for (int64_t b = 0; b < column_phases_; ++b) {
            steps.push_back(4 * tap_offset[static_cast<size_t>(a * kw_ + b)]);
          }
        }
        RunAmxTiles(ctx, reinterpret_cast<const uint8_t*>(words), steps, 4, 1, row_taps_ * 64,
                    pixels, grid.wph, out_h, out_w, range, image_out);
        continue;
      }
      const double unit_cost =
          kNsPerMac * static_cast<double>(kRows * kTilePixels * taps * grid.quads * 4);
      threading::ParallelFor(
          ctx.pool, blocks * pixel_tiles, unit_cost, [&](int64_t begin, int64_t end) {
            std::vector<const uint32_t*> tap_ptr(static_cast<size_t>(taps));
            alignas(64) uint8_t tile_out[kRows * kTilePixels];
            for (int64_t u = begin; u < end; ++u) {
              const int64_t block = u / pixel_tiles;
              const int64_t q0 = (u % pixel_tiles) * kTilePixels;
              const int64_t count = std::min(kTilePixels, pixels - q0);
              for (int64_t t = 0; t < taps; ++t) {
                tap_ptr[static_cast<size_t>(t)] = words + tap_offset[static_cast<size_t>(t)] + q0;
              }
              const VnniConvTile tile{tap_ptr.data(),
                                      taps,
                                      grid.quads,
                                      grid.plane,
                                      weights_.data() + block * grid.quads * taps * kRows * 4,
                                      bias_.data() + block * kRows,
                                      multiplier_.data() + block * kRows,
                                      y_zero_,
                                      range.min,
                                      range.max};
              u8s8_conv_8x48__avx512vnni(tile, static_cast<int>((count + 15) / 16), tile_out);
              const int64_t rows = std::min(kRows, out_channels_ - block * kRows);
              StoreKeptPixels__avx512(tile_out, kTilePixels, rows, q0, count, grid.wph, out_h,
                                      out_w, image_out + block * kRows * out_h * out_w);
            }
          });
    }
    return {std::move(y)};
  }

  const char* kind() const override {
    return amx_ ? "prepared amx qlinearconv" : "prepared vnni qlinearconv";
  }

 private:
  static int64_t Slack(const PhaseGrid& grid) { return grid.wph + 2 * kTilePixels; }

  PhaseGrid Grid(const SpatialGeometry& g) const {
    PhaseGrid grid;
    grid.sh = g.stride[0];
    grid.sw = g.stride[1];
    const int64_t hp = g.pad_begin[0] + g.input[0] + g.pad_end[0];
    const int64_t wp = g.pad_begin[1] + g.input[1] + g.pad_end[1];
    grid.hph = (hp + grid.sh - 1) / grid.sh;
    grid.wph = (wp + grid.sw - 1) / grid.sw;
    grid.quads = quads_;
    grid.plane = grid.hph * grid.wph;
    grid.offset.assign(static_cast<size_t>(grid.sh * grid.sw), -1);
    for (int64_t a = 0; a < kh_; ++a) {
      for (int64_t b = 0; b < kw_; ++b) {
        grid.offset[static_cast<size_t>(((a * g.dilation[0]) % grid.sh) * grid.sw +
                                        (b * g.dilation[1]) % grid.sw)] = 0;
      }
    }
    for (int64_t& o : grid.offset) {
      if (o < 0) continue;
      o = grid.words;
      grid.words += grid.quads * grid.plane;
    }
    grid.words += Slack(grid);
    return grid;
  }

  // Phase (a, b), channel quad `quad` of one image: word (i, j) holds the 4
  // channels' bytes of padded pixel (sh * i + a, sw * j + b), padding and
  // channels past the last as the zero point.
  void FillPlane(const uint8_t* image, int64_t h, int64_t w, const SpatialGeometry& g,
                 const PhaseGrid& grid, int64_t a, int64_t b, int64_t quad, uint32_t* dst) const {
    const int64_t top = g.pad_begin[0], left = g.pad_begin[1];
    // Columns j whose source column sw * j + b - left lies in [0, w).
    const auto [j_lo, j_hi] = SourceColumns(w, left, b, grid.sw, grid.wph);
    const __m128i flip = _mm_set1_epi8(static_cast<char>(flip_));
    const __m128i pad = _mm_set1_epi8(static_cast<char>(x_zero_));
    for (int64_t i = 0; i < grid.hph; ++i) {
      auto* row = reinterpret_cast<uint8_t*>(dst + i * grid.wph);
      const int64_t r = grid.sh * i + a - top;
      if (r < 0 || r >= h) {
        std::memset(row, x_zero_, static_cast<size_t>(grid.wph * 4));
        continue;
      }
      std::memset(row, x_zero_, static_cast<size_t>(j_lo * 4));
      std::memset(row + j_hi * 4, x_zero_, static_cast<size_t>((grid.wph - j_hi) * 4));
      const uint8_t* src[4];
      for (int64_t c = 0; c < 4; ++c) {
        const int64_t ch = quad * 4 + c;
        src[c] = ch < channels_ ? image + (ch * h + r) * w : nullptr;
      }
      int64_t j = j_lo;
      if (grid.sw <= 2) {
        // 16 words at a time; source column = sw * j + shift. Stride 2 reads
        // 32 bytes and keeps the even ones, so it stops one column earlier.
        const int64_t shift = b - left;
        const int64_t end = grid.sw == 1 ? j_hi : std::min(j_hi, (w - shift - 1) / 2);
        for (; j + 16 <= end; j += 16) {
          __m128i c[4];
          for (int k = 0; k < 4; ++k) {
            if (src[k] == nullptr) {  // past the last channel
              c[k] = pad;
              continue;
            }
            c[k] = grid.sw == 1 ? LoadBytes(src[k] + j + shift) : EvenBytes(src[k] + 2 * j + shift);
            c[k] = _mm_xor_si128(c[k], flip);
          }
          const __m128i lo01 = _mm_unpacklo_epi8(c[0], c[1]), hi01 = _mm_unpackhi_epi8(c[0], c[1]);
          const __m128i lo23 = _mm_unpacklo_epi8(c[2], c[3]), hi23 = _mm_unpackhi_epi8(c[2], c[3]);
          auto* out = reinterpret_cast<__m128i*>(row + j * 4);
          _mm_storeu_si128(out, _mm_unpacklo_epi16(lo01, lo23));
          _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(lo01, lo23));
          _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(hi01, hi23));
          _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(hi01, hi23));
        }
      }
      for (; j < j_hi; ++j) {
        const int64_t col = grid.sw * j + b - left;
        for (int64_t c = 0; c < 4; ++c) {
          row[j * 4 + c] = src[c] != nullptr ? static_cast<uint8_t>(src[c][col] ^ flip_) : x_zero_;
        }
      }
    }
  }

  // The AMX path for one call: x copied as [phase][Hph][Wph][Cp] bytes, then
  // units of 32 output channels x 32 phase-grid pixels; the serial loop
  //   for each image: for each unit: for each tap: for each chunk:
  //     acc[32][32] += A(pixels, chunk) . B(chunk, channels)
  void RunAmx(const KernelContext& ctx, const Tensor& x, const SpatialGeometry& g,
              Tensor& y) const {
    const auto& xd = x.shape().dims();
    const int64_t batch = xd[0], h = xd[2], w = xd[3];
    const int64_t out_h = g.output[0], out_w = g.output[1];
    const int64_t sh = g.stride[0], sw = g.stride[1];
    const int64_t hph = (g.pad_begin[0] + h + g.pad_end[0] + sh - 1) / sh;
    const int64_t wph = (g.pad_begin[1] + w + g.pad_end[1] + sw - 1) / sw;
    const int64_t cp = chunks_ * 64;
    // First pixel of each used phase (-1: unused).
    std::vector<int64_t> phase_start(static_cast<size_t>(sh * sw), -1);
    for (int64_t a = 0; a < kh_; ++a) {
      for (int64_t b = 0; b < kw_; ++b) {
        phase_start[static_cast<size_t>(((a * g.dilation[0]) % sh) * sw +
                                        (b * g.dilation[1]) % sw)] = 0;
      }
    }
    int64_t total = 0;
    std::vector<int64_t> used;
    for (size_t i = 0; i < phase_start.size(); ++i) {
      if (phase_start[i] < 0) continue;
      phase_start[i] = total;
      used.push_back(static_cast<int64_t>(i));
      total += hph * wph;
    }
    const int64_t slack = wph + 2 * kAmxPixels;  // read only for dropped pixels
    thread_local base::GrowOnlyBuffer scratch;
    auto* buffer = reinterpret_cast<uint8_t*>(
        scratch.Floats(static_cast<size_t>(((total + slack) * cp + 3) / 4)));
    std::memset(buffer + total * cp, 0, static_cast<size_t>(slack * cp));
    const int64_t taps = kh_ * kw_;
    std::vector<int64_t> tap_offset(static_cast<size_t>(taps));  // in pixels
    for (int64_t a = 0; a < kh_; ++a) {
      for (int64_t b = 0; b < kw_; ++b) {
        const int64_t dy = a * g.dilation[0], dx = b * g.dilation[1];
        tap_offset[static_cast<size_t>(a * kw_ + b)] =
            phase_start[static_cast<size_t>((dy % sh) * sw + dx % sw)] + (dy / sh) * wph + dx / sw;
      }
    }
    const int64_t pixels = out_h * wph;
    const quant::IntRange range = quant::RangeOf(y_dtype_);
    const auto* xp = static_cast<const uint8_t*>(x.raw_data());
    auto* yp = static_cast<uint8_t*>(y.raw_data());
    const int64_t rows = static_cast<int64_t>(used.size()) * hph;
    for (int64_t n = 0; n < batch; ++n) {
      const uint8_t* image = xp + n * channels_ * h * w;
      threading::ParallelFor(
          ctx.pool, rows,
          // Not MemoryBoundCost's 1 MiB threshold: the transposes make the
          // copy compute-bound; split from ~100 KB it was 10-25 % faster at
          // intra 2 (64->64 at 56^2: 115 -> 100 us; 3x3/2: 123 -> 92 us).
          kNsPerCopiedByte * static_cast<double>(wph * cp), [&](int64_t begin, int64_t end) {
            for (int64_t u = begin; u < end; ++u) {
              const int64_t phase = used[static_cast<size_t>(u / hph)], i = u % hph;
              FillPixelRow(image, h, w, g, sh, sw, wph, phase / sw, phase % sw, i, cp,
                           buffer + (phase_start[static_cast<size_t>(phase)] + i * wph) * cp);
            }
          });
      std::vector<int64_t> steps(tap_offset.size());
      for (size_t t = 0; t < steps.size(); ++t) steps[t] = tap_offset[t] * cp;
      RunAmxTiles(ctx, buffer, steps, cp, chunks_, 1024, pixels, wph, out_h, out_w, range,
                  yp + n * out_channels_ * out_h * out_w);
    }
  }

  // One image's AMX tiles: units of 32 output channels x 32 phase-grid
  // pixels; step t of a unit reads its A rows from
  // base + steps[t] + (q0 + p) * pixel_stride. The serial loop
  //   for each unit: for each step: for each chunk: acc[32][32] += A . B
  void RunAmxTiles(const KernelContext& ctx, const uint8_t* base, const std::vector<int64_t>& steps,
                   int64_t pixel_stride, int64_t chunks, int64_t b_tile_bytes, int64_t pixels,
                   int64_t wph, int64_t out_h, int64_t out_w, quant::IntRange range,
                   uint8_t* image_out) const {
    const int64_t num_steps = static_cast<int64_t>(steps.size());
    const int64_t pixel_tiles = (pixels + kAmxPixels - 1) / kAmxPixels;
    const int64_t blocks = (out_channels_ + kAmxRows - 1) / kAmxRows;
    const int64_t block_weights = num_steps * chunks * 2 * b_tile_bytes;
    const double unit_cost =
        kNsPerAmxMac * static_cast<double>(kAmxRows * kAmxPixels * num_steps * chunks * 64);
    threading::ParallelFor(
        ctx.pool, blocks * pixel_tiles, unit_cost, [&](int64_t begin, int64_t end) {
          std::vector<const uint8_t*> step_ptr(static_cast<size_t>(num_steps));
          alignas(64) uint8_t tile_out[kAmxRows * kAmxPixels];
          AmxTilesConfigure(amx_config_);
          for (int64_t u = begin; u < end; ++u) {
            const int64_t block = u / pixel_tiles;
            const int64_t q0 = (u % pixel_tiles) * kAmxPixels;
            const int64_t count = std::min(kAmxPixels, pixels - q0);
            for (int64_t t = 0; t < num_steps; ++t) {
              step_ptr[static_cast<size_t>(t)] =
                  base + steps[static_cast<size_t>(t)] + q0 * pixel_stride;
            }
            const AmxConvTile tile{step_ptr.data(),
                                   num_steps,
                                   chunks,
                                   pixel_stride,
                                   b_tile_bytes,
                                   amx_weights_.data() + block * block_weights,
                                   bias_.data() + block * kAmxRows,
                                   multiplier_.data() + block * kAmxRows,
                                   y_zero_,
                                   range.min,
                                   range.max};
            u8s8_conv_32x32__amx(tile, tile_out);
            const int64_t channels = std::min(kAmxRows, out_channels_ - block * kAmxRows);
            StoreKeptPixels__avx512(tile_out, kAmxPixels, channels, q0, count, wph, out_h, out_w,
                                    image_out + block * kAmxRows * out_h * out_w);
          }
          AmxTilesRelease();
        });
  }

  // Padded row i of phase (a, b) as pixels of cp bytes: the zero point
  // everywhere (padding, channels past the last), then the input's bytes.
  void FillPixelRow(const uint8_t* image, int64_t h, int64_t w, const SpatialGeometry& g,
                    int64_t sh, int64_t sw, int64_t wph, int64_t a, int64_t b, int64_t i,
                    int64_t cp, uint8_t* dst) const {
    std::memset(dst, x_zero_, static_cast<size_t>(wph * cp));
    const int64_t r = sh * i + a - g.pad_begin[0];
    if (r < 0 || r >= h) return;
    const int64_t left = g.pad_begin[1];
    const auto [j_lo, j_hi] = SourceColumns(w, left, b, sw, wph);
    const int64_t shift = b - left;  // source column = sw * j + shift
    const __m128i flip = _mm_set1_epi8(static_cast<char>(flip_));
    const int64_t vector_end = sw == 1 ? j_hi : sw == 2 ? std::min(j_hi, (w - shift - 1) / 2) : 0;
    int64_t c0 = 0;
    for (; c0 + 16 <= channels_; c0 += 16) {
      const uint8_t* src = image + (c0 * h + r) * w;  // channel c0's row r
      int64_t j = j_lo;
      for (; j + 16 <= vector_end; j += 16) {
        __m128i block[16];
        for (int k = 0; k < 16; ++k) {
          const uint8_t* row = src + k * h * w;
          block[k] = _mm_xor_si128(
              sw == 1 ? LoadBytes(row + j + shift) : EvenBytes(row + 2 * j + shift), flip);
        }
        bytes::Transpose16x16(block);
        for (int p = 0; p < 16; ++p) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (j + p) * cp + c0), block[p]);
        }
      }
      for (; j < j_hi; ++j) {
        for (int64_t k = 0; k < 16; ++k) {
          dst[j * cp + c0 + k] = static_cast<uint8_t>(src[k * h * w + sw * j + shift] ^ flip_);
        }
      }
    }
    for (; c0 < channels_; ++c0) {
      const uint8_t* src = image + (c0 * h + r) * w;
      for (int64_t j = j_lo; j < j_hi; ++j) {
        dst[j * cp + c0] = static_cast<uint8_t>(src[sw * j + shift] ^ flip_);
      }
    }
  }

  Attributes attrs_;
  DType x_dtype_ = DType::kUInt8, y_dtype_ = DType::kUInt8;
  bool amx_ = false;
  bool few_channels_ = false;                 // AMX on the VNNI layout (<= 4 channels)
  int64_t column_phases_ = 0, row_taps_ = 0;  // its steps per kernel row, taps per step
  AmxTileConfig amx_config_{};
  int64_t chunks_ = 0;               // AMX: 64-channel chunks
  std::vector<int8_t> amx_weights_;  // [blocks of 32][taps][chunks][2][16][64]
  int64_t out_channels_ = 0, channels_ = 0, kh_ = 0, kw_ = 0, quads_ = 0;
  std::vector<int8_t> weights_;     // [blocks][quads][taps][8][4]
  std::vector<int32_t> bias_;       // [blocks * 8], x zero point's share taken out
  std::vector<double> multiplier_;  // [blocks * 8]
  uint8_t flip_ = 0, x_zero_ = 0;   // x_zero_: as stored (flipped for int8 x)
  int32_t y_zero_ = 0;
};

bool IsScalar(const Tensor* t) { return t != nullptr && t->num_elements() == 1; }

}  // namespace

bool VnniConvSupported() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

namespace {

// The prepared kernel exists at the AVX-512 level only, on CPUs with VNNI;
// below it (or without VNNI) QLinearConv runs its general kernel.
struct PreparedConvVariant {
  Isa isa;
  bool vnni;
};
constexpr std::array<PreparedConvVariant, 2> kPreparedConvVariants = {
    {{Isa::kPortable, false}, {Isa::kAvx512f, true}}};

}  // namespace

bool UseVnniConv(Isa isa) {
  return SelectIsaVariant(
             "QLinearConv", kPreparedConvVariants, isa,
             [](const PreparedConvVariant& v) { return !v.vnni || VnniConvSupported(); })
      .vnni;
}

IsaMask QLinearConvPreparedIsaLevels() { return IsaVariantLevels(kPreparedConvVariants); }

std::unique_ptr<PreparedKernel> PrepareQLinearConv(const PrepareArgs& args) {
  return PrepareQLinearConvWithTiles(args, QuantConvTiles::kAuto);
}

std::unique_ptr<PreparedKernel> PrepareQLinearConvWithTiles(const PrepareArgs& args,
                                                            QuantConvTiles tiles) {
  if (!UseVnniConv(args.isa)) return nullptr;
  if (tiles == QuantConvTiles::kAmx && !AmxConvSupported()) return nullptr;
  if (args.num_inputs() < 8 || args.num_inputs() > 9) return nullptr;
  const Tensor* x_scale = args.constant(1);
  const Tensor* x_zp = args.constant(2);
  const Tensor* w = args.constant(3);
  const Tensor* w_scale = args.constant(4);
  const Tensor* w_zp = args.constant(5);
  const Tensor* y_scale = args.constant(6);
  const Tensor* y_zp = args.constant(7);
  const Tensor* bias = args.constant(8);
  // Every parameter a constant (an absent w/y zero point is 0), x's dtype
  // known from its zero point.
  if (!IsScalar(x_scale) || !IsScalar(x_zp) || w == nullptr || w_scale == nullptr ||
      !IsScalar(y_scale) || (args.is_present(5) && w_zp == nullptr) ||
      (args.is_present(7) && !IsScalar(y_zp)) || (args.is_present(8) && bias == nullptr)) {
    return nullptr;
  }
  const auto is_int8 = [](const Tensor* t) {
    return t->dtype() == DType::kInt8 || t->dtype() == DType::kUInt8;
  };
  if (x_scale->dtype() != DType::kFloat32 || y_scale->dtype() != DType::kFloat32 ||
      w_scale->dtype() != DType::kFloat32 || !is_int8(x_zp) || !is_int8(w) ||
      w->shape().rank() != 4 || (y_zp != nullptr && !is_int8(y_zp)) ||
      (w_zp != nullptr && w_zp->dtype() != w->dtype())) {
    return nullptr;
  }
  const int64_t out_channels = w->shape().dim(0);
  const auto per_channel = [&](const Tensor* t) {
    return t->num_elements() == 1 || (t->shape().rank() == 1 && t->num_elements() == out_channels);
  };
  if (!per_channel(w_scale) || (w_zp != nullptr && !per_channel(w_zp)) ||
      (bias != nullptr && (bias->dtype() != DType::kInt32 || bias->shape().rank() != 1 ||
                           bias->num_elements() != out_channels))) {
    return nullptr;
  }
  if (args.attrs.get_int("group", 1) != 1 || w->num_elements() == 0) return nullptr;
  const DType y_dtype = y_zp != nullptr ? y_zp->dtype() : x_zp->dtype();
  const int64_t channels = w->shape().dim(1), width = w->shape().dim(3);
  const int64_t stride_w = args.attrs.get_ints("strides", {1, 1}).back();
  const int64_t dilation_w = args.attrs.get_ints("dilations", {1, 1}).back();
  const int64_t row_taps = stride_w >= 1 ? (width + stride_w - 1) / stride_w : 0;
  const bool amx_shape =
      channels >= kAmxMinChannels ||
      (channels <= 4 && dilation_w == 1 && row_taps >= kAmxMinRowTaps && row_taps <= 16);
  const bool amx = tiles == QuantConvTiles::kAmx ||
                   (tiles == QuantConvTiles::kAuto && amx_shape && AmxConvSupported());
  auto prepared = std::make_unique<PreparedVnniConv>(args.attrs, x_zp->dtype(), y_dtype, amx);
  if (!prepared->Pack(*w, w_zp != nullptr ? quant::ReadInts(*w_zp) : std::vector<int32_t>{0},
                      bias != nullptr ? quant::ReadInts(*bias) : std::vector<int32_t>{},
                      quant::ReadFloats(*x_scale)[0], quant::ReadFloats(*w_scale),
                      quant::ReadFloats(*y_scale)[0], quant::ReadInts(*x_zp)[0],
                      y_zp != nullptr ? quant::ReadInts(*y_zp)[0] : 0)) {
    return nullptr;
  }
  return prepared;
}

}  // namespace loom::kernels
