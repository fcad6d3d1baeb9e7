#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_common.h"
#include "kernels/pool/pool_reference.h"
#include "kernels/pool/pool_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CompareTensors;
using testing::ForEachIsaAndThreadCount;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<Tensor> MaxPool(const Attributes& attrs, const Tensor& x, KernelContext ctx = {}) {
  return CallKernel(MaxPoolKernel, ctx, attrs, {&x});
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}
std::vector<int64_t> Indices(const Tensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
}

std::vector<float> Iota(int n, float first, float step) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = first + step * i;
  return v;
}

TEST(MaxPool, HandComputed2x2Stride2BothStorageOrders) {
  const Tensor x = Tensor::from_vector<float>({1, 1, 4, 4}, Iota(16, 1, 1));
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2}).set("strides", std::vector<int64_t>{2, 2});
  ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
    std::vector<Tensor> out = MaxPool(attrs, x, ctx);
    EXPECT_EQ(out[0].shape(), Shape({1, 1, 2, 2})) << label;
    EXPECT_EQ(Values(out[0]), (std::vector<float>{6, 8, 14, 16})) << label;
    EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{5, 7, 13, 15})) << label;
    Attributes column_major = attrs;
    column_major.set("storage_order", int64_t{1});
    // Column-major index of (h, w) is w * H + h.
    EXPECT_EQ(Indices(MaxPool(column_major, x, ctx)[1]), (std::vector<int64_t>{5, 13, 7, 15}))
        << label;
  });
}

TEST(MaxPool, PaddingNeverWinsAndIndicesCountPlanes) {
  std::vector<float> values = Iota(9, -1, -1);  // -1 .. -9, twice
  values.insert(values.end(), values.begin(), values.end());
  const Tensor x = Tensor::from_vector<float>({1, 2, 3, 3}, values);
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3})
      .set("strides", std::vector<int64_t>{2, 2})
      .set("pads", std::vector<int64_t>{1, 1, 1, 1});
  std::vector<Tensor> out = MaxPool(attrs, x);
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-1, -2, -4, -5, -1, -2, -4, -5}));
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{0, 1, 3, 4, 9, 10, 12, 13}));
}

TEST(MaxPool, TiesKeepTheFirstAndNaNPropagates) {
  const Tensor x = Tensor::from_vector<float>({1, 1, 6}, {2, 2, 1, kNaN, 5, 5});
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2});
  std::vector<Tensor> out = MaxPool(attrs, x);
  const std::vector<float> y = Values(out[0]);
  ASSERT_EQ(y.size(), 5u);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], 2);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], 5);
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{0, 1, 3, 3, 4}));
}

TEST(MaxPool, DilationsCeilModeAndAllPaddingWindows) {
  const Tensor x = Tensor::from_vector<float>({1, 1, 5}, {5, 1, 4, 2, 3});
  Attributes dilated;
  dilated.set("kernel_shape", std::vector<int64_t>{2}).set("dilations", std::vector<int64_t>{2});
  std::vector<Tensor> out = MaxPool(dilated, x);
  EXPECT_EQ(Values(out[0]), (std::vector<float>{5, 2, 4}));
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{0, 3, 2}));

  Attributes ceil;
  ceil.set("kernel_shape", std::vector<int64_t>{2})
      .set("strides", std::vector<int64_t>{2})
      .set("ceil_mode", int64_t{1});
  out = MaxPool(ceil, x);
  EXPECT_EQ(Values(out[0]), (std::vector<float>{5, 4, 3}));
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{0, 2, 4}));

  // pads >= the window: the first window holds only padding.
  Attributes padded;
  padded.set("kernel_shape", std::vector<int64_t>{2}).set("pads", std::vector<int64_t>{2, 0});
  out = MaxPool(padded, Tensor::from_vector<float>({1, 1, 2}, {3, 4}));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-kInf, 3, 4}));
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{-1, 0, 1}));
}

TEST(MaxPool, Int8AndUInt8) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  std::vector<Tensor> out =
      MaxPool(attrs, Tensor::from_vector<int8_t>({1, 1, 2, 3}, {-128, 5, -3, 7, -128, 100}));
  EXPECT_EQ(out[0].data<int8_t>()[0], 7);
  EXPECT_EQ(out[0].data<int8_t>()[1], 100);
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{3, 5}));
  out = MaxPool(attrs, Tensor::from_vector<uint8_t>({1, 1, 2, 3}, {0, 255, 3, 4, 255, 1}));
  EXPECT_EQ(out[0].data<uint8_t>()[0], 255);
  EXPECT_EQ(out[0].data<uint8_t>()[1], 255);
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{1, 1}));
}

