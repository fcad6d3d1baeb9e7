#include "synthetic_images.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "loom/errors.h"

namespace loom::bench {
namespace {

constexpr int kBlock = 8;
constexpr int kBlocksPerSide = kImageSide / kBlock;  // 9
constexpr int kHeaderBytes = 10;  // "LJ", width u16, height u16, payload bytes u32
constexpr uint8_t kEndOfBlock = 0xFF;
constexpr double kPi = 3.14159265358979323846;

// Natural (row-major) index of the k-th coefficient in zigzag order.
constexpr std::array<int, 64> kZigzag = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

// JPEG's example tables (ITU T.81 Annex K), row-major.
constexpr std::array<int, 64> kLumaTable = {
    16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
    14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
    18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
constexpr std::array<int, 64> kChromaTable = {
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99,
    99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

// ImageNet's channel statistics, on the 0..255 scale.
constexpr std::array<float, 3> kMean = {0.485f * 255, 0.456f * 255, 0.406f * 255};
constexpr std::array<float, 3> kStd = {0.229f * 255, 0.224f * 255, 0.225f * 255};

// Quality 75 in libjpeg's scaling: half the example tables, at least 1.
int Quantizer(int channel, int natural_index) {
  const int base = channel == 0 ? kLumaTable[natural_index] : kChromaTable[natural_index];
  return std::max(1, (base * 50 + 50) / 100);
}

// The orthonormal DCT-II basis, C[u][x]: frequency u at sample x.
const std::array<std::array<double, kBlock>, kBlock>& Cosines() {
  static const auto table = [] {
    std::array<std::array<double, kBlock>, kBlock> c{};
    for (int u = 0; u < kBlock; ++u) {
      const double scale = u == 0 ? std::sqrt(1.0 / kBlock) : std::sqrt(2.0 / kBlock);
      for (int x = 0; x < kBlock; ++x) c[u][x] = scale * std::cos((2 * x + 1) * u * kPi / 16);
    }
    return c;
  }();
  return table;
}

// The 2-D inverse DCT as one 64x64 matrix: pixel (y, x) = sum over (v, u) of
// basis[y*8+x][v*8+u] * coefficient[v*8+u].
const std::array<float, 64 * 64>& InverseBasis() {
  static const auto table = [] {
    const auto& c = Cosines();
    std::array<float, 64 * 64> b{};
    for (int y = 0; y < kBlock; ++y) {
      for (int x = 0; x < kBlock; ++x) {
        for (int v = 0; v < kBlock; ++v) {
          for (int u = 0; u < kBlock; ++u) {
            b[(y * kBlock + x) * 64 + v * kBlock + u] = static_cast<float>(c[u][x] * c[v][y]);
          }
        }
      }
    }
    return b;
  }();
  return table;
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint8_t ClampToByte(double v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0l, 255l)); }

void PutU16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v & 0xFF));
  out.push_back(static_cast<uint8_t>((v >> 8) & 0xFF));
}

void PutI16(std::vector<uint8_t>& out, int v) {
  if (v < INT16_MIN || v > INT16_MAX) throw RuntimeError("EncodeImage: coefficient out of range");
  PutU16(out, static_cast<uint16_t>(static_cast<int16_t>(v)));
}

// Reads the encoded stream with bounds checks; any overrun is a corrupt
// buffer.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, int64_t size) : data_(data), size_(size) {}
  uint8_t U8() {
    Need(1);
    return data_[pos_++];
  }
  uint32_t U16() {
    Need(2);
    const uint32_t v = data_[pos_] | (uint32_t{data_[pos_ + 1]} << 8);
    pos_ += 2;
    return v;
  }
  int I16() { return static_cast<int16_t>(static_cast<uint16_t>(U16())); }
  uint32_t U32() {
    const uint32_t low = U16();
    return low | (U16() << 16);
  }

 private:
  void Need(int64_t n) const {
    if (pos_ + n > size_) throw InvalidArgumentError("DecodeImage: corrupt image (truncated)");
  }
  const uint8_t* data_;
  int64_t size_;
  int64_t pos_ = 0;
};

