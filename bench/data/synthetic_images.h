// Synthetic "encoded images" and the decode + normalize map function of the
// data-pipeline benchmark.
//
// The codec is a small JPEG look-alike, so that decoding is real,
// deterministic byte and arithmetic work rather than a sleep:
//   encode: RGB → YCbCr, 8x8 blocks, DCT, quantization (JPEG's quality-75
//           tables), zigzag order, DC coded as the delta to the previous
//           block, AC coefficients as (zero run, value) pairs.
//   decode: the reverse, with the reference (direct, 4,096 multiply-adds a
//           block) inverse DCT.
// Preprocessing after the decode: a random 64x64 crop seeded by the
// element's index, conversion to float, `augment_passes` 3x3 Gaussian blurs
// (a stand-in for photometric augmentations; the knob that sets the map's
// cost), per-channel mean/std normalization and HWC → CHW.
//
// Everything here is a pure function of its arguments: the same element
// decodes to the same bits on any thread, in any order.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/tensor.h"

namespace loom::bench {

inline constexpr int kImageSide = 72;  // what an encoded image decodes to
inline constexpr int kCropSide = 64;   // what the model takes
inline constexpr int kImageChannels = 3;

// Image `index` of the synthetic set `seed`: smooth gradients, a few flat
// rectangles and noise, as HWC uint8 [72, 72, 3].
Tensor MakeSyntheticImage(int64_t index, uint64_t seed);

// The encoded bytes of an HWC uint8 [72, 72, 3] image.
std::vector<uint8_t> EncodeImage(const Tensor& image);

// Images 0 .. count-1 of set `seed`, encoded, as a uint8 [count, L] tensor:
// each row is one image's bytes, zero-padded to the longest (the header
// gives the real length).
Tensor MakeEncodedImages(int64_t count, uint64_t seed);

// Decodes one image (`size` bytes; trailing padding is ignored) to HWC uint8
// [72, 72, 3]. Throws loom::InvalidArgumentError for a corrupt buffer.
Tensor DecodeImage(const uint8_t* bytes, int64_t size);

struct PreprocessOptions {
  uint64_t crop_seed = 0;
  int augment_passes = 0;  // 3x3 Gaussian blurs over the float crop
};

// The benchmark's map function body: decodes the encoded row `encoded`
// (uint8 [L]), crops at an offset drawn from (crop_seed, index), blurs,
// normalizes and returns float32 [3, 64, 64].
Tensor DecodeAndNormalize(const Tensor& encoded, int64_t index, const PreprocessOptions& options);

// Peak signal-to-noise ratio between two uint8 tensors of one shape, in dB
// (the codec round trip's check).
double Psnr(const Tensor& a, const Tensor& b);

}  // namespace loom::bench
