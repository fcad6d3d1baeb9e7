#include "kernels/gemm/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "kernels/gemm/gemm_micro_kernel.h"
#include "loom/errors.h"
#include "threading/thread_pool.h"

namespace loom::kernels {
namespace {

struct Problem {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
  bool bias;
};

struct Buffers {
  std::vector<float> a, b, c, bias;
};

Buffers MakeBuffers(const Problem& p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](size_t count) {
    std::vector<float> v(count);
    for (float& x : v) x = dist(rng);
    return v;
  };
  // Leading dimensions are padded by 3 to catch kernels that assume packed rows.
  return {fill(static_cast<size_t>((p.ta ? p.k : p.m) * ((p.ta ? p.m : p.k) + 3))),
          fill(static_cast<size_t>((p.tb ? p.n : p.k) * ((p.tb ? p.k : p.n) + 3))),
          fill(static_cast<size_t>(p.m * (p.n + 3))), fill(static_cast<size_t>(p.n))};
}

GemmArgs ArgsFor(const Problem& p, Buffers& buf) {
  GemmArgs g;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.transpose_a = p.ta;
  g.transpose_b = p.tb;
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.a = buf.a.data();
  g.lda = (p.ta ? p.m : p.k) + 3;
  g.b = buf.b.data();
  g.ldb = (p.tb ? p.k : p.n) + 3;
  g.c = buf.c.data();
  g.ldc = p.n + 3;
  g.bias = p.bias ? buf.bias.data() : nullptr;
  return g;
}

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (IsaSupported(isa)) isas.push_back(isa);
  }
  return isas;
}

std::unique_ptr<threading::ThreadPool> PoolWithThreads(int threads) {
  threading::ThreadPoolOptions options;
  options.name = "gemmtest";
  options.num_threads = threads - 1;  // the caller is the last thread
  options.spin_wait_us = 20;
  return std::make_unique<threading::ThreadPool>(options);
}

// Float error grows with k; values are in [-1, 1].
float Tolerance(int64_t k) { return 2e-5f * std::sqrt(static_cast<float>(k) + 1) + 1e-6f; }

void ExpectMatchesReference(const Problem& p, Isa isa, threading::ThreadPool* pool) {
  Buffers expected = MakeBuffers(p, 11);
  Buffers actual = expected;
  f32_gemm_reference(ArgsFor(p, expected));
  f32_gemm(ArgsFor(p, actual), pool, isa);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n + 3; ++j) {
      const size_t at = static_cast<size_t>(i * (p.n + 3) + j);
      if (j >= p.n) {
        // Padding beyond n must be untouched.
        ASSERT_EQ(actual.c[at], expected.c[at]) << "padding written at " << i << "," << j;
        continue;
      }
      ASSERT_NEAR(actual.c[at], expected.c[at], Tolerance(p.k))
          << IsaName(isa) << " m=" << p.m << " n=" << p.n << " k=" << p.k << " ta=" << p.ta
          << " tb=" << p.tb << " at (" << i << "," << j << ")";
    }
  }
}

TEST(Gemm, MatchesReferenceForEveryIsaAndThreadCount) {
  const std::vector<Problem> problems = {
      {1, 1, 1, false, false, 1, 0, false},     {7, 13, 5, false, false, 1, 0, false},
      {13, 37, 29, true, false, 0.5f, 1, true}, {31, 17, 300, false, true, 1, 0.25f, false},
      {1, 100, 64, false, false, 1, 0, true},   {5, 3, 257, true, true, -2, 0, false},
      {50, 70, 513, false, false, 1, 0, true},  {97, 1, 11, false, true, 1, 1, false},
      {0, 5, 5, false, false, 1, 0, false},     {4, 0, 5, false, false, 1, 0, false},
      {6, 9, 0, false, false, 1, 0.5f, true},   {12, 32, 256, false, false, 1, 0, false},
  };
  for (int threads : {1, 2, 3, 7}) {
    auto pool = PoolWithThreads(threads);
    for (Isa isa : SupportedIsas()) {
      for (const Problem& p : problems) ExpectMatchesReference(p, isa, pool.get());
    }
  }
}

TEST(Gemm, ManyColumnBlocksAndRandomShapes) {
  auto pool = PoolWithThreads(2);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> small(1, 40);
  for (Isa isa : SupportedIsas()) {
    ExpectMatchesReference({3, 2100, 20, false, false, 1, 0, true}, isa, pool.get());  // > kNc
    for (int round = 0; round < 10; ++round) {
      ExpectMatchesReference({small(rng), small(rng) * 3, small(rng) * 7, round % 2 == 0,
                              round % 3 == 0, 1, round % 2 ? 0.f : 1.f, round % 4 == 0},
                             isa, pool.get());
    }
  }
}

