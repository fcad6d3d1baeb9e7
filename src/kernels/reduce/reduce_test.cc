#include "kernels/reduce/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/reduce/reduce_reference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;

struct OpCase {
  const char* name;
  KernelFn fn;
};

const std::vector<OpCase>& AllOps() {
  static const std::vector<OpCase> ops = {
      {"ReduceSum", ReduceSumKernel},
      {"ReduceMean", ReduceMeanKernel},
      {"ReduceProd", ReduceProdKernel},
      {"ReduceMax", ReduceMaxKernel},
      {"ReduceMin", ReduceMinKernel},
      {"ReduceL1", ReduceL1Kernel},
      {"ReduceL2", ReduceL2Kernel},
      {"ReduceSumSquare", ReduceSumSquareKernel},
      {"ReduceLogSumExp", ReduceLogSumExpKernel},
  };
  return ops;
}

Tensor Axes(const std::vector<int64_t>& axes) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(axes.size())}, axes);
}

Tensor RunReduce(KernelFn fn, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                 const KernelContext& ctx = {}) {
  const Tensor a = Axes(axes);
  Attributes attrs;
  attrs.set("keepdims", int64_t{keepdims});
  return CallKernel(fn, ctx, attrs, {&x, &a})[0];
}

Tensor F32(Shape shape, const std::vector<float>& v) { return Tensor::from_vector(shape, v); }

std::vector<float> Values(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.num_elements());
}

TEST(Reduce, HandComputedValues) {
  // x = [[1, -2, 3], [4, 5, -6]]
  const Tensor x = F32({2, 3}, {1, -2, 3, 4, 5, -6});
  EXPECT_EQ(Values(RunReduce(ReduceSumKernel, x, {1}, false)), (std::vector<float>{2, 3}));
  EXPECT_EQ(Values(RunReduce(ReduceSumKernel, x, {0}, true)), (std::vector<float>{5, 3, -3}));
  EXPECT_EQ(Values(RunReduce(ReduceMeanKernel, x, {0}, false)),
            (std::vector<float>{2.5f, 1.5f, -1.5f}));
  EXPECT_EQ(Values(RunReduce(ReduceProdKernel, x, {1}, false)), (std::vector<float>{-6, -120}));
  EXPECT_EQ(Values(RunReduce(ReduceMaxKernel, x, {1}, false)), (std::vector<float>{3, 5}));
  EXPECT_EQ(Values(RunReduce(ReduceMinKernel, x, {0}, false)), (std::vector<float>{1, -2, -6}));
  EXPECT_EQ(Values(RunReduce(ReduceL1Kernel, x, {1}, false)), (std::vector<float>{6, 15}));
  EXPECT_EQ(Values(RunReduce(ReduceSumSquareKernel, x, {1}, false)), (std::vector<float>{14, 77}));
  const std::vector<float> l2 = Values(RunReduce(ReduceL2Kernel, x, {1}, false));
  EXPECT_FLOAT_EQ(l2[0], std::sqrt(14.0f));
  EXPECT_FLOAT_EQ(l2[1], std::sqrt(77.0f));
  // log(e^1 + e^-2 + e^3) = 3.1328...; the max-shift keeps e^1000 finite.
  const std::vector<float> lse = Values(RunReduce(ReduceLogSumExpKernel, x, {1}, false));
  EXPECT_NEAR(lse[0], 3.13284, 1e-5);
  const Tensor big = F32({2}, {1000, 1000});
  EXPECT_NEAR(Values(RunReduce(ReduceLogSumExpKernel, big, {0}, false))[0], 1000 + std::log(2.0f),
              1e-3);
  // A scalar reduces to itself.
  const Tensor scalar = F32({}, {-3});
  EXPECT_EQ(RunReduce(ReduceSumSquareKernel, scalar, {}, true).shape(), Shape{});
  EXPECT_EQ(Values(RunReduce(ReduceSumSquareKernel, scalar, {}, true)), (std::vector<float>{9}));
  // All axes, keepdims: shape [1, 1].
  const Tensor all = RunReduce(ReduceSumKernel, x, {}, true);
  EXPECT_EQ(all.shape(), Shape({1, 1}));
  EXPECT_EQ(Values(all), (std::vector<float>{5}));
}