void ExpectMatchesReference(const testing::PoolCase& c, DType dtype, uint32_t seed,
                            bool inject_nans) {
  Tensor x = testing::RandomTensor(dtype, Shape(c.shape), seed, -100, 100);
  if (inject_nans && dtype == DType::kFloat32) {
    for (int64_t i = 3; i < x.num_elements(); i += 11) x.data<float>()[i] = kNaN;
  }
  const std::vector<Tensor> expected = MaxPoolReference(c.attrs, x);
  for (int64_t order : {0, 1}) {
    Attributes attrs = c.attrs;
    attrs.set("storage_order", order);
    const std::vector<Tensor> expected_order = order == 0 ? expected : MaxPoolReference(attrs, x);
    ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
      const std::vector<Tensor> out = MaxPool(attrs, x, ctx);
      const std::string where = c.description + " " + std::string(dtype_name(dtype)) + " " + label +
                                " storage_order " + std::to_string(order);
      EXPECT_EQ(CompareTensors(out[0], expected_order[0], 0, 0), "") << where;
      EXPECT_TRUE(BitwiseEqual(out[1], expected_order[1])) << where;
    });
  }
  // A node without the Indices output: values only, the same values.
  ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
    KernelContext values_only = ctx;
    values_only.num_outputs = 1;
    const std::vector<Tensor> out = MaxPool(c.attrs, x, values_only);
    const std::string where = c.description + " " + std::string(dtype_name(dtype)) + " " + label;
    ASSERT_EQ(out.size(), 1u) << where;
    EXPECT_EQ(CompareTensors(out[0], expected[0], 0, 0), "") << where << " (values only)";
  });
}

TEST(MaxPool, MatchesReferenceOnRandomGeometries) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int round = 0; round < 60; ++round) {
    const int rank = 1 + round % 3;
    const testing::PoolCase c = testing::RandomPoolCase(rng, rank, true);
    const DType dtype = round % 5 == 1   ? DType::kFloat64
                        : round % 5 == 2 ? DType::kInt8
                        : round % 5 == 3 ? DType::kUInt8
                                         : DType::kFloat32;
    try {
      MaxPoolReference(c.attrs, Tensor(dtype, Shape(c.shape)));
    } catch (const InvalidArgumentError&) {
      continue;  // window larger than the padded input
    }
    ExpectMatchesReference(c, dtype, round, round % 4 == 0);
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

TEST(MaxPool, ModelShapesMatchReferenceBitExactAtEveryThreadCountAndIsa) {
  // ResNet-18's stem pool, a stride-1 3x3 pool and a 1-D pool, large enough
  // for ParallelFor to split rows over threads.
  struct Case {
    std::vector<int64_t> shape, kernel, strides, pads;
  };
  const std::vector<Case> cases = {
      {{1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {{2, 16, 35, 35}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{3, 40, 1001}, {5}, {3}, {2, 1}},
  };
  for (const Case& c : cases) {
    Attributes attrs;
    attrs.set("kernel_shape", c.kernel).set("strides", c.strides).set("pads", c.pads);
    const Tensor x = testing::RandomTensor(DType::kFloat32, Shape(c.shape), 3);
    const std::vector<Tensor> expected = MaxPoolReference(attrs, x);
    ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
      const std::vector<Tensor> out = MaxPool(attrs, x, ctx);
      EXPECT_TRUE(BitwiseEqual(out[0], expected[0])) << Shape(c.shape).to_string() << label;
      EXPECT_TRUE(BitwiseEqual(out[1], expected[1])) << Shape(c.shape).to_string() << label;
      KernelContext values_only = ctx;
      values_only.num_outputs = 1;
      EXPECT_TRUE(BitwiseEqual(MaxPool(attrs, x, values_only)[0], expected[0]))
          << Shape(c.shape).to_string() << label << " (values only)";
    });
  }
}

// int8/uint8 without Indices take the SSE2 block loop for stride 1 and 2
// (pool_max_bytes_sse2.h): widths that leave partial blocks, even and odd
// kernels, k = 1, and values over the whole range.
TEST(MaxPool, BytesValuesOnlyMatchReferenceBitExactAtModelShapes) {
  struct Case {
    std::vector<int64_t> shape, kernel, strides, pads;
  };
  const std::vector<Case> cases = {
      {{1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}},  // ResNet-18's stem
      {{2, 16, 35, 35}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{1, 8, 33, 47}, {3, 3}, {2, 2}, {0, 0, 0, 0}},
      {{1, 4, 9, 101}, {2, 5}, {1, 2}, {0, 2, 1, 2}},
      {{1, 4, 7, 77}, {3, 4}, {2, 2}, {1, 1, 1, 2}},
      {{1, 3, 6, 50}, {3, 2}, {1, 2}, {0, 0, 0, 0}},
      {{1, 5, 17, 67}, {1, 1}, {2, 2}, {0, 0, 0, 0}},
      {{1, 5, 17, 67}, {3, 1}, {2, 2}, {1, 0, 1, 0}},
      {{1, 5, 4, 64}, {2, 4}, {1, 1}, {0, 3, 0, 0}},
      {{1, 2, 3, 31}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{1, 2, 3, 48}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
  };
  for (const Case& c : cases) {
    Attributes attrs;
    attrs.set("kernel_shape", c.kernel).set("strides", c.strides).set("pads", c.pads);
    for (DType dtype : {DType::kInt8, DType::kUInt8}) {
      const Tensor x = testing::RandomTensor(dtype, Shape(c.shape), 5, -128, 255);
      const std::vector<Tensor> expected = MaxPoolReference(attrs, x);
      ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
        KernelContext values_only = ctx;
        values_only.num_outputs = 1;
        EXPECT_TRUE(BitwiseEqual(MaxPool(attrs, x, values_only)[0], expected[0]))
            << Shape(c.shape).to_string() << " " << dtype_name(dtype) << " " << label;
      });
    }
  }
}

