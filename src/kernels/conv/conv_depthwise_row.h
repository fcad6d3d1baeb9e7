// The inner loop of the direct depthwise convolution, one implementation
// per ISA (conv_depthwise_row_portable.cc, conv/f32_dwconv_row__avx2_fma.cc):
// one output row is
//
//   out[x] = bias + sum_t w[t] * taps[t][x]   for x < width
//
// where taps[t] points at a contiguous, already padded input run for tap t
// (conv_depthwise.cc builds them). Kernels read taps[t][0 ..
// round_up(width, kDepthwiseBlock)): callers leave kDepthwiseBlock floats of
// readable slack after every run, so a partial last block runs the same code
// and only its store is trimmed. The sum is taken in tap order, whatever the
// ISA's vector width.
#pragma once

#include <cstdint>

namespace loom::kernels {

inline constexpr int64_t kDepthwiseBlock = 32;

using DepthwiseRowFn = void (*)(const float* const* taps, const float* weights, int num_taps,
                                float bias, float* out, int64_t width);

void f32_dwconv_row__portable(const float* const* taps, const float* weights, int num_taps,
                              float bias, float* out, int64_t width);
void f32_dwconv_row__avx2_fma(const float* const* taps, const float* weights, int num_taps,
                              float bias, float* out, int64_t width);

}  // namespace loom::kernels
