// The ISA-specific inner loops of the NCHWc kernels (nchwc.h), one table per
// ISA (NchwcMicroKernelsFor). Each variant is the same template
// (nchwc_micro_kernel_impl.h) instantiated with that ISA's vector type.
//
// Coordinates: for the direct convolution the input is already padded
// (nchwc_conv.cc), so output pixel (oh, ow) reads input pixel
// (oh * stride_h + kh * dilation_h, ow * stride_w + kw * dilation_w) with no
// bounds test; the depthwise kernel clips its windows instead.
#pragma once

#include <cstdint>

#include "kernels/isa_variant.h"

namespace loom::kernels {

// The activation applied in registers before the store:
//   t = kClamp:   clamp(x * scale + shift, low, high), a NaN kept
//       kSigmoid: 1 / (1 + exp(-x))
//   y = times_input ? x * t : t
// Relu: kClamp with scale 1, shift 0, low 0, high +inf; Clip: low, high;
// HardSigmoid: alpha, beta, 0, 1; HardSwish: 1/6, 1/2, 0, 1 times the
// input; Sigmoid; SiLU: kSigmoid times the input. Other activations run
// after the kernel (nchwc_conv.cc).
struct NchwcActivation {
  enum class Kind : uint8_t { kNone, kClamp, kSigmoid };
  Kind kind = Kind::kNone;
  bool times_input = false;
  float scale = 1.0f, shift = 0.0f, low = 0.0f, high = 0.0f;
};

struct NchwcConvParams {
  const float* input;          // channel block 0 of this image and group, row 0, column 0
  int64_t in_block_stride;     // floats between input channel blocks
  int64_t in_row_stride;       // floats between input rows
  int64_t in_col_stride;       // floats between input columns (B blocked, 1 plain)
  int64_t in_channel_stride;   // floats between channels of a block (1 blocked)
  int64_t in_blocks;           // input channel blocks summed over
  int64_t channels_per_block;  // B blocked; C (all channels in one block) plain
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  const float* weights;      // this tile group's packed weights: [icb][kh][kw][ic][blocks][B]
  const float* bias;         // B values per output block, from the group's first
  float* output;             // the tile group's first output block in this image
  int64_t out_block_stride;  // floats between output blocks (OH * OW * B)
  int64_t out_width;         // OW: output pixel p is row p / OW, column p % OW
  const float* sum;          // null, or a tensor laid out as `output`
  NchwcActivation activation;
  // Input channel blocks may come in slices (nchwc_conv.cc): `accumulate`
  // starts from the output's partial sums instead of the bias, `finish`
  // (the last slice) adds `sum` and applies the activation.
  bool accumulate;
  bool finish;
  // Weights the next slice or tile group will read (null: none): the
  // segment's tiles prefetch them into L2 as they compute, spread evenly,
  // so that first pass over them does not wait on memory.
  const float* prefetch;
  int64_t prefetch_bytes;
  // A plain input only: the input offset of each multiply-add step, in the
  // packed weights' order ([kh][kw][ic]), so the tile walks one flat loop.
  const int64_t* step_offsets;
};

// Depthwise reads the unpadded input and clips each window to it.
struct NchwcDepthwiseParams {
  const float* input;  // blocked input of one image, block 0
  int64_t in_block_stride, in_row_stride;
  int64_t in_rows, in_cols, pad_top, pad_left;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  const float* weights;  // [cb][kh][kw][B]
  const float* bias;     // B per block
  float* output;
  int64_t out_block_stride, out_row_stride;
  NchwcActivation activation;
};

// One output row of a window pool on one blocked plane (unpadded input;
// windows clipped). Average divides by the window's in-input count, or by
// its count inside the padded extent when count_include_pad.
struct NchwcPoolParams {
  const float* input;  // the plane
  int64_t in_rows, in_cols;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  int64_t out_cols;
  bool max;                // else average
  bool count_include_pad;  // average only
};

struct NchwcMicroKernels {
  Isa isa;
  int block;  // floats per vector
  // One tile group of `blocks` (<= tile_blocks) output blocks, output
  // pixels [pixel_begin, pixel_end) in row-major order: register tiles of
  // `blocks` blocks x up to tile_width consecutive pixels (across rows).
  void (*conv_segment)(const NchwcConvParams& p, int64_t blocks, int64_t pixel_begin,
                       int64_t pixel_end);
  void (*depthwise_segment)(const NchwcDepthwiseParams& p, int64_t cb, int64_t oh, int64_t ow_begin,
                            int64_t ow_end);
  // y[i] = act(x[i] * scale + shift) for `pixels` vectors of one block
  // (scale, shift: one vector each; null = 1 / 0); act is relu or none.
  void (*affine_plane)(const float* x, const float* scale, const float* shift, bool relu,
                       int64_t pixels, float* y);
  // Output row oh of a window pool (NchwcPoolParams) into `out`.
  void (*pool_row)(const NchwcPoolParams& p, int64_t oh, float* out);
  // One vector: the max (else the mean) of `pixels` vectors of one block.
  void (*global_pool)(bool max, const float* in, int64_t pixels, float* out);
  // One block of a layout reorder: `lanes` (<= block) channel planes of
  // `pixels` floats each, `plane` floats apart, to or from `pixels` vectors
  // of one block (padding lanes written as zeros by reorder_in).
  void (*reorder_in)(const float* planes, int64_t plane, int64_t lanes, int64_t pixels,
                     float* blocked);
  void (*reorder_out)(const float* blocked, int64_t plane, int64_t lanes, int64_t pixels,
                      float* planes);
  // Winograd F(4x4, 3x3) on one channel block (nchwc_conv.cc, RunWinograd).
  // winograd_input: the 6x6 input patch at `in` (rows `row_stride` floats
  // apart, pixels one vector apart) to its 36 transformed vectors
  // V = B^T d B, vector 6 i + j at out + (6 i + j) * out_stride.
  void (*winograd_input)(const float* in, int64_t row_stride, float* out, int64_t out_stride);
  // winograd_output: the 36 products at in + k * in_stride to the 4x4
  // output tile Y = A^T M A, of which the first `rows` x `cols` pixels are
  // written at out (rows `row_stride` floats apart): bias added, then `sum`
  // (null or laid out as out), then the activation.
  void (*winograd_output)(const float* in, int64_t in_stride, const float* bias, const float* sum,
                          float* out, int64_t row_stride, int rows, int cols,
                          const NchwcActivation& activation);
  int tile_blocks;  // output blocks per register tile
  // Output pixels per register tile of 1, 2, 3, 4 output blocks (entries
  // past tile_blocks repeat the last).
  int tile_width[4];
};

const NchwcMicroKernels& NchwcMicroKernelsPortable();
const NchwcMicroKernels& NchwcMicroKernelsAvx2();
const NchwcMicroKernels& NchwcMicroKernelsAvx512();

// The table for `isa`; throws InvalidArgumentError if this CPU does not run
// `isa`.
const NchwcMicroKernels& NchwcMicroKernelsFor(Isa isa);
// The ISA levels with tables of their own (isa_variant.h).
IsaMask NchwcIsaLevels();

// The table for tensors blocked by `block` under `isa`: isa's own when its
// block matches, the portable one for blocks of 8, else null (a 16-block
// tensor without AVX-512: the caller's plain loops).
const NchwcMicroKernels* NchwcMicroKernelsForBlock(Isa isa, int64_t block);

}  // namespace loom::kernels
