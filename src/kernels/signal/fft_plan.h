// A plan for discrete Fourier transforms of one length n, in float64:
//   out[k] = sum_j in[j] * exp(-+ 2 pi i j k / n)   (- forward, + inverse)
// without the inverse's 1/n. Powers of two run an iterative radix-2 FFT;
// other lengths Bluestein's chirp z-transform, a convolution done with
// radix-2 FFTs of a power of two m >= 2n - 1. O(n log n) either way.
//
// Thread safety: a plan is immutable after construction; Run may be called
// concurrently with distinct buffers.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace loom::kernels::signal {

using Complex = std::complex<double>;

class FftPlan {
 public:
  // n >= 1. Allocates O(n) twiddles (O(m) for Bluestein).
  FftPlan(int64_t n, bool inverse);

  int64_t size() const { return n_; }
  // Transforms in[0, n) into out[0, n); `scratch` is resized as needed.
  void Run(const Complex* in, Complex* out, std::vector<Complex>& scratch) const;

 private:
  // In-place radix-2 FFT of data[0, m) with this sign; m a power of two
  // whose twiddles `twiddles` holds (m / 2 of them).
  static void Radix2(Complex* data, int64_t m, const std::vector<Complex>& twiddles);

  int64_t n_;
  bool inverse_;
  bool power_of_two_;
  int64_t m_;                        // the radix-2 length (n, or Bluestein's m)
  std::vector<Complex> twiddles_;    // exp(-+2 pi i k / m), k < m / 2 (sign of the transform)
  std::vector<Complex> itwiddles_;   // the opposite sign, for Bluestein's inverse step
  std::vector<Complex> chirp_;       // exp(-+ pi i j^2 / n), j < n
  std::vector<Complex> kernel_fft_;  // FFT of the conjugate chirp, circularly extended
};

// The O(n^2) definition, for tests.
void NaiveDft(const Complex* in, Complex* out, int64_t n, bool inverse);

}  // namespace loom::kernels::signal