// Decodes the quantized coefficients of one block and returns its pixels
// (level-shifted back to 0..255, unclamped) through the reference inverse
// DCT: 64 dot products of length 64, no shortcut for zero coefficients.
void DecodeBlock(ByteReader& in, int channel, int& previous_dc, float* pixels) {
  std::array<float, 64> coefficients{};
  previous_dc += in.I16();
  coefficients[0] = static_cast<float>(previous_dc * Quantizer(channel, 0));
  for (int k = 1;; ++k) {
    const uint8_t run = in.U8();
    if (run == kEndOfBlock) break;
    k += run;
    if (k > 63) throw InvalidArgumentError("DecodeImage: corrupt image (run past the block)");
    const int natural = kZigzag[k];
    coefficients[natural] = static_cast<float>(in.I16() * Quantizer(channel, natural));
  }
  const auto& basis = InverseBasis();
  for (int p = 0; p < 64; ++p) {
    float sum = 0;
    for (int q = 0; q < 64; ++q) sum += basis[p * 64 + q] * coefficients[q];
    pixels[p] = sum + 128.0f;
  }
}

// One 3x3 Gaussian blur ([1 2 1] x [1 2 1] / 16) of a side x side plane,
// edges clamped.
void Blur3x3(const float* in, float* out, int side) {
  for (int y = 0; y < side; ++y) {
    const float* up = in + std::max(y - 1, 0) * side;
    const float* mid = in + y * side;
    const float* down = in + std::min(y + 1, side - 1) * side;
    for (int x = 0; x < side; ++x) {
      const int l = std::max(x - 1, 0);
      const int r = std::min(x + 1, side - 1);
      const float top = up[l] + 2 * up[x] + up[r];
      const float centre = mid[l] + 2 * mid[x] + mid[r];
      const float bottom = down[l] + 2 * down[x] + down[r];
      out[y * side + x] = (top + 2 * centre + bottom) * (1.0f / 16);
    }
  }
}

}  // namespace

Tensor MakeSyntheticImage(int64_t index, uint64_t seed) {
  std::mt19937_64 rng(SplitMix64(seed) ^ SplitMix64(static_cast<uint64_t>(index)));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto between = [&](double lo, double hi) { return lo + (hi - lo) * unit(rng); };

  std::vector<double> pixels(kImageSide * kImageSide * kImageChannels);
  for (int c = 0; c < kImageChannels; ++c) {
    const double base = between(40, 200);
    struct Wave {
      double amplitude, fx, fy, phase;
    };
    Wave waves[2];
    for (Wave& w : waves)
      w = {between(10, 50), between(0.02, 0.25), between(0.02, 0.25), between(0, 2 * kPi)};
    for (int y = 0; y < kImageSide; ++y) {
      for (int x = 0; x < kImageSide; ++x) {
        double v = base;
        for (const Wave& w : waves) v += w.amplitude * std::sin(w.fx * x + w.fy * y + w.phase);
        pixels[(y * kImageSide + x) * kImageChannels + c] = v;
      }
    }
  }
  for (int r = 0; r < 3; ++r) {
    const int x0 = static_cast<int>(between(0, kImageSide - 8));
    const int y0 = static_cast<int>(between(0, kImageSide - 8));
    const int w = static_cast<int>(between(6, 30));
    const int h = static_cast<int>(between(6, 30));
    double colour[kImageChannels];
    for (double& v : colour) v = between(0, 255);
    for (int y = y0; y < std::min(y0 + h, kImageSide); ++y) {
      for (int x = x0; x < std::min(x0 + w, kImageSide); ++x) {
        for (int c = 0; c < kImageChannels; ++c) {
          pixels[(y * kImageSide + x) * kImageChannels + c] = colour[c];
        }
      }
    }
  }
  Tensor image = Tensor::uninitialized(DType::kUInt8, {kImageSide, kImageSide, kImageChannels});
  uint8_t* out = image.data<uint8_t>();
  for (size_t i = 0; i < pixels.size(); ++i) out[i] = ClampToByte(pixels[i] + between(-6, 6));
  return image;
}