// The extremes of each type, and a window's maximum only at its last tap
// (last tap row, last column) or only at its first: a dropped tap, a
// missed sign flip or a saturating split would show.
TEST(MaxPool, BytesValuesOnlyKeepExtremesAtWindowEdges) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3})
      .set("strides", std::vector<int64_t>{2, 2})
      .set("pads", std::vector<int64_t>{1, 1, 1, 1});
  Attributes stride1 = attrs;
  stride1.set("strides", std::vector<int64_t>{1, 1});
  const std::vector<int64_t> dims = {1, 3, 9, 70};
  const Shape shape(dims);
  for (DType dtype : {DType::kInt8, DType::kUInt8}) {
    const int low = dtype == DType::kInt8 ? -128 : 0;
    const int high = dtype == DType::kInt8 ? 127 : 255;
    auto set = [&](Tensor& t, int64_t i, int v) {
      if (dtype == DType::kInt8) {
        t.data<int8_t>()[i] = static_cast<int8_t>(v);
      } else {
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
      }
    };
    std::vector<Tensor> inputs;
    // Only the extremes and their neighbours, at random.
    Tensor mixed(dtype, shape);
    std::mt19937 rng(11);
    const int choices[] = {low, low + 1, high - 1, high};
    for (int64_t i = 0; i < mixed.num_elements(); ++i) set(mixed, i, choices[rng() % 4]);
    inputs.push_back(mixed);
    // All `low`, `high` at every 2nd column of every 2nd row: each stride-2
    // window's maximum is its first or last tap, or at the plane's edges.
    for (int64_t offset : {0, 1}) {
      Tensor sparse(dtype, shape);
      for (int64_t i = 0; i < sparse.num_elements(); ++i) {
        const int64_t h = (i / dims[3]) % dims[2], w = i % dims[3];
        set(sparse, i, h % 2 == offset && w % 2 == offset ? high : low);
      }
      inputs.push_back(sparse);
    }
    for (const Tensor& x : inputs) {
      for (const Attributes& a : {attrs, stride1}) {
        const std::vector<Tensor> expected = MaxPoolReference(a, x);
        ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
          KernelContext values_only = ctx;
          values_only.num_outputs = 1;
          EXPECT_TRUE(BitwiseEqual(MaxPool(a, x, values_only)[0], expected[0]))
              << dtype_name(dtype) << " " << label;
        });
      }
    }
  }
}

