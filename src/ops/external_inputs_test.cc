// Kernels on borrowed memory (Tensor::from_external, as the Python package
// passes NumPy arrays): buffers that end exactly where their data ends and
// start off the 64-byte grid. The ASan build turns any read past an input's
// last element (a full-vector tail load, a cache-line-rounded pass) into a
// failure; every build checks that results do not depend on where the
// inputs live.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "loom/ops.h"

namespace loom {
namespace {

using kernels::testing::RandomTensor;

struct Case {
  std::string op;
  std::vector<Tensor> inputs;
  Attributes attributes;
};

// `tensor`'s elements in a heap block of exactly element size + nbytes
// bytes, starting one element in: aligned to the element, not to 64 bytes,
// and with nothing readable after the last element.
Tensor BorrowedCopy(const Tensor& tensor) {
  const size_t offset = dtype_size(tensor.dtype());
  std::shared_ptr<char[]> block(new char[offset + tensor.nbytes()]);
  char* data = block.get() + offset;
  if (tensor.nbytes() > 0) std::memcpy(data, tensor.raw_data(), tensor.nbytes());
  return Tensor::from_external(tensor.dtype(), tensor.shape(), data, block);
}

Tensor F32(Shape shape, uint32_t seed) {
  return RandomTensor(DType::kFloat32, std::move(shape), seed);
}

std::vector<Case> Cases() {
  using Ints = std::vector<int64_t>;
  return {
      {"MatMul", {F32({3, 37}, 1), F32({37, 19}, 2)}, {}},
      {"MatMul", {F32({2, 5, 17}, 3), F32({17, 9}, 4)}, {}},
      {"MatMul", {F32({1, 67}, 5), F32({67, 33}, 6)}, {}},
      {"Gemm", {F32({4, 23}, 7), F32({13, 23}, 8), F32({13}, 9)}, {{"transB", int64_t{1}}}},
      {"Conv",
       {F32({1, 5, 13, 11}, 10), F32({7, 5, 3, 3}, 11), F32({7}, 12)},
       {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}},
      {"Conv", {F32({2, 16, 9, 7}, 13), F32({24, 16, 1, 1}, 14)}, {}},
      {"Conv",
       {F32({1, 8, 10, 9}, 15), F32({8, 1, 3, 3}, 16), F32({8}, 17)},
       {{"group", int64_t{8}}, {"pads", Ints{1, 1, 1, 1}}}},
      {"MaxPool",
       {F32({1, 3, 11, 9}, 18)},
       {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}}},
      {"AveragePool",
       {F32({1, 3, 11, 9}, 19)},
       {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}}},
      {"GlobalAveragePool", {F32({2, 5, 7, 3}, 20)}, {}},
      {"Relu", {F32({37}, 21)}, {}},
      {"Sigmoid", {F32({37}, 22)}, {}},
      {"Tanh", {F32({3, 13}, 23)}, {}},
      {"Exp", {F32({29}, 24)}, {}},
      {"Gelu", {F32({31}, 25)}, {}},
      {"Silu", {F32({35}, 26)}, {}},
      {"Add", {F32({3, 37}, 27), F32({37}, 28)}, {}},
      {"Mul", {F32({5, 1, 9}, 29), F32({4, 1}, 30)}, {}},
      {"Div", {F32({19}, 31), RandomTensor(DType::kFloat32, {19}, 32, 1.0, 2.0)}, {}},
      {"Max", {F32({3, 7}, 33), F32({3, 7}, 34)}, {}},
      {"ReduceSum", {F32({5, 37}, 35), Tensor::from_vector<int64_t>({1}, {1})}, {}},
      {"ReduceMax", {F32({3, 11, 5}, 36)}, {{"axes", Ints{0, 2}}}},
      {"Softmax", {F32({5, 37}, 37)}, {}},
      {"LogSoftmax", {F32({3, 33}, 38)}, {}},
      {"LayerNormalization", {F32({4, 21}, 39), F32({21}, 40), F32({21}, 41)}, {}},
      {"BatchNormalization",
       {F32({2, 3, 5, 5}, 42), F32({3}, 43), F32({3}, 44), F32({3}, 45),
        RandomTensor(DType::kFloat32, {3}, 46, 0.5, 1.5)},
       {}},
      {"Transpose", {F32({3, 5, 7}, 47)}, {{"perm", Ints{2, 0, 1}}}},
      {"Concat", {F32({2, 3}, 48), F32({2, 5}, 49)}, {{"axis", int64_t{1}}}},
      {"Flatten", {F32({2, 3, 5}, 50)}, {}},
      {"Cast", {F32({17}, 51)}, {{"to", int64_t{7}}}},  // to int64
      {"Gather", {F32({6, 5}, 52), Tensor::from_vector<int64_t>({3}, {5, 0, 2})}, {}},
      {"Add",
       {RandomTensor(DType::kInt32, {15}, 53, -50, 50),
        RandomTensor(DType::kInt32, {15}, 54, -50, 50)},
       {}},
      {"Sum",
       {RandomTensor(DType::kFloat64, {13}, 55), RandomTensor(DType::kFloat64, {13}, 56)},
       {}},
  };
}

TEST(ExternalInputs, KernelsReadOnlyTheirElementsAndDoNotDependOnAlignment) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.op);
    std::vector<Tensor> borrowed;
    for (const Tensor& input : c.inputs) borrowed.push_back(BorrowedCopy(input));
    const std::vector<Tensor> expected = ops::run(c.op, c.inputs, c.attributes);
    const std::vector<Tensor> actual = ops::run(c.op, borrowed, c.attributes);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      EXPECT_TENSORS_NEAR(actual[i], expected[i], 1e-6, 1e-6);
    }
    // Kernels only read inputs: the borrowed memory is unchanged.
    for (size_t i = 0; i < borrowed.size(); ++i) {
      EXPECT_EQ(std::memcmp(borrowed[i].raw_data(), c.inputs[i].raw_data(), c.inputs[i].nbytes()),
                0);
    }
  }
}

}  // namespace
}  // namespace loom