std::vector<uint8_t> EncodeImage(const Tensor& image) {
  if (image.dtype() != DType::kUInt8 ||
      !(image.shape() == Shape({kImageSide, kImageSide, kImageChannels}))) {
    throw InvalidArgumentError("EncodeImage: needs uint8 [72, 72, 3], got " +
                               std::string(dtype_name(image.dtype())) + image.shape().to_string());
  }
  const uint8_t* rgb = image.data<uint8_t>();
  // JFIF's RGB → YCbCr, level-shifted by -128 for the DCT.
  std::vector<double> planes(kImageChannels * kImageSide * kImageSide);
  for (int i = 0; i < kImageSide * kImageSide; ++i) {
    const double r = rgb[i * 3], g = rgb[i * 3 + 1], b = rgb[i * 3 + 2];
    planes[i] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
    planes[kImageSide * kImageSide + i] = -0.168736 * r - 0.331264 * g + 0.5 * b;
    planes[2 * kImageSide * kImageSide + i] = 0.5 * r - 0.418688 * g - 0.081312 * b;
  }
  const auto& cos = Cosines();
  std::vector<uint8_t> payload;
  for (int c = 0; c < kImageChannels; ++c) {
    const double* plane = planes.data() + c * kImageSide * kImageSide;
    int previous_dc = 0;
    for (int by = 0; by < kBlocksPerSide; ++by) {
      for (int bx = 0; bx < kBlocksPerSide; ++bx) {
        int quantized[64];
        for (int v = 0; v < kBlock; ++v) {
          for (int u = 0; u < kBlock; ++u) {
            double sum = 0;
            for (int y = 0; y < kBlock; ++y) {
              for (int x = 0; x < kBlock; ++x) {
                sum +=
                    cos[u][x] * cos[v][y] * plane[(by * kBlock + y) * kImageSide + bx * kBlock + x];
              }
            }
            const int natural = v * kBlock + u;
            quantized[natural] = static_cast<int>(std::lround(sum / Quantizer(c, natural)));
          }
        }
        PutI16(payload, quantized[0] - previous_dc);
        previous_dc = quantized[0];
        int run = 0;
        for (int k = 1; k < 64; ++k) {
          const int q = quantized[kZigzag[k]];
          if (q == 0) {
            ++run;
            continue;
          }
          payload.push_back(static_cast<uint8_t>(run));
          PutI16(payload, q);
          run = 0;
        }
        payload.push_back(kEndOfBlock);
      }
    }
  }
  std::vector<uint8_t> out = {'L', 'J'};
  PutU16(out, kImageSide);
  PutU16(out, kImageSide);
  PutU16(out, static_cast<uint32_t>(payload.size()) & 0xFFFF);
  PutU16(out, static_cast<uint32_t>(payload.size()) >> 16);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Tensor MakeEncodedImages(int64_t count, uint64_t seed) {
  std::vector<std::vector<uint8_t>> encoded;
  size_t longest = 0;
  for (int64_t i = 0; i < count; ++i) {
    encoded.push_back(EncodeImage(MakeSyntheticImage(i, seed)));
    longest = std::max(longest, encoded.back().size());
  }
  Tensor rows(DType::kUInt8, {count, static_cast<int64_t>(longest)});  // zero-filled: padding
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(rows.data<uint8_t>() + i * static_cast<int64_t>(longest), encoded[i].data(),
                encoded[i].size());
  }
  return rows;
}

