// Signal operators (ONNX 17+): DFT, STFT, the window functions
// (HannWindow, HammingWindow, BlackmanWindow) and MelWeightMatrix.
//
// DFT (17, 20): input [..., n, ..., 1 or 2] (real, or complex as (re, im)
// pairs in the last axis), the transform along `axis` (DFT-20: input 2,
// default -2; the version rules move DFT-17's attribute there), of length
// dft_length (input 1; default the axis' size; the signal is truncated or
// zero-padded to it), forward or inverse (scaled by 1/n), onesided keeping
// the first n/2 + 1 outputs. Output [..., n or n/2 + 1, ..., 2]. Each
// signal is transformed by an FFT plan (fft_plan.h: radix-2 for powers of
// two, Bluestein's chirp z-transform through a power-of-two FFT for other
// lengths) in float64; the signals run as a ParallelFor, so results are
// bit-identical for any thread count.
//
// STFT (17): signal [batch, length, 1 or 2], frame_step, window [L]? and
// frame_length? (one of them gives L), onesided (default 1): frame f is
// signal[f * step, f * step + L) times the window, transformed as DFT
// does. Output [batch, frames, L or L/2 + 1, 2], frames = 1 + (length - L)
// / step. Parallel over (batch, frame).
//
// Windows (17): size (int32/int64 scalar) -> [size] of output_datatype
// (default float32); periodic (default 1) uses N = size, else size - 1:
//   Hann      sin^2(pi n / N)
//   Hamming   25/46 - 21/46 cos(2 pi n / N)
//   Blackman  0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
//
// MelWeightMatrix (17): [dft_length / 2 + 1, num_mel_bins] triangular
// filters, computed as ONNX's reference does.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> DftKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> StftKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
std::vector<Tensor> HannWindowKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> HammingWindowKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);
std::vector<Tensor> BlackmanWindowKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs);
std::vector<Tensor> MelWeightMatrixKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);

}  // namespace loom::kernels