TEST(Reduce, IntegerDtypes) {
  const Tensor x = Tensor::from_vector<int32_t>({2, 3}, {1, -2, 3, 4, 5, -7});
  const Tensor sum = RunReduce(ReduceSumKernel, x, {1}, false);
  EXPECT_EQ(sum.data<int32_t>()[0], 2);
  EXPECT_EQ(sum.data<int32_t>()[1], 2);
  const Tensor mean = RunReduce(ReduceMeanKernel, x, {0}, false);  // truncates: 5/2, 3/2, -4/2
  EXPECT_EQ(std::vector<int32_t>(mean.data<int32_t>(), mean.data<int32_t>() + 3),
            (std::vector<int32_t>{2, 1, -2}));
  const Tensor i8 = Tensor::from_vector<int8_t>({4}, {-128, 5, 127, 0});
  EXPECT_EQ(RunReduce(ReduceMaxKernel, i8, {0}, false).data<int8_t>()[0], 127);
  EXPECT_EQ(RunReduce(ReduceMinKernel, i8, {0}, false).data<int8_t>()[0], -128);
  const Tensor big = Tensor::from_vector<int32_t>({2}, {std::numeric_limits<int32_t>::max(), 1});
  EXPECT_EQ(RunReduce(ReduceSumKernel, big, {0}, false).data<int32_t>()[0],
            std::numeric_limits<int32_t>::min());  // wraps, no UB
}

// uint32, uint64 and bfloat16, values worked out by hand.
TEST(Reduce, UnsignedAndBFloat16Dtypes) {
  const Tensor u32 = Tensor::from_vector<uint32_t>({3}, {4294967295u, 1, 1});
  EXPECT_EQ(RunReduce(ReduceSumKernel, u32, {0}, false).data<uint32_t>()[0], 1u);  // wraps
  EXPECT_EQ(RunReduce(ReduceMaxKernel, u32, {0}, false).data<uint32_t>()[0], 4294967295u);
  EXPECT_EQ(RunReduce(ReduceMinKernel, u32, {0}, false).data<uint32_t>()[0], 1u);
  const uint64_t kTop = uint64_t{1} << 63;
  const Tensor u64 =
      Tensor::from_vector<uint64_t>({2, 2}, {kTop, 3, uint64_t{1} << 62, (uint64_t{1} << 62) + 2});
  // Unsigned: 2^63 is the max of row 0, not a negative number.
  const Tensor max = RunReduce(ReduceMaxKernel, u64, {1}, false);
  EXPECT_EQ(testing::TensorValues<uint64_t>(max), (std::vector<uint64_t>{kTop, (kTop >> 1) + 2}));
  // (2^62 + 2^62 + 2) / 2 = 2^62 + 1: the sum 2^63 + 2 divides as unsigned.
  EXPECT_EQ(RunReduce(ReduceMeanKernel, u64, {1}, false).data<uint64_t>()[1], (kTop >> 1) + 1);
  EXPECT_EQ(RunReduce(ReduceProdKernel, u64, {1}, false).data<uint64_t>()[0], kTop);  // 3 * 2^63
  EXPECT_EQ(RunReduce(ReduceL1Kernel, u64, {0}, false).data<uint64_t>()[1], 3 + (kTop >> 1) + 2);
  const Tensor empty(DType::kUInt64, {0, 2});
  EXPECT_EQ(RunReduce(ReduceMaxKernel, empty, {0}, false).data<uint64_t>()[0], 0u);
  EXPECT_EQ(RunReduce(ReduceMinKernel, empty, {0}, false).data<uint64_t>()[0], ~uint64_t{0});

  // bfloat16 sums in float32 and rounds once: 256 + 1 + 1 = 258 (a bfloat16
  // value); rounding after each step would stick at 256 (256 + 1 ties to 256).
  const Tensor b =
      Tensor::from_vector<BFloat16>({2, 3}, {BFloat16(256.0f), BFloat16(1.0f), BFloat16(1.0f),
                                             BFloat16(256.0f), BFloat16(1.0f), BFloat16(-0.5f)});
  const Tensor sum = RunReduce(ReduceSumKernel, b, {1}, false);
  ASSERT_EQ(sum.dtype(), DType::kBFloat16);
  EXPECT_EQ(static_cast<float>(sum.data<BFloat16>()[0]), 258.0f);
  EXPECT_EQ(static_cast<float>(sum.data<BFloat16>()[1]), 256.0f);  // 256.5 -> 256
  EXPECT_EQ(static_cast<float>(RunReduce(ReduceMaxKernel, b, {1}, false).data<BFloat16>()[0]),
            256.0f);
  EXPECT_EQ(static_cast<float>(RunReduce(ReduceMinKernel, b, {1}, false).data<BFloat16>()[1]),
            -0.5f);
  // 258 / 3 = 86 exactly.
  EXPECT_EQ(static_cast<float>(RunReduce(ReduceMeanKernel, b, {1}, false).data<BFloat16>()[0]),
            86.0f);
}

