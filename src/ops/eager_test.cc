#include <gtest/gtest.h>

#include <string>

#include "kernels/conv/conv.h"
#include "kernels/gemm/matmul.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "loom/ops.h"
#include "loom/runtime.h"
#include "platform/testing/fresh_process.h"
#include "platform/testing/sanitizer_threads.h"
#include "platform/thread_identity.h"

namespace loom {
namespace {

using kernels::testing::RandomTensor;

TEST(EagerOps, FirstOpStartsTheRuntimeAndFreezesTheConfiguration) {
  platform::testing::ExpectInFreshProcess([] {
    ASSERT_FALSE(runtime_started());  // a process of its own
    const int intra = config::threading::get_intra_op_parallelism_threads();
    const Tensor a = RandomTensor(DType::kFloat32, {3, 4}, 1);
    ops::relu(a);
    EXPECT_TRUE(runtime_started());
    EXPECT_THROW(config::threading::set_intra_op_parallelism_threads(intra + 1), RuntimeError);
  });
}

TEST(EagerOps, ResultsMatchTheReferences) {
  const Tensor a = RandomTensor(DType::kFloat32, {2, 33, 70}, 2);
  const Tensor b = RandomTensor(DType::kFloat32, {70, 45}, 3);
  EXPECT_TENSORS_NEAR(ops::matmul(a, b), kernels::MatMulReference(a, b), 1e-5, 1e-4);

  const Tensor x = RandomTensor(DType::kFloat32, {1, 8, 15, 15}, 4);
  const Tensor w = RandomTensor(DType::kFloat32, {16, 4, 3, 3}, 5);
  const Tensor bias = RandomTensor(DType::kFloat32, {16}, 6);
  ops::ConvOptions options;
  options.strides = {2, 2};
  options.pads = {1, 1, 1, 1};
  options.group = 2;
  Attributes attrs;
  attrs.set("strides", std::vector<int64_t>{2, 2})
      .set("pads", std::vector<int64_t>{1, 1, 1, 1})
      .set("group", int64_t{2});
  EXPECT_TENSORS_NEAR(ops::conv2d(x, w, &bias, options), kernels::ConvReference(attrs, x, w, &bias),
                      1e-5, 1e-4);
}

TEST(EagerOps, HandComputedSmallOps) {
  const Tensor x = Tensor::from_vector<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  EXPECT_TENSORS_NEAR(ops::relu(x), Tensor::from_vector<float>({2, 3}, {1, 0, 3, 0, 5, 0}), 0, 0);
  EXPECT_TENSORS_NEAR(ops::reduce_sum(x, {1}, false), Tensor::from_vector<float>({2}, {2, -5}), 0,
                      0);
  EXPECT_TENSORS_NEAR(ops::add(x, Tensor::from_vector<float>({3}, {10, 20, 30})),
                      Tensor::from_vector<float>({2, 3}, {11, 18, 33, 6, 25, 24}), 0, 0);
  EXPECT_TENSORS_NEAR(ops::transpose(x), Tensor::from_vector<float>({3, 2}, {1, -4, -2, 5, 3, -6}),
                      0, 0);
  EXPECT_EQ(ops::reshape(x, {3, -1}).shape(), Shape({3, 2}));
  EXPECT_EQ(ops::cast(x, DType::kInt64).dtype(), DType::kInt64);
  const Tensor s = ops::softmax(Tensor::from_vector<float>({2}, {0, 0}));
  EXPECT_TENSORS_NEAR(s, Tensor::from_vector<float>({2}, {0.5f, 0.5f}), 1e-6, 0);
  ops::PoolOptions pool;
  pool.kernel_shape = {2, 2};
  pool.strides = {2, 2};
  const Tensor image = Tensor::from_vector<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_TENSORS_NEAR(ops::max_pool(image, pool), Tensor::from_vector<float>({1, 1, 1, 2}, {6, 8}),
                      0, 0);
}

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

TEST(EagerOps, ErrorsNameTheOpTheInputAndExpectedVersusActual) {
  const Tensor a(DType::kFloat32, {2, 3});
  const Tensor b(DType::kFloat32, {4, 5});
  EXPECT_EQ(ErrorOf([&] { ops::matmul(a, b); }),
            "MatMul: inner dimensions differ: A [2, 3] has K = 3, B [4, 5] has K = 4");
  EXPECT_EQ(ErrorOf([&] { ops::conv2d(a, b); }),
            "Conv: conv2d needs input 'X' of rank 4 [N, C, H, W] (got shape [2, 3])");
  const Tensor ints(DType::kInt8, {1, 1, 3, 3});
  EXPECT_EQ(ErrorOf([&] { ops::conv2d(ints, ints); }),
            "Conv: no kernel for dtype int8 (supported: float32)");
  EXPECT_EQ(ErrorOf([&] { ops::run("NoSuchOp", {a}); }),
            "no operator 'NoSuchOp' (supported_ops() lists them)");
}

// No kernel may start a thread of its own (no OpenMP, no threaded BLAS):
// after a mix of heavy ops the process holds exactly the runtime's threads.
TEST(EagerOps, KernelsCreateNoThreadsBeyondTheRuntimes) {
  const Tensor x = RandomTensor(DType::kFloat32, {2, 16, 40, 40}, 7);
  const Tensor w = RandomTensor(DType::kFloat32, {32, 16, 3, 3}, 8);
  ops::ConvOptions conv;
  conv.pads = {1, 1, 1, 1};
  Tensor y = ops::relu(ops::conv2d(x, w, nullptr, conv));
  ops::PoolOptions pool;
  pool.kernel_shape = {2, 2};
  pool.strides = {2, 2};
  y = ops::global_average_pool(ops::max_pool(y, pool));
  y = ops::softmax(ops::flatten(y));
  ops::matmul(RandomTensor(DType::kFloat32, {300, 200}, 9),
              RandomTensor(DType::kFloat32, {200, 300}, 10));
  ops::reduce_sum(RandomTensor(DType::kFloat32, {500, 500}, 11), {0});

  const size_t intra_workers =
      static_cast<size_t>(config::threading::get_intra_op_parallelism_threads() - 1);
  // Eager ops use the intra-op pool only; the inter-op pool is created by
  // the first session on the global pools (none in this test binary).
  const size_t inter_workers = 0;
  size_t intra = 0, inter = 0, others = 0;
  for (const platform::OsThread& t : platform::ListProcessThreads()) {
    if (t.name.rfind("loom-intra-", 0) == 0) {
      ++intra;
    } else if (t.name.rfind("loom-inter-", 0) == 0) {
      ++inter;
    } else {
      ++others;
    }
  }
  EXPECT_EQ(intra, intra_workers);
  EXPECT_EQ(inter, inter_workers);
  EXPECT_TRUE(platform::ThreadCountMatches(others, 1)) << others << " threads not Loom's";
}

TEST(EagerOps, GenericRunAndOpList) {
  const std::vector<std::string> list = ops::supported_ops();
  EXPECT_NE(std::find(list.begin(), list.end(), "Conv"), list.end());
  const Tensor x = Tensor::from_vector<float>({3}, {-1, 0, 2});
  const std::vector<Tensor> out = ops::run("LeakyRelu", {x}, {{"alpha", 0.5f}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TENSORS_NEAR(out[0], Tensor::from_vector<float>({3}, {-0.5f, 0, 2}), 0, 0);
  EXPECT_FALSE(ops::kernel_isa().empty());
}

}  // namespace
}  // namespace loom