// The 8-bit row kernel reads nothing past the input, whose last row ends
// the buffer: run on an exact-size heap copy, as a Tensor's buffer is
// rounded up to 64 bytes and would hide an over-read from AddressSanitizer.
TEST(MaxPool, BytesValuesOnlyReadNothingPastTheInput) {
  struct Case {
    std::vector<int64_t> shape, kernel, strides, pads;
  };
  const std::vector<Case> cases = {
      {{1, 5, 17, 67}, {1, 1}, {2, 2}, {0, 0, 0, 0}}, {{1, 2, 3, 48}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {{1, 2, 3, 49}, {3, 3}, {2, 2}, {1, 1, 1, 1}},  {{1, 3, 9, 35}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{1, 1, 3, 70}, {2, 4}, {1, 2}, {0, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    Attributes attrs;
    attrs.set("kernel_shape", c.kernel).set("strides", c.strides).set("pads", c.pads);
    const Tensor x = testing::RandomTensor(DType::kUInt8, Shape(c.shape), 9, 0, 255);
    Shape out_shape;
    const PoolPlan plan = MakePoolPlan("MaxPool", attrs, x, {DType::kUInt8}, &out_shape);
    const std::vector<uint8_t> exact(x.data<uint8_t>(), x.data<uint8_t>() + x.num_elements());
    Tensor y(DType::kUInt8, out_shape);
    max_pool_rows__portable(plan, exact.data(), y.data<uint8_t>(), nullptr, 0,
                            plan.planes * plan.rows_per_plane);
    EXPECT_TRUE(BitwiseEqual(y, MaxPoolReference(attrs, x)[0])) << Shape(c.shape).to_string();
  }
}

TEST(MaxPool, ZeroSizedDimensions) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2}).set("strides", std::vector<int64_t>{2, 2});
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{0, 3, 5, 5}, std::vector<int64_t>{2, 0, 5, 5}}) {
    std::vector<Tensor> out = MaxPool(attrs, Tensor(DType::kFloat32, Shape(shape)));
    EXPECT_EQ(out[0].shape(), Shape({shape[0], shape[1], 2, 2}));
    EXPECT_EQ(out[1].shape(), out[0].shape());
  }
  // An empty spatial axis with padding: every window is padding.
  Attributes padded;
  padded.set("kernel_shape", std::vector<int64_t>{2}).set("pads", std::vector<int64_t>{1, 1});
  std::vector<Tensor> out = MaxPool(padded, Tensor(DType::kFloat32, Shape({1, 2, 0})));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-kInf, -kInf}));
  EXPECT_EQ(Indices(out[1]), (std::vector<int64_t>{-1, -1}));
}

void ExpectError(const Attributes& attrs, std::vector<const Tensor*> inputs,
                 const std::vector<std::string>& fragments) {
  try {
    MaxPoolKernel({}, attrs, KernelInputs(inputs.data(), inputs.size()));
    ADD_FAILURE() << "no error; expected " << fragments[0];
  } catch (const InvalidArgumentError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("MaxPool: ", 0), 0u) << message;
    for (const std::string& f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message;
  }
}

TEST(MaxPool, InvalidArgumentsAreClearErrors) {
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  const Tensor x(DType::kFloat32, Shape({1, 1, 4, 4}));
  const Tensor ints(DType::kInt32, Shape({1, 1, 4, 4}));
  const Tensor flat(DType::kFloat32, Shape({4, 4}));
  ExpectError(attrs, {&ints}, {"input 'X'", "float32", "got int32"});
  ExpectError(attrs, {&flat}, {"input 'X'", "rank >= 3", "[4, 4]"});
  ExpectError(attrs, {&x, &x}, {"expected 1 inputs, got 2"});
  ExpectError(attrs, {nullptr}, {"'X'", "missing"});
  ExpectError(Attributes(), {&x}, {"kernel_shape", "missing"});
  Attributes bad_order = attrs;
  bad_order.set("storage_order", int64_t{2});
  ExpectError(bad_order, {&x}, {"storage_order", "got 2"});
  Attributes wrong_rank;
  wrong_rank.set("kernel_shape", std::vector<int64_t>{2});
  ExpectError(wrong_rank, {&x}, {"kernel_shape", "[2]"});
  Attributes too_big;
  too_big.set("kernel_shape", std::vector<int64_t>{5, 5});
  ExpectError(too_big, {&x}, {"exceeds the padded input"});
}

}  // namespace
}  // namespace loom::kernels