TEST(Gemm, SkinnyShapesMatchReference) {
  // Few rows with B not transposed take the unpacked path; cover row groups
  // of every size, several depth blocks (k > 128) and column units (n > 256).
  auto pool = PoolWithThreads(3);
  for (Isa isa : SupportedIsas()) {
    for (int64_t m : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 40, 64}) {
      ExpectMatchesReference({m, 600, 300, false, false, 1, 0, true}, isa, pool.get());
      ExpectMatchesReference({m, 77, 129, true, false, 0.5f, 1, false}, isa, pool.get());
    }
    // One row: the row-streaming GEMV sums units of at most 256 rows of B,
    // evened out (k = 1000: 3 x 252 + 244; 784: 4 x 196; 257: 132 + 125)
    // and n = 1030 ends in a masked tail.
    ExpectMatchesReference({1, 1030, 1000, false, false, 0.5f, 1, true}, isa, pool.get());
    ExpectMatchesReference({1, 1024, 784, false, false, 1, 0, true}, isa, pool.get());
    ExpectMatchesReference({1, 33, 257, false, false, 1, 0.5f, true}, isa, pool.get());
    ExpectMatchesReference({1, 9, 1, false, false, 1, 0, true}, isa, pool.get());
    ExpectMatchesReference({1, 5, 3, false, false, 1, 0, true}, isa, pool.get());
  }
}

TEST(Gemm, BothAvx512PackedKernelsMatchReference) {
  if (!IsaSupported(Isa::kAvx512f)) GTEST_SKIP() << "no AVX-512 on this CPU";
  auto pool = PoolWithThreads(3);
  for (Avx512Packing packing : {Avx512Packing::kWide, Avx512Packing::kNarrow}) {
    SetAvx512PackingForTesting(packing);
    for (const Problem& p : {Problem{70, 45, 600, false, false, 1, 0, true},
                             Problem{13, 37, 29, true, true, 0.5f, 1, false},
                             Problem{100, 2100, 40, false, true, 1, 0.25f, true}}) {
      ExpectMatchesReference(p, Isa::kAvx512f, pool.get());
    }
  }
  SetAvx512PackingForTesting(Avx512Packing::kAuto);
}

TEST(Gemm, BitExactAcrossThreadCounts) {
  // Threads only split C into tiles (or column units on the skinny path, or
  // fixed row units of B on the GEMV path, summed in unit order); each
  // element is accumulated in the same order whatever the thread count.
  const std::vector<Problem> problems = {{67, 91, 530, false, false, 1, 0, true},
                                         {9, 700, 300, false, false, 1, 0, true},
                                         {1, 1030, 1000, false, false, 1, 1, true},
                                         {1, 1024, 784, false, false, 1, 0, true},
                                         {1, 70, 257, false, false, 1, 0, true}};
  for (const Problem& p : problems) {
    for (Isa isa : SupportedIsas()) {
      std::vector<float> first;
      for (int threads : {1, 2, 3, 7}) {
        auto pool = PoolWithThreads(threads);
        Buffers buf = MakeBuffers(p, 5);
        f32_gemm(ArgsFor(p, buf), pool.get(), isa);
        if (first.empty()) {
          first = buf.c;
        } else {
          EXPECT_EQ(buf.c, first) << IsaName(isa) << " m=" << p.m << " threads=" << threads;
        }
      }
    }
  }
}