TEST(Reduce, EmptySetGivesIdentity) {
  const Tensor x(DType::kFloat32, {3, 0});
  const float inf = std::numeric_limits<float>::infinity();
  auto one = [&](KernelFn fn) { return Values(RunReduce(fn, x, {1}, false)); };
  EXPECT_EQ(one(ReduceSumKernel), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(one(ReduceProdKernel), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(one(ReduceMaxKernel), (std::vector<float>{-inf, -inf, -inf}));
  EXPECT_EQ(one(ReduceMinKernel), (std::vector<float>{inf, inf, inf}));
  EXPECT_EQ(one(ReduceLogSumExpKernel), (std::vector<float>{-inf, -inf, -inf}));
  EXPECT_EQ(one(ReduceL2Kernel), (std::vector<float>{0, 0, 0}));
  EXPECT_TRUE(std::isnan(one(ReduceMeanKernel)[0]));
  const Tensor i = Tensor(DType::kInt32, {0, 2});
  EXPECT_EQ(RunReduce(ReduceMaxKernel, i, {0}, false).data<int32_t>()[1],
            std::numeric_limits<int32_t>::lowest());
  // Reducing the non-empty axis of an empty tensor gives an empty result.
  EXPECT_EQ(RunReduce(ReduceSumKernel, x, {0}, true).shape(), Shape({1, 0}));
}

TEST(Reduce, NanAndInfinities) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // 40 elements so the NaN sits in a vector block, not the scalar tail.
  std::vector<float> v(40, 1.0f);
  v[17] = nan;
  const Tensor x = F32({40}, v);
  for (KernelFn fn : {ReduceMaxKernel, ReduceMinKernel, ReduceSumKernel}) {
    for (Isa isa : SupportedIsas()) {
      EXPECT_TRUE(std::isnan(Values(RunReduce(fn, x, {0}, false, {nullptr, isa}))[0]));
    }
  }
  // +inf and -inf in one lane make its running sum NaN: the max/min fast
  // path must fall back, not report NaN.
  std::vector<float> both(64, 0.5f);
  both[3] = inf;
  both[35] = -inf;
  for (Isa isa : SupportedIsas()) {
    EXPECT_EQ(Values(RunReduce(ReduceMaxKernel, F32({64}, both), {0}, false, {nullptr, isa}))[0],
              inf);
    EXPECT_EQ(Values(RunReduce(ReduceMinKernel, F32({64}, both), {0}, false, {nullptr, isa}))[0],
              -inf);
  }
  // NaN in the column case and in a scalar tail.
  std::vector<float> grid(3 * 70, 2.0f);
  grid[70 + 69] = nan;
  const Tensor g = F32({3, 70}, grid);
  const std::vector<float> col_max = Values(RunReduce(ReduceMaxKernel, g, {0}, false));
  EXPECT_TRUE(std::isnan(col_max[69]));
  EXPECT_EQ(col_max[68], 2.0f);
  const std::vector<float> row_min = Values(RunReduce(ReduceMinKernel, g, {1}, false));
  EXPECT_TRUE(std::isnan(row_min[1]));
  EXPECT_EQ(row_min[2], 2.0f);
  const Tensor neg = F32({3}, {-inf, -inf, -inf});
  EXPECT_EQ(Values(RunReduce(ReduceLogSumExpKernel, neg, {0}, false))[0], -inf);
  const Tensor pos = F32({3}, {1, inf, 2});
  EXPECT_EQ(Values(RunReduce(ReduceLogSumExpKernel, pos, {0}, false))[0], inf);
  const Tensor mixed = F32({3}, {-inf, 0, -inf});
  EXPECT_EQ(Values(RunReduce(ReduceLogSumExpKernel, mixed, {0}, false))[0], 0.0f);
}

TEST(Reduce, AxesFromInputAttributeAndNegative) {
  const Tensor x = RandomTensor(DType::kFloat32, {2, 3, 4}, 1);
  const Tensor expected = ReduceReference("ReduceSum", x, {2}, true);
  // Attribute form (opset < 18) and negative axes.
  Attributes attr_form;
  attr_form.set("axes", std::vector<int64_t>{-1});
  EXPECT_TENSORS_NEAR(CallKernel(ReduceSumKernel, {}, attr_form, {&x})[0], expected, 1e-6, 1e-6);
  // The input wins over the attribute.
  const Tensor axis2 = Axes({2});
  Attributes wrong_attr;
  wrong_attr.set("axes", std::vector<int64_t>{0});
  EXPECT_TENSORS_NEAR(CallKernel(ReduceSumKernel, {}, wrong_attr, {&x, &axis2})[0], expected, 1e-6,
                      1e-6);
  // An absent optional input (null) falls back to the attribute.
  EXPECT_TENSORS_NEAR(CallKernel(ReduceSumKernel, {}, attr_form, {&x, nullptr})[0], expected, 1e-6,
                      1e-6);
  // Axes out of order give the same result as sorted ones.
  EXPECT_TRUE(BitwiseEqual(RunReduce(ReduceMaxKernel, x, {2, 0}, false),
                           RunReduce(ReduceMaxKernel, x, {0, -1}, false)));
}

TEST(Reduce, EmptyAxesReduceAllOrNothing) {
  const Tensor x = F32({2, 2}, {1, -2, 3, -4});
  const Tensor none = Axes({});
  Attributes attrs;
  EXPECT_EQ(Values(CallKernel(ReduceSumKernel, {}, attrs, {&x, &none})[0]),
            (std::vector<float>{-2}));
  EXPECT_EQ(CallKernel(ReduceSumKernel, {}, attrs, {&x})[0].shape(), Shape({1, 1}));
  attrs.set("noop_with_empty_axes", int64_t{1});
  EXPECT_EQ(Values(CallKernel(ReduceSumKernel, {}, attrs, {&x, &none})[0]),
            (std::vector<float>{1, -2, 3, -4}));
  // Each element reduced alone, as the ONNX reference implementation does.
  EXPECT_EQ(Values(CallKernel(ReduceSumSquareKernel, {}, attrs, {&x})[0]),
            (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(Values(CallKernel(ReduceL1Kernel, {}, attrs, {&x})[0]),
            (std::vector<float>{1, 2, 3, 4}));
}

TEST(Reduce, ErrorsNameOpInputAndValues) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              RunReduce(ReduceSumKernel, x, {1, -1}, true);
            }),
            "ReduceSum: input 'axes' names axis 1 more than once (rank 2)");
  EXPECT_EQ(testing::ErrorMessageOf([&] { RunReduce(ReduceMaxKernel, x, {2}, true); }),
            "ReduceMax: axis 2 is out of range for rank 2");
  const Tensor b(DType::kBool, {2});
  EXPECT_EQ(testing::ErrorMessageOf([&] { RunReduce(ReduceSumKernel, b, {0}, true); }),
            "ReduceSum: input 'data' must have dtype one of float32, float64, bfloat16, int32, "
            "uint32, int64, uint64 (got bool)");
  const Tensor i = Tensor::from_vector<int32_t>({2}, {1, 2});
  EXPECT_EQ(testing::ErrorMessageOf([&] { RunReduce(ReduceLogSumExpKernel, i, {0}, true); }),
            "ReduceLogSumExp: input 'data' must have dtype one of float32, float64, bfloat16 (got "
            "int32)");
  const Tensor axes32 = Tensor::from_vector<int32_t>({1}, {0});
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              CallKernel(ReduceL1Kernel, {}, {}, {&x, &axes32});
            }),
            "ReduceL1: input 'axes' must have dtype int64 (got int32)");
  const Tensor axes2d = Tensor::from_vector<int64_t>({1, 1}, {0});
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              CallKernel(ReduceL1Kernel, {}, {}, {&x, &axes2d});
            }),
            "ReduceL1: input 'axes' must have rank 1 (got shape [1, 1])");
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallKernel(ReduceProdKernel, {}, {}, {}); }),
            "ReduceProd: expected 1 to 2 inputs, got 0");
}

