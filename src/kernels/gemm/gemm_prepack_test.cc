// Prepacked operands and the epilogue of f32_gemm.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::PoolWithThreads;
using testing::SupportedIsas;

std::vector<float> Random(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  int64_t m, n, k;
  bool ta, tb;
};

GemmArgs Args(const Case& c, const std::vector<float>& a, const std::vector<float>& b,
              std::vector<float>& out) {
  GemmArgs g;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.transpose_a = c.ta;
  g.transpose_b = c.tb;
  g.a = a.data();
  g.lda = std::max<int64_t>(1, c.ta ? c.m : c.k);
  g.b = b.data();
  g.ldb = std::max<int64_t>(1, c.tb ? c.k : c.n);
  g.c = out.data();
  g.ldc = c.n;
  return g;
}

TEST(GemmPrepack, PackedOperandsGiveBitIdenticalResults) {
  // k = 600 spans three k blocks; n = 2100 spans two n blocks.
  // With B not transposed and at most 64 rows the plain call takes the
  // unpacked few-row path, so the bit-for-bit comparison needs m > 64 there.
  const std::vector<Case> cases = {{70, 45, 600, false, false},
                                   {20, 2100, 33, true, true},
                                   {5, 17, 9, false, true},
                                   {65, 64, 256, true, false}};
  auto pool = PoolWithThreads(3);
  for (const Case& c : cases) {
    const std::vector<float> a = Random(static_cast<size_t>(c.m * c.k), 1);
    const std::vector<float> b = Random(static_cast<size_t>(c.k * c.n), 2);
    for (Isa isa : SupportedIsas()) {
      std::vector<float> plain(static_cast<size_t>(c.m * c.n));
      std::vector<float> packed_both = plain, packed_a_only = plain;
      GemmArgs g = Args(c, a, b, plain);
      f32_gemm(g, pool.get(), isa);
      const PackedGemmMatrix pa = PackedGemmMatrix::PackA(g, isa);
      const PackedGemmMatrix pb = PackedGemmMatrix::PackB(g, isa);

      GemmArgs both = Args(c, a, b, packed_both);
      both.a = nullptr;
      both.b = nullptr;
      both.packed_a = &pa;
      both.packed_b = &pb;
      f32_gemm(both, pool.get(), isa);
      GemmArgs only_a = Args(c, a, b, packed_a_only);
      only_a.packed_a = &pa;
      f32_gemm(only_a, pool.get(), isa);
      if (c.m > 64 || c.tb) {
        EXPECT_EQ(packed_both, plain) << IsaName(isa) << " m=" << c.m << " n=" << c.n;
        EXPECT_EQ(packed_a_only, plain) << IsaName(isa) << " m=" << c.m;
      }
      std::vector<float> expected(plain.size());
      f32_gemm_reference(Args(c, a, b, expected));
      for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_NEAR(packed_both[i], expected[i], 1e-4f) << IsaName(isa) << " at " << i;
      }
    }
  }
}

TEST(GemmPrepack, MismatchedPackedMatrixIsRefused) {
  const Case c{8, 8, 8, false, false};
  const std::vector<float> a = Random(64, 1), b = Random(64, 2);
  std::vector<float> out(64);
  GemmArgs g = Args(c, a, b, out);
  const PackedGemmMatrix pa = PackedGemmMatrix::PackA(g, Isa::kPortable);
  GemmArgs wrong = g;
  wrong.packed_b = &pa;  // an A where a B belongs
  EXPECT_THROW(f32_gemm(wrong, nullptr, Isa::kPortable), InvalidArgumentError);
  GemmArgs other_size = g;
  other_size.m = 7;
  other_size.packed_a = &pa;
  EXPECT_THROW(f32_gemm(other_size, nullptr, Isa::kPortable), InvalidArgumentError);
  if (IsaSupported(Isa::kAvx512f)) {
    // Packed for one AVX-512 micro-kernel, run with the other: refused.
    SetAvx512PackingForTesting(Avx512Packing::kWide);
    const PackedGemmMatrix wide = PackedGemmMatrix::PackA(g, Isa::kAvx512f);
    SetAvx512PackingForTesting(Avx512Packing::kNarrow);
    GemmArgs narrow = g;
    narrow.packed_a = &wide;
    EXPECT_THROW(f32_gemm(narrow, nullptr, Isa::kAvx512f), InvalidArgumentError);
    SetAvx512PackingForTesting(Avx512Packing::kAuto);
  }
  GemmArgs negative = g;
  negative.k = -3;
  EXPECT_THROW(PackedGemmMatrix::PackA(negative, Isa::kPortable), InvalidArgumentError);
}