// The rows form of each micro-kernel (A read in place) against its packed
// form on the same tile: the same bits for every row count, column count,
// depth and accumulate flag, since f32_gemm picks the form by how A comes;
// with or without a prefetch address.
TEST(Gemm, RowsMicroKernelsGiveThePackedKernelsBits) {
  struct Pair {
    Isa isa;
    int mr, nr;
    GemmMicroKernel packed;
    GemmRowsMicroKernel rows;
  };
  const Pair pairs[] = {
      {Isa::kAvx2Fma, 6, 16, f32_gemm_6x16__avx2_fma, f32_gemm_6x16_rows__avx2_fma},
      {Isa::kAvx512f, 12, 32, f32_gemm_12x32__avx512f, f32_gemm_12x32_rows__avx512f}};
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int checked = 0;
  for (const Pair& pair : pairs) {
    if (!IsaSupported(pair.isa)) continue;
    for (int64_t kc : {1, 7, 256}) {
      // B panel: kc x NR, 64-byte aligned (the kernels use aligned loads).
      const size_t b_floats = static_cast<size_t>(kc * pair.nr);
      std::unique_ptr<float, decltype(&std::free)> b(
          static_cast<float*>(std::aligned_alloc(64, (b_floats * sizeof(float) + 63) / 64 * 64)),
          &std::free);
      for (size_t i = 0; i < b_floats; ++i) b.get()[i] = dist(rng);
      for (int mr = 1; mr <= pair.mr; ++mr) {
        // A in place: mr rows of kc, lda = kc + 5; packed: kc x MR, zero padded.
        const int64_t lda = kc + 5;
        std::vector<float> a(static_cast<size_t>(mr * lda));
        for (float& x : a) x = dist(rng);
        std::vector<float> packed(static_cast<size_t>(kc * pair.mr), 0.0f);
        for (int i = 0; i < mr; ++i) {
          for (int64_t p = 0; p < kc; ++p) packed[p * pair.mr + i] = a[i * lda + p];
        }
        for (int nr : {1, pair.nr / 2 + 3, pair.nr}) {
          for (bool accumulate : {false, true}) {
            for (float alpha : {1.0f, -0.75f}) {
              const int64_t ldc = pair.nr + 2;
              std::vector<float> c0(static_cast<size_t>(pair.mr * ldc));
              for (float& x : c0) x = dist(rng);
              const std::vector<float> c_start = c0;
              std::vector<float> c1 = c0;
              pair.packed(kc, packed.data(), b.get(), c0.data(), ldc, alpha, mr, nr, accumulate);
              pair.rows(kc, a.data(), lda, b.get(), c1.data(), ldc, alpha, mr, nr, accumulate,
                        nullptr, 0);
              ASSERT_EQ(c1, c0) << IsaName(pair.isa) << " kc=" << kc << " mr=" << mr << " nr=" << nr
                                << " accumulate=" << accumulate;
              // Prefetching (here A's lines) changes nothing computed.
              for (int every : {2, 4}) {
                std::vector<float> c2 = c_start;
                pair.rows(kc, a.data(), lda, b.get(), c2.data(), ldc, alpha, mr, nr, accumulate,
                          a.data(), every);
                ASSERT_EQ(c2, c0) << IsaName(pair.isa) << " prefetch every " << every
                                  << ", kc=" << kc;
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
}

TEST(Gemm, BetaZeroIgnoresGarbageInC) {
  const Problem p{9, 21, 17, false, false, 1, 0, false};
  for (Isa isa : SupportedIsas()) {
    Buffers buf = MakeBuffers(p, 2);
    for (float& x : buf.c) x = std::numeric_limits<float>::quiet_NaN();
    f32_gemm(ArgsFor(p, buf), nullptr, isa);
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) ASSERT_FALSE(std::isnan(buf.c[i * (p.n + 3) + j]));
    }
  }
}

TEST(Gemm, InvalidArgumentsAreClearErrors) {
  std::vector<float> x(16);
  GemmArgs g;
  g.m = 2;
  g.n = 2;
  g.k = 2;
  g.a = x.data();
  g.b = x.data();
  g.c = x.data();
  g.lda = g.ldb = g.ldc = 2;
  EXPECT_NO_THROW(f32_gemm(g, nullptr, Isa::kPortable));
  GemmArgs negative = g;
  negative.k = -1;
  EXPECT_THROW(f32_gemm(negative, nullptr, Isa::kPortable), InvalidArgumentError);
  GemmArgs short_rows = g;
  short_rows.lda = 1;
  EXPECT_THROW(f32_gemm(short_rows, nullptr, Isa::kPortable), InvalidArgumentError);
  GemmArgs null_c = g;
  null_c.c = nullptr;
  EXPECT_THROW(f32_gemm(null_c, nullptr, Isa::kPortable), InvalidArgumentError);
  EXPECT_THROW(f32_gemm_reference(null_c), InvalidArgumentError);
  // An ISA the CPU lacks is refused, not executed (only checkable on CPUs
  // without AVX2 or AVX-512).
  for (Isa isa : {Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (!IsaSupported(isa)) {
      EXPECT_THROW(f32_gemm(g, nullptr, isa), InvalidArgumentError);
    }
  }
}

}  // namespace
}  // namespace loom::kernels
