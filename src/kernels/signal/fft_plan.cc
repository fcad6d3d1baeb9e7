#include "kernels/signal/fft_plan.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace loom::kernels::signal {
namespace {

int64_t NextPowerOfTwo(int64_t v) {
  int64_t m = 1;
  while (m < v) m <<= 1;
  return m;
}

std::vector<Complex> Twiddles(int64_t m, double sign) {
  std::vector<Complex> t(static_cast<size_t>(m / 2));
  for (int64_t k = 0; k < m / 2; ++k) {
    const double angle =
        sign * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(m);
    t[static_cast<size_t>(k)] = Complex(std::cos(angle), std::sin(angle));
  }
  return t;
}

}  // namespace

FftPlan::FftPlan(int64_t n, bool inverse) : n_(n), inverse_(inverse) {
  const double sign = inverse ? 1.0 : -1.0;
  power_of_two_ = (n & (n - 1)) == 0;
  if (power_of_two_) {
    m_ = n;
    twiddles_ = Twiddles(m_, sign);
    return;
  }
  m_ = NextPowerOfTwo(2 * n - 1);
  twiddles_ = Twiddles(m_, -1.0);
  itwiddles_ = Twiddles(m_, 1.0);
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    // j^2 mod 2n keeps the angle small, so it stays exact for large j.
    const int64_t q = (j * j) % (2 * n);
    const double angle = sign * std::numbers::pi * static_cast<double>(q) / static_cast<double>(n);
    chirp_[static_cast<size_t>(j)] = Complex(std::cos(angle), std::sin(angle));
  }
  kernel_fft_.assign(static_cast<size_t>(m_), Complex(0, 0));
  kernel_fft_[0] = std::conj(chirp_[0]);
  for (int64_t j = 1; j < n; ++j) {
    kernel_fft_[static_cast<size_t>(j)] = std::conj(chirp_[static_cast<size_t>(j)]);
    kernel_fft_[static_cast<size_t>(m_ - j)] = std::conj(chirp_[static_cast<size_t>(j)]);
  }
  Radix2(kernel_fft_.data(), m_, twiddles_);
}

void FftPlan::Radix2(Complex* data, int64_t m, const std::vector<Complex>& twiddles) {
  // Bit-reversal permutation.
  for (int64_t i = 1, j = 0; i < m; ++i) {
    int64_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  for (int64_t len = 2; len <= m; len <<= 1) {
    const int64_t half = len / 2, step = m / len;
    for (int64_t start = 0; start < m; start += len) {
      for (int64_t k = 0; k < half; ++k) {
        const Complex w = twiddles[static_cast<size_t>(k * step)];
        const Complex u = data[start + k];
        const Complex v = data[start + k + half] * w;
        data[start + k] = u + v;
        data[start + k + half] = u - v;
      }
    }
  }
}

void FftPlan::Run(const Complex* in, Complex* out, std::vector<Complex>& scratch) const {
  if (power_of_two_) {
    for (int64_t j = 0; j < n_; ++j) out[j] = in[j];
    Radix2(out, n_, twiddles_);
    return;
  }
  scratch.assign(static_cast<size_t>(m_), Complex(0, 0));
  for (int64_t j = 0; j < n_; ++j)
    scratch[static_cast<size_t>(j)] = in[j] * chirp_[static_cast<size_t>(j)];
  Radix2(scratch.data(), m_, twiddles_);
  for (int64_t j = 0; j < m_; ++j)
    scratch[static_cast<size_t>(j)] *= kernel_fft_[static_cast<size_t>(j)];
  Radix2(scratch.data(), m_, itwiddles_);
  const double scale = 1.0 / static_cast<double>(m_);
  for (int64_t k = 0; k < n_; ++k) {
    out[k] = scratch[static_cast<size_t>(k)] * scale * chirp_[static_cast<size_t>(k)];
  }
}

void NaiveDft(const Complex* in, Complex* out, int64_t n, bool inverse) {
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < n; ++k) {
    Complex sum(0, 0);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t q = (j * k) % n;
      const double angle =
          sign * 2.0 * std::numbers::pi * static_cast<double>(q) / static_cast<double>(n);
      sum += in[j] * Complex(std::cos(angle), std::sin(angle));
    }
    out[k] = sum;
  }
}

}  // namespace loom::kernels::signal
