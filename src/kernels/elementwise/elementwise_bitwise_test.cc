// BitwiseAnd/Or/Xor/Not, BitShift and PRelu: hand-computed cases, every
// dtype against the plain references on edge shapes at 1, 2, 3 and 7
// threads (bit-identical), and the error messages.
#include "kernels/elementwise/elementwise_bitwise.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_bitwise_reference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::TensorValues;

const Attributes kLeft = Attributes().set("direction", std::string("LEFT"));
const Attributes kRight = Attributes().set("direction", std::string("RIGHT"));

TEST(Bitwise, HandComputedValues) {
  const Tensor a = Tensor::from_vector<int32_t>({3}, {0b1100, -1, 5});
  const Tensor b = Tensor::from_vector<int32_t>({3}, {0b1010, 7, 0});
  EXPECT_EQ(TensorValues<int32_t>(CallSingleOutput(BitwiseAndKernel, {&a, &b})),
            (std::vector<int32_t>{0b1000, 7, 0}));
  EXPECT_EQ(TensorValues<int32_t>(CallSingleOutput(BitwiseOrKernel, {&a, &b})),
            (std::vector<int32_t>{0b1110, -1, 5}));
  EXPECT_EQ(TensorValues<int32_t>(CallSingleOutput(BitwiseXorKernel, {&a, &b})),
            (std::vector<int32_t>{0b0110, -8, 5}));
  EXPECT_EQ(TensorValues<int32_t>(CallSingleOutput(BitwiseNotKernel, {&a})),
            (std::vector<int32_t>{-13, 0, -6}));
  const Tensor u = Tensor::from_vector<uint8_t>({2}, {0x0f, 0xff});
  EXPECT_EQ(TensorValues<uint8_t>(CallSingleOutput(BitwiseNotKernel, {&u})),
            (std::vector<uint8_t>{0xf0, 0x00}));
}

TEST(Bitwise, BroadcastsRowAgainstMatrix) {
  const Tensor a = Tensor::from_vector<uint64_t>({2, 2}, {0xff, 0xf0, 0x0f, 0x00});
  const Tensor b = Tensor::from_vector<uint64_t>({2}, {0x3c, 0xffffffffffffffffull});
  const Tensor y = CallSingleOutput(BitwiseAndKernel, {&a, &b});
  EXPECT_EQ(y.shape(), Shape({2, 2}));
  EXPECT_EQ(TensorValues<uint64_t>(y), (std::vector<uint64_t>{0x3c, 0xf0, 0x0c, 0x00}));
}

TEST(BitShift, LeftAndRightWithOversizedShifts) {
  const Tensor x = Tensor::from_vector<uint8_t>({4}, {16, 4, 1, 255});
  const Tensor y = Tensor::from_vector<uint8_t>({4}, {1, 2, 8, 200});
  EXPECT_EQ(TensorValues<uint8_t>(CallSingleOutput(BitShiftKernel, {&x, &y}, kLeft)),
            (std::vector<uint8_t>{32, 16, 0, 0}));
  EXPECT_EQ(TensorValues<uint8_t>(CallSingleOutput(BitShiftKernel, {&x, &y}, kRight)),
            (std::vector<uint8_t>{8, 1, 0, 0}));
  const Tensor big = Tensor::from_vector<uint64_t>({2}, {1, 0x8000000000000000ull});
  const Tensor by = Tensor::from_vector<uint64_t>({2}, {63, 64});
  EXPECT_EQ(TensorValues<uint64_t>(CallSingleOutput(BitShiftKernel, {&big, &by}, kLeft)),
            (std::vector<uint64_t>{0x8000000000000000ull, 0}));
  EXPECT_EQ(TensorValues<uint64_t>(CallSingleOutput(BitShiftKernel, {&big, &by}, kRight)),
            (std::vector<uint64_t>{0, 0}));
}

TEST(PRelu, HandComputedValues) {
  const Tensor x = Tensor::from_vector<float>({2, 3}, {-2, 0, 3, -1, -4, 5});
  const Tensor slope = Tensor::from_vector<float>({3}, {0.5f, 2, 3});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(PReluKernel, {&x, &slope})),
            (std::vector<float>{-1, 0, 3, -0.5f, -8, 5}));
  const Tensor xi = Tensor::from_vector<int64_t>({3}, {-3, 4, -1});
  const Tensor si = Tensor::from_vector<int64_t>({1}, {2});
  EXPECT_EQ(TensorValues<int64_t>(CallSingleOutput(PReluKernel, {&xi, &si})),
            (std::vector<int64_t>{-6, 4, -2}));
}

const std::vector<std::vector<int64_t>> kShapePairs[] = {
    {{7}, {7}}, {{3, 5}, {5}}, {{3, 1}, {1, 4}},       {{2, 3, 17}, {1}}, {{0, 3}, {3}},
    {{1}, {1}}, {{}, {}},      {{5, 2, 3}, {5, 1, 3}}, {{2, 31}, {2, 1}}};