// Shapes with edge sizes: 1, primes, non-multiples of the vector width,
// zero-sized dimensions.
const std::vector<std::vector<int64_t>>& TestShapes() {
  static const std::vector<std::vector<int64_t>> shapes = {
      {},           {1},       {7},      {33},      {3, 5},     {1, 31},
      {31, 1},      {4, 0, 3}, {0, 5},   {2, 3, 5}, {5, 1, 37}, {3, 1, 2, 17},
      {2, 7, 3, 5}, {13, 67},  {67, 13}, {2, 1031}, {1031, 3},  {4, 2, 3, 2, 5},
  };
  return shapes;
}

// Every subset of axes for rank <= 3, a few for higher ranks.
std::vector<std::vector<int>> AxisSets(int rank) {
  std::vector<std::vector<int>> sets;
  const int limit = 1 << rank;
  for (int mask = 0; mask < limit; ++mask) {
    if (rank > 3 && mask % 3 != 0 && mask != limit - 2) continue;
    std::vector<int> axes;
    for (int a = 0; a < rank; ++a) {
      if (mask & (1 << a)) axes.push_back(a);
    }
    sets.push_back(axes);
  }
  return sets;
}

double RangeFor(const std::string& op) { return op == "ReduceProd" ? 0.3 : 1.0; }

