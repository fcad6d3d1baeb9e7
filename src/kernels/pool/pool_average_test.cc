#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_reference.h"
#include "kernels/pool/pool_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CompareTensors;
using testing::ForEachIsaAndThreadCount;

Tensor AveragePool(const Attributes& attrs, const Tensor& x, KernelContext ctx = {}) {
  std::vector<Tensor> out = CallKernel(AveragePoolKernel, ctx, attrs, {&x});
  EXPECT_EQ(out.size(), 1u);
  return out[0];
}

void ExpectValues(const Tensor& actual, const std::vector<float>& expected) {
  const Tensor e = Tensor::from_vector<float>(actual.shape(), expected);
  EXPECT_EQ(CompareTensors(actual, e, 1e-6, 1e-6), "");
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

TEST(AveragePool, HandComputedNoPadding) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  const Tensor x = Tensor::from_vector<float>({1, 1, 3, 3}, Iota(9));
  ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string&) {
    ExpectValues(AveragePool(attrs, x, ctx), {3, 4, 6, 7});
  });
}

TEST(AveragePool, CountIncludePadDividesByThePaddedWindow) {
  const Tensor x = Tensor::from_vector<float>({1, 1, 3, 3}, Iota(9));
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3})
      .set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ExpectValues(AveragePool(attrs, x), {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7});
  attrs.set("count_include_pad", int64_t{1});
  ExpectValues(AveragePool(attrs, x),
               {12 / 9.f, 21 / 9.f, 16 / 9.f, 27 / 9.f, 5, 33 / 9.f, 24 / 9.f, 39 / 9.f, 28 / 9.f});
}

TEST(AveragePool, CeilModeOverhangIsNeverCounted) {
  // [1..6], k 3, s 2, pads 1/1, ceil_mode: the last window covers input 5,
  // pad position 6 and overhang 7; only 5 and 6 count with count_include_pad.
  const Tensor x = Tensor::from_vector<float>({1, 1, 6}, Iota(6));
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3})
      .set("strides", std::vector<int64_t>{2})
      .set("pads", std::vector<int64_t>{1, 1})
      .set("ceil_mode", int64_t{1});
  ExpectValues(AveragePool(attrs, x), {1.5, 3, 5, 6});
  attrs.set("count_include_pad", int64_t{1});
  ExpectValues(AveragePool(attrs, x), {1, 3, 5, 3});

  // No explicit padding: the overhang window divides by its one element.
  const Tensor five = Tensor::from_vector<float>({1, 1, 5}, Iota(5));
  Attributes ceil;
  ceil.set("kernel_shape", std::vector<int64_t>{2})
      .set("strides", std::vector<int64_t>{2})
      .set("ceil_mode", int64_t{1})
      .set("count_include_pad", int64_t{1});
  ExpectValues(AveragePool(ceil, five), {1.5, 3.5, 5});
}

TEST(AveragePool, Dilations) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2}).set("dilations", std::vector<int64_t>{2});
  ExpectValues(AveragePool(attrs, Tensor::from_vector<float>({1, 1, 5}, Iota(5))), {2, 3, 4});
}

TEST(AveragePool, MatchesReferenceOnRandomGeometries) {
  std::mt19937 rng(11);
  int checked = 0;
  for (int round = 0; round < 60; ++round) {
    testing::PoolCase c = testing::RandomPoolCase(rng, 1 + round % 3, round % 2 == 0);
    c.attrs.set("count_include_pad", int64_t{round % 3 == 0});
    const DType dtype = round % 4 == 1 ? DType::kFloat64 : DType::kFloat32;
    const Tensor x = testing::RandomTensor(dtype, Shape(c.shape), round);
    Tensor expected;
    try {
      expected = AveragePoolReference(c.attrs, x);
    } catch (const InvalidArgumentError&) {
      continue;  // window larger than the padded input
    }
    const double tolerance = dtype == DType::kFloat32 ? 1e-5 : 1e-12;
    ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
      EXPECT_EQ(CompareTensors(AveragePool(c.attrs, x, ctx), expected, tolerance, tolerance), "")
          << c.description << " " << label;
    });
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

TEST(AveragePool, BitExactAcrossThreadCountsAndIsas) {
  // Large enough for ParallelFor to split rows over threads.
  struct Case {
    std::vector<int64_t> shape, kernel, strides, pads;
  };
  const std::vector<Case> cases = {
      {{1, 64, 56, 56}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {{2, 32, 35, 35}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{1, 8, 9, 17, 23}, {2, 3, 3}, {1, 2, 1}, {0, 1, 1, 1, 1, 1}},
  };
  for (const Case& c : cases) {
    Attributes attrs;
    attrs.set("kernel_shape", c.kernel).set("strides", c.strides).set("pads", c.pads);
    const Tensor x = testing::RandomTensor(DType::kFloat32, Shape(c.shape), 5);
    const Tensor expected = AveragePoolReference(attrs, x);
    Tensor first;
    ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
      const Tensor y = AveragePool(attrs, x, ctx);
      EXPECT_EQ(CompareTensors(y, expected, 1e-5, 1e-6), "") << label;
      if (first.num_elements() == 0) first = y;
      EXPECT_TRUE(BitwiseEqual(y, first)) << Shape(c.shape).to_string() << " " << label;
    });
  }
}

TEST(AveragePool, ZeroSizedDimensionsAndEmptyWindows) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  EXPECT_EQ(AveragePool(attrs, Tensor(DType::kFloat32, Shape({0, 2, 3, 3}))).shape(),
            Shape({0, 2, 2, 2}));
  // Windows entirely in padding average to 0, whatever count_include_pad.
  Attributes padded;
  padded.set("kernel_shape", std::vector<int64_t>{2}).set("pads", std::vector<int64_t>{2, 0});
  const Tensor x = Tensor::from_vector<float>({1, 1, 2}, {3, 5});
  ExpectValues(AveragePool(padded, x), {0, 3, 4});
  padded.set("count_include_pad", int64_t{1});
  ExpectValues(AveragePool(padded, x), {0, 1.5, 4});
}

TEST(AveragePool, InvalidArgumentsAreClearErrors) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  const Tensor ints(DType::kInt8, Shape({1, 1, 4, 4}));
  auto message_of = [](const Attributes& a, const Tensor& x) -> std::string {
    try {
      AveragePool(a, x);
    } catch (const InvalidArgumentError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message_of(attrs, ints),
            "AveragePool: input 'X' must have dtype one of float32, float64 (got int8)");
  Attributes bad = attrs;
  bad.set("count_include_pad", int64_t{2});
  EXPECT_EQ(message_of(bad, Tensor(DType::kFloat32, Shape({1, 1, 4, 4}))),
            "AveragePool: attribute 'count_include_pad' must be 0 or 1 (got 2)");
  const std::string rank = message_of(attrs, Tensor(DType::kFloat32, Shape({4})));
  EXPECT_EQ(rank.rfind("AveragePool: input 'X' must have rank >= 3", 0), 0u) << rank;
}

}  // namespace
}  // namespace loom::kernels