TEST(Bitwise, MatchesReferenceForEveryDTypeAndThreadCount) {
  const DType dtypes[] = {DType::kInt8,  DType::kUInt8,  DType::kInt16, DType::kUInt16,
                          DType::kInt32, DType::kUInt32, DType::kInt64, DType::kUInt64};
  const std::pair<const char*, KernelFn> ops[] = {{"BitwiseAnd", BitwiseAndKernel},
                                                  {"BitwiseOr", BitwiseOrKernel},
                                                  {"BitwiseXor", BitwiseXorKernel}};
  uint32_t seed = 1;
  for (DType dtype : dtypes) {
    for (const auto& shapes : kShapePairs) {
      const Tensor a = RandomTensor(dtype, Shape(shapes[0]), ++seed, -100, 100);
      const Tensor b = RandomTensor(dtype, Shape(shapes[1]), ++seed, -100, 100);
      const Tensor not_expected = BitwiseReference("BitwiseNot", {}, a, nullptr);
      for (const auto& [name, fn] : ops) {
        const Tensor expected = BitwiseReference(name, {}, a, &b);
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          EXPECT_TRUE(BitwiseEqual(CallSingleOutput(fn, {&a, &b}, {}, pool.get()), expected))
              << name << " " << dtype_name(dtype) << " threads " << threads;
        }
      }
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(
            BitwiseEqual(CallSingleOutput(BitwiseNotKernel, {&a}, {}, pool.get()), not_expected));
      }
    }
  }
}

TEST(BitShift, MatchesReferenceForEveryDTypeAndThreadCount) {
  uint32_t seed = 50;
  for (DType dtype : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    for (const auto& shapes : kShapePairs) {
      const Tensor x = RandomTensor(dtype, Shape(shapes[0]), ++seed, 0, 200);
      const Tensor y = RandomTensor(dtype, Shape(shapes[1]), ++seed, 0, 70);  // past the width too
      for (const Attributes& attrs : {kLeft, kRight}) {
        const Tensor expected = BitwiseReference("BitShift", attrs, x, &y);
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          EXPECT_TRUE(
              BitwiseEqual(CallSingleOutput(BitShiftKernel, {&x, &y}, attrs, pool.get()), expected))
              << dtype_name(dtype) << " threads " << threads;
        }
      }
    }
  }
}

TEST(PRelu, MatchesReferenceForEveryDTypeAndThreadCount) {
  const std::vector<std::vector<int64_t>> pairs[] = {
      {{7}, {7}}, {{3, 5}, {5}}, {{2, 3, 17}, {1}}, {{0, 3}, {3}}, {{4, 3, 2}, {3, 1}}, {{}, {}}};
  uint32_t seed = 90;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                      DType::kInt32, DType::kInt64, DType::kUInt32, DType::kUInt64}) {
    for (const auto& shapes : pairs) {
      const Tensor x = RandomTensor(dtype, Shape(shapes[0]), ++seed, -50, 50);
      const Tensor slope = RandomTensor(dtype, Shape(shapes[1]), ++seed, -3, 3);
      const Tensor expected = PReluReference(x, slope);
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(
            BitwiseEqual(CallSingleOutput(PReluKernel, {&x, &slope}, {}, pool.get()), expected))
            << dtype_name(dtype) << " " << x.shape().to_string() << " threads " << threads;
      }
    }
  }
}

TEST(Bitwise, Errors) {
  const Tensor f = Tensor::from_vector<float>({2}, {1, 2});
  const Tensor i32 = Tensor::from_vector<int32_t>({2}, {1, 2});
  const Tensor i64 = Tensor::from_vector<int64_t>({2}, {1, 2});
  const Tensor i3 = Tensor::from_vector<int32_t>({3}, {1, 2, 3});
  const Tensor u8 = Tensor::from_vector<uint8_t>({2}, {1, 2});
  EXPECT_NE(KernelErrorOf(BitwiseAndKernel, {&f, &f}).find("BitwiseAnd: input 'A'"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(BitwiseOrKernel, {&i32, &i64}).find("BitwiseOr:"), std::string::npos);
  EXPECT_NE(KernelErrorOf(BitwiseXorKernel, {&i32, &i3}).find("cannot be broadcast"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(BitwiseNotKernel, {&f}).find("BitwiseNot: input 'X'"), std::string::npos);
  EXPECT_NE(KernelErrorOf(BitShiftKernel, {&u8, &u8}).find("'direction'"), std::string::npos);
  EXPECT_NE(
      KernelErrorOf(BitShiftKernel, {&u8, &u8}, Attributes().set("direction", std::string("UP")))
          .find("\"UP\""),
      std::string::npos);
  EXPECT_NE(KernelErrorOf(BitShiftKernel, {&i32, &i32}, kLeft).find("BitShift: input 'X'"),
            std::string::npos);
}

TEST(PRelu, Errors) {
  const Tensor x = Tensor::from_vector<float>({2}, {1, 2});
  const Tensor wide = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  const Tensor d = Tensor::from_vector<double>({2}, {1, 2});
  const Tensor i8 = Tensor::from_vector<int8_t>({2}, {1, 2});
  EXPECT_EQ(KernelErrorOf(PReluKernel, {&x, &wide}),
            "PRelu: input 'slope' [2, 2] must broadcast to the shape of input 'X' [2] (got "
            "[2, 2])");
  EXPECT_NE(KernelErrorOf(PReluKernel, {&x, &d}).find("PRelu:"), std::string::npos);
  EXPECT_NE(KernelErrorOf(PReluKernel, {&i8, &i8}).find("PRelu: input 'X'"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