Tensor DecodeImage(const uint8_t* bytes, int64_t size) {
  ByteReader header(bytes, size);
  if (header.U8() != 'L' || header.U8() != 'J') {
    throw InvalidArgumentError("DecodeImage: corrupt image (bad magic)");
  }
  const uint32_t width = header.U16();
  const uint32_t height = header.U16();
  const uint32_t payload = header.U32();
  if (width != kImageSide || height != kImageSide) {
    throw InvalidArgumentError("DecodeImage: expected a 72x72 image, got " + std::to_string(width) +
                               "x" + std::to_string(height));
  }
  if (payload > size - kHeaderBytes) {
    throw InvalidArgumentError("DecodeImage: corrupt image (payload longer than the buffer)");
  }
  ByteReader in(bytes + kHeaderBytes, payload);
  std::vector<float> planes(kImageChannels * kImageSide * kImageSide);
  float pixels[64];
  for (int c = 0; c < kImageChannels; ++c) {
    float* plane = planes.data() + c * kImageSide * kImageSide;
    int previous_dc = 0;
    for (int by = 0; by < kBlocksPerSide; ++by) {
      for (int bx = 0; bx < kBlocksPerSide; ++bx) {
        DecodeBlock(in, c, previous_dc, pixels);
        for (int y = 0; y < kBlock; ++y) {
          std::memcpy(plane + (by * kBlock + y) * kImageSide + bx * kBlock, pixels + y * kBlock,
                      kBlock * sizeof(float));
        }
      }
    }
  }
  // YCbCr → RGB (JFIF), interleaved HWC.
  Tensor image = Tensor::uninitialized(DType::kUInt8, {kImageSide, kImageSide, kImageChannels});
  uint8_t* rgb = image.data<uint8_t>();
  const float* luma = planes.data();
  const float* cb = luma + kImageSide * kImageSide;
  const float* cr = cb + kImageSide * kImageSide;
  for (int i = 0; i < kImageSide * kImageSide; ++i) {
    const double y = luma[i], u = cb[i] - 128.0, v = cr[i] - 128.0;
    rgb[i * 3] = ClampToByte(y + 1.402 * v);
    rgb[i * 3 + 1] = ClampToByte(y - 0.344136 * u - 0.714136 * v);
    rgb[i * 3 + 2] = ClampToByte(y + 1.772 * u);
  }
  return image;
}

Tensor DecodeAndNormalize(const Tensor& encoded, int64_t index, const PreprocessOptions& options) {
  const Tensor image = DecodeImage(encoded.data<uint8_t>(), encoded.num_elements());
  const uint8_t* hwc = image.data<uint8_t>();
  const uint64_t draw = SplitMix64(options.crop_seed ^ SplitMix64(static_cast<uint64_t>(index)));
  constexpr int kOffsets = kImageSide - kCropSide + 1;
  const int x0 = static_cast<int>(draw % kOffsets);
  const int y0 = static_cast<int>((draw >> 32) % kOffsets);

  constexpr int kPlane = kCropSide * kCropSide;
  Tensor out = Tensor::uninitialized(DType::kFloat32, {kImageChannels, kCropSide, kCropSide});
  float* chw = out.data<float>();
  for (int c = 0; c < kImageChannels; ++c) {
    for (int y = 0; y < kCropSide; ++y) {
      const uint8_t* row = hwc + ((y0 + y) * kImageSide + x0) * kImageChannels + c;
      for (int x = 0; x < kCropSide; ++x) chw[c * kPlane + y * kCropSide + x] = row[x * 3];
    }
  }
  std::vector<float> scratch(kPlane);
  for (int c = 0; c < kImageChannels; ++c) {
    float* plane = chw + c * kPlane;
    for (int pass = 0; pass < options.augment_passes; ++pass) {
      Blur3x3(plane, scratch.data(), kCropSide);
      std::memcpy(plane, scratch.data(), kPlane * sizeof(float));
    }
    const float scale = 1.0f / kStd[c];
    for (int i = 0; i < kPlane; ++i) plane[i] = (plane[i] - kMean[c]) * scale;
  }
  return out;
}

double Psnr(const Tensor& a, const Tensor& b) {
  if (!(a.shape() == b.shape())) throw InvalidArgumentError("Psnr: shapes differ");
  const uint8_t* pa = a.data<uint8_t>();
  const uint8_t* pb = b.data<uint8_t>();
  double squared = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const double d = static_cast<double>(pa[i]) - pb[i];
    squared += d * d;
  }
  const double mse = squared / static_cast<double>(a.num_elements());
  return mse == 0 ? INFINITY : 10 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace loom::bench