void CheckAgainstReference(DType dtype, const std::vector<Isa>& isas,
                           const std::vector<int>& thread_counts) {
  uint32_t seed = 100;
  for (const OpCase& op : AllOps()) {
    const bool is_int = !dtype_is_float(dtype);
    if (is_int && std::string(op.name) == "ReduceLogSumExp") continue;
    for (const auto& dims : TestShapes()) {
      const Shape shape(dims);
      const double range = is_int ? 5 : RangeFor(op.name);
      // Products near 1 stay representable over ~1000 factors.
      const Tensor x = std::string(op.name) == "ReduceProd" && !is_int
                           ? RandomTensor(dtype, shape, ++seed, 1 - range, 1 + range)
                           : RandomTensor(dtype, shape, ++seed, -range, range);
      const Tensor xp = std::string(op.name) == "ReduceProd" && is_int
                            ? RandomTensor(dtype, shape, seed, -1, 1)
                            : x;
      for (const std::vector<int>& axes : AxisSets(shape.rank())) {
        if (axes.empty()) continue;  // empty means "all" to the kernel
        for (bool keepdims : {true, false}) {
          const Tensor expected = ReduceReference(op.name, xp, axes, keepdims);
          const std::vector<int64_t> axes64(axes.begin(), axes.end());
          int64_t count = 1;
          for (int a : axes) count *= shape.dim(a);
          double rtol = 1e-5;
          double atol = (dtype == DType::kFloat32 ? 2e-6 : 1e-12) * (count + 1);
          if (dtype == DType::kBFloat16) {
            // Both round the result to bfloat16, from a float32 and a double
            // sum: at most one step (2^-7 relative) apart.
            rtol = 8e-3;
            atol = 2e-6 * (count + 1);
          }
          for (int threads : thread_counts) {
            auto pool = PoolWithThreads(threads);
            for (Isa isa : isas) {
              const Tensor y = RunReduce(op.fn, xp, axes64, keepdims, {pool.get(), isa});
              const std::string mismatch = testing::CompareTensors(y, expected, rtol, atol);
              ASSERT_TRUE(mismatch.empty())
                  << op.name << " " << dtype_name(dtype) << " shape " << shape.to_string()
                  << " axes " << ::testing::PrintToString(axes) << " keepdims " << keepdims
                  << " isa " << IsaName(isa) << " threads " << threads << ": " << mismatch;
            }
          }
        }
      }
    }
  }
}

TEST(Reduce, Float32MatchesReferenceForEveryIsaAndThreadCount) {
  CheckAgainstReference(DType::kFloat32, SupportedIsas(),
                        std::vector<int>(std::begin(kThreadCounts), std::end(kThreadCounts)));
}