// Each packer checks its own operand only: the other operand and C may be
// absent (a MatMul's constant weights are packed before any input exists).
TEST(GemmPrepack, EachPackerChecksItsOwnOperandOnly) {
  const std::vector<float> a(6 * 5, 1.0f), b(5 * 9, 1.0f);
  GemmArgs only_a;
  only_a.m = 6, only_a.n = 9, only_a.k = 5, only_a.a = a.data(), only_a.lda = 5;
  EXPECT_NO_THROW(PackedGemmMatrix::PackA(only_a, Isa::kPortable));
  GemmArgs only_b;
  only_b.m = 6, only_b.n = 9, only_b.k = 5, only_b.b = b.data(), only_b.ldb = 9;
  EXPECT_NO_THROW(PackedGemmMatrix::PackB(only_b, Isa::kPortable));

  auto message = [](auto pack) {
    try {
      pack();
    } catch (const InvalidArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  GemmArgs no_a = only_a;
  no_a.a = nullptr;
  EXPECT_EQ(message([&] { PackedGemmMatrix::PackA(no_a, Isa::kPortable); }), "gemm: A is null");
  GemmArgs short_lda = only_a;
  short_lda.lda = 4;
  EXPECT_EQ(message([&] { PackedGemmMatrix::PackA(short_lda, Isa::kPortable); }),
            "gemm: lda 4 < row length 5");
  GemmArgs no_b = only_b;
  no_b.b = nullptr;
  EXPECT_EQ(message([&] { PackedGemmMatrix::PackB(no_b, Isa::kPortable); }), "gemm: B is null");
  GemmArgs short_ldb = only_b;
  short_ldb.ldb = 8;
  EXPECT_EQ(message([&] { PackedGemmMatrix::PackB(short_ldb, Isa::kPortable); }),
            "gemm: ldb 8 < row length 9");
  // An empty operand needs no data.
  GemmArgs empty_a = only_a;
  empty_a.m = 0;
  empty_a.a = nullptr;
  EXPECT_NO_THROW(PackedGemmMatrix::PackA(empty_a, Isa::kPortable));
}

// Adds a per-row bias, then clamps at zero, as Conv + Relu would.
struct RowBiasRelu {
  const float* bias;
  static void Apply(const void* state, float* c, int64_t row, int64_t, int64_t count) {
    const float b = static_cast<const RowBiasRelu*>(state)->bias[row];
    for (int64_t j = 0; j < count; ++j) c[j] = std::max(0.0f, c[j] + b);
  }
};

TEST(GemmEpilogue, RunsOncePerElementOnEveryPath) {
  // Few rows (unpacked path), many rows (packed, three k blocks), and k = 0.
  const std::vector<Case> cases = {
      {3, 300, 40, false, false}, {50, 70, 520, false, false}, {9, 13, 0, false, false}};
  for (const Case& c : cases) {
    const std::vector<float> a = Random(static_cast<size_t>(c.m * c.k), 3);
    const std::vector<float> b = Random(static_cast<size_t>(c.k * c.n), 4);
    const std::vector<float> bias = Random(static_cast<size_t>(c.m), 5);
    RowBiasRelu state{bias.data()};
    std::vector<float> expected(static_cast<size_t>(c.m * c.n));
    GemmArgs ref = Args(c, a, b, expected);
    ref.epilogue = {&RowBiasRelu::Apply, &state};
    f32_gemm_reference(ref);
    for (int threads : testing::kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      for (Isa isa : SupportedIsas()) {
        std::vector<float> out(expected.size(), 123.0f);
        GemmArgs g = Args(c, a, b, out);
        g.epilogue = {&RowBiasRelu::Apply, &state};
        f32_gemm(g, pool.get(), isa);
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_NEAR(out[i], expected[i], 1e-4f)
              << IsaName(isa) << " m=" << c.m << " k=" << c.k << " at " << i;
        }
      }
    }
  }
}

// Packed A (constant weights) with many columns: each unit packs its own B
// panels inside the multiply (one fork-join per block). k = 300 spans two k
// blocks, n = 2300 two n blocks (the second too narrow for that path); the
// epilogue runs on the last k block. Bit-identical to the unpacked call
// (same k order per element) at every thread count, and near the reference.
TEST(GemmPrepack, PackedAWithManyColumnsMatchesThePlainCallAtEveryThreadCount) {
  const Case c{70, 2300, 300, false, false};
  const std::vector<float> a = Random(static_cast<size_t>(c.m * c.k), 6);
  const std::vector<float> b = Random(static_cast<size_t>(c.k * c.n), 7);
  const std::vector<float> bias = Random(static_cast<size_t>(c.m), 8);
  RowBiasRelu state{bias.data()};
  std::vector<float> expected(static_cast<size_t>(c.m * c.n));
  GemmArgs ref = Args(c, a, b, expected);
  ref.epilogue = {&RowBiasRelu::Apply, &state};
  f32_gemm_reference(ref);
  for (Isa isa : SupportedIsas()) {
    std::vector<float> plain(expected.size());
    GemmArgs g = Args(c, a, b, plain);
    g.beta = 0.0f;  // C is not read: the first k block overwrites it
    g.epilogue = {&RowBiasRelu::Apply, &state};
    f32_gemm(g, nullptr, isa);
    const PackedGemmMatrix pa = PackedGemmMatrix::PackA(g, isa);
    for (int threads : testing::kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      std::vector<float> out(expected.size(), 123.0f);
      GemmArgs packed = Args(c, a, b, out);
      packed.beta = 0.0f;
      packed.epilogue = {&RowBiasRelu::Apply, &state};
      packed.packed_a = &pa;
      f32_gemm(packed, pool.get(), isa);
      ASSERT_EQ(out, plain) << IsaName(isa) << " threads=" << threads;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_NEAR(plain[i], expected[i], 1e-4f) << IsaName(isa) << " at " << i;
    }
  }
}

// One row of A against a prepacked B reads the packed panels (gemv_packed):
// k across one and several k blocks, n with and without a partial panel and
// across column units, alpha, beta with a C to scale, a column bias and an
// epilogue. Near the reference, and bit-identical at every thread count; on
// AVX-512 with both panel widths (16 and 32 columns).
TEST(GemmPrepack, OneRowAgainstPackedBMatchesTheReferenceAtEveryThreadCount) {
  const std::vector<std::pair<int64_t, int64_t>> k_n = {{1, 1},    {3, 17},    {255, 16},
                                                        {256, 33}, {600, 130}, {1280, 1000}};
  std::vector<Avx512Packing> packings = {Avx512Packing::kAuto};
  if (IsaSupported(Isa::kAvx512f)) packings = {Avx512Packing::kWide, Avx512Packing::kNarrow};
  for (const auto& [k, n] : k_n) {
    const Case c{1, n, k, false, false};
    const std::vector<float> a = Random(static_cast<size_t>(k), 9);
    const std::vector<float> b = Random(static_cast<size_t>(k * n), 10);
    const std::vector<float> bias = Random(static_cast<size_t>(n), 11);
    const std::vector<float> c0 = Random(static_cast<size_t>(n), 12);
    const std::vector<float> row_bias = {0.25f};
    RowBiasRelu state{row_bias.data()};
    auto with_terms = [&](GemmArgs g) {
      g.alpha = 0.75f;
      g.beta = 0.5f;
      g.bias = bias.data();
      g.epilogue = {&RowBiasRelu::Apply, &state};
      return g;
    };
    std::vector<float> expected = c0;
    f32_gemm_reference(with_terms(Args(c, a, b, expected)));
    const float tolerance = 1e-5f + 1e-6f * static_cast<float>(k);
    for (Avx512Packing packing : packings) {
      SetAvx512PackingForTesting(packing);
      for (Isa isa : SupportedIsas()) {
        const PackedGemmMatrix pb = PackedGemmMatrix::PackB(Args(c, a, b, expected), isa);
        std::vector<float> first;
        for (int threads : testing::kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          std::vector<float> out = c0;
          GemmArgs g = with_terms(Args(c, a, b, out));
          g.b = nullptr;  // only the packed panels can be read
          g.packed_b = &pb;
          f32_gemm(g, pool.get(), isa);
          if (first.empty()) {
            first = out;
            for (int64_t j = 0; j < n; ++j) {
              ASSERT_NEAR(out[j], expected[j], tolerance)
                  << IsaName(isa) << " k=" << k << " n=" << n << " at " << j;
            }
          } else {
            ASSERT_EQ(out, first) << IsaName(isa) << " k=" << k << " threads=" << threads;
          }
        }
      }
    }
    SetAvx512PackingForTesting(Avx512Packing::kAuto);
  }
}

}  // namespace
}  // namespace loom::kernels