TEST(Reduce, OtherDtypesMatchReference) {
  for (DType dtype : {DType::kFloat64, DType::kInt32, DType::kInt64, DType::kUInt32, DType::kUInt64,
                      DType::kBFloat16}) {
    CheckAgainstReference(dtype, {Isa::kPortable}, {1, 3});
  }
  // uint64 over its whole range: Max, Min and Sum past int64's max.
  std::mt19937_64 rng(3);
  std::vector<uint64_t> values(5 * 67 * 3);
  for (uint64_t& v : values) v = rng();
  const Tensor wide = Tensor::from_vector<uint64_t>({5, 67, 3}, values);
  for (const std::vector<int>& axes : AxisSets(3)) {
    if (axes.empty()) continue;
    const std::vector<int64_t> axes64(axes.begin(), axes.end());
    for (const char* op : {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean"}) {
      const KernelFn fn = std::string(op) == "ReduceMax"   ? ReduceMaxKernel
                          : std::string(op) == "ReduceMin" ? ReduceMinKernel
                          : std::string(op) == "ReduceSum" ? ReduceSumKernel
                                                           : ReduceMeanKernel;
      EXPECT_TRUE(
          BitwiseEqual(RunReduce(fn, wide, axes64, true), ReduceReference(op, wide, axes, true)))
          << op << " " << ::testing::PrintToString(axes);
    }
  }
  // int8 / uint8: Max and Min only.
  for (DType dtype : {DType::kInt8, DType::kUInt8}) {
    const Tensor x = RandomTensor(dtype, {5, 67, 3}, 9, -100, 100);
    for (const std::vector<int>& axes : AxisSets(3)) {
      if (axes.empty()) continue;
      const std::vector<int64_t> axes64(axes.begin(), axes.end());
      EXPECT_TRUE(BitwiseEqual(RunReduce(ReduceMaxKernel, x, axes64, true),
                               ReduceReference("ReduceMax", x, axes, true)));
      EXPECT_TRUE(BitwiseEqual(RunReduce(ReduceMinKernel, x, axes64, false),
                               ReduceReference("ReduceMin", x, axes, false)));
    }
  }
}

TEST(Reduce, LargeReductionsMatchReference) {
  // A full reduction long enough to be split into blocks, a long strided
  // one, and the column case wider than one column block.
  auto pool = PoolWithThreads(3);
  const Tensor x = RandomTensor(DType::kFloat32, {3, 70001}, 4);
  const Tensor w = RandomTensor(DType::kFloat32, {37, 2100}, 5);
  for (Isa isa : SupportedIsas()) {
    for (const OpCase& op : AllOps()) {
      if (std::string(op.name) == "ReduceProd") continue;
      for (const auto& [t, axes] : std::vector<std::pair<Tensor, std::vector<int>>>{
               {x, {0, 1}}, {x, {1}}, {x, {0}}, {w, {0}}, {w, {1}}}) {
        const std::vector<int64_t> axes64(axes.begin(), axes.end());
        SCOPED_TRACE(std::string(op.name) + " " + std::string(IsaName(isa)));
        const Tensor y = RunReduce(op.fn, t, axes64, true, {pool.get(), isa});
        EXPECT_TENSORS_NEAR(y, ReduceReference(op.name, t, axes, true), 1e-5, 1e-3);
      }
    }
  }
}

TEST(Reduce, BitExactAcrossThreadCounts) {
  // Splits are over outputs or fixed blocks, never the thread count.
  const Tensor full = RandomTensor(DType::kFloat32, {210001}, 6);
  const Tensor rows = RandomTensor(DType::kFloat32, {301, 517}, 7);
  const Tensor cols = RandomTensor(DType::kFloat32, {41, 19, 3000}, 8);
  const std::vector<std::pair<const Tensor*, std::vector<int64_t>>> cases = {
      {&full, {0}}, {&rows, {1}}, {&rows, {0}}, {&cols, {1}}, {&cols, {0, 2}}};
  for (const OpCase& op : AllOps()) {
    for (Isa isa : SupportedIsas()) {
      for (const auto& [x, axes] : cases) {
        Tensor first;
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor y = RunReduce(op.fn, *x, axes, false, {pool.get(), isa});
          if (threads == 1) {
            first = y;
          } else {
            EXPECT_TRUE(BitwiseEqual(y, first)) << op.name << " " << IsaName(isa) << " threads "
                                                << threads << " shape " << x->shape().to_string();
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace loom::kernels
