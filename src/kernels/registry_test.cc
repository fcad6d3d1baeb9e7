#include "kernels/registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/conv/conv.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

TEST(Registry, SortedUniqueAndComplete) {
  const auto registry = KernelRegistry();
  ASSERT_FALSE(registry.empty());
  for (size_t i = 1; i < registry.size(); ++i) {
    EXPECT_LT(registry[i - 1].op, registry[i].op) << "not sorted or duplicated at " << i;
  }
  for (const KernelRegistration& r : registry) {
    EXPECT_NE(r.fn, nullptr) << r.op;
    EXPECT_NE(r.dtypes, 0) << r.op;
    EXPECT_NE(r.isas & IsaBit(Isa::kPortable), 0) << r.op << " has no portable path";
    EXPECT_EQ(FindKernel(r.op), &r);
  }
  // The op set the kernels issue asks for.
  for (const char* op : {"Conv",        "MatMul",
                         "Gemm",        "MaxPool",
                         "AveragePool", "GlobalAveragePool",
                         "Relu",        "Add",
                         "Softmax",     "BatchNormalization",
                         "ReduceSum",   "Transpose",
                         "Concat",      "Gather",
                         "Pad",         "Where",
                         "Range",       "Cast",
                         "Erf",         "Gelu"}) {
    EXPECT_NE(FindKernel(op), nullptr) << op;
  }
  EXPECT_EQ(FindKernel("NoSuchOp"), nullptr);
}

TEST(Registry, PrepareStagesBindConstantWeightsOnly) {
  std::vector<std::string> with_prepare;
  for (const KernelRegistration& r : KernelRegistry()) {
    if (r.prepare != nullptr) with_prepare.emplace_back(r.op);
  }
  EXPECT_EQ(with_prepare, (std::vector<std::string>{"Conv", "FusedMatMul", "GRU", "Gemm", "LSTM",
                                                    "MatMul", "NchwcConv", "QLinearConv", "RNN"}));

  const Tensor w = testing::RandomTensor(DType::kFloat32, Shape({4, 3, 3, 3}), 1);
  const Attributes attrs;
  const bool present[] = {true, true};
  const Tensor* constant_w[] = {nullptr, &w};
  const Tensor* computed_w[] = {nullptr, nullptr};
  const KernelRegistration* conv = FindKernel("Conv");
  std::unique_ptr<PreparedKernel> prepared =
      conv->prepare({attrs, constant_w, present, Isa::kPortable});
  ASSERT_NE(prepared, nullptr);
  EXPECT_STREQ(prepared->kind(), "prepared conv");
  // The prepared kernel computes what the plain one does.
  const Tensor x = testing::RandomTensor(DType::kFloat32, Shape({1, 3, 5, 5}), 2);
  const Tensor* inputs[] = {&x, &w};
  EXPECT_TRUE(testing::BitwiseEqual(prepared->Run({nullptr, Isa::kPortable}, inputs)[0],
                                    ConvKernel({nullptr, Isa::kPortable}, attrs, inputs)[0]));
  // Weights computed at run time: nothing to prepare.
  EXPECT_EQ(conv->prepare({attrs, computed_w, present, Isa::kPortable}), nullptr);
  const bool three_present[] = {true, true, true};
  const Tensor* matmul_inputs[] = {nullptr, &w, nullptr};
  EXPECT_EQ(FindKernel("MatMul")->prepare({attrs, matmul_inputs, three_present, Isa::kPortable}),
            nullptr);  // a 4-D B and a third input: not a prepared MatMul
}

TEST(Registry, LookupNamesTheSupportedDtypes) {
  EXPECT_EQ(LookupKernel("Conv", DType::kFloat32), FindKernel("Conv")->fn);
  try {
    LookupKernel("Conv", DType::kInt8);
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(e.what(), "Conv: no kernel for dtype int8 (supported: float32)");
  }
  EXPECT_THROW(LookupKernel("NoSuchOp", DType::kFloat32), InvalidArgumentError);
}

TEST(Registry, RunKernelPrefixesErrorsWithTheOp) {
  const Tensor x(DType::kFloat32, {1, 1, 4, 4});
  const Tensor* inputs[] = {&x};
  Attributes attrs;
  attrs.set("kernel_shape", 2.0f);  // the wrong kind
  try {
    RunKernel(*FindKernel("MaxPool"), {}, attrs, inputs);
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(e.what(), "MaxPool: attribute 'kernel_shape' must be of kind ints, got float");
  }
}

// Robustness over the whole table: no inputs at all, or inputs of a dtype
// the op does not take, are InvalidArgumentErrors naming the op — never a
// crash (ASan/UBSan runs this too).
TEST(Registry, EveryKernelRejectsMissingOrMistypedInputsCleanly) {
  const KernelContext ctx{nullptr, Isa::kPortable};
  for (const KernelRegistration& r : KernelRegistry()) {
    if (r.op == "Constant") continue;  // takes no inputs, only an attribute
    try {
      CallKernel(r.fn, ctx, {}, {});
      ADD_FAILURE() << r.op << " accepted no inputs";
    } catch (const InvalidArgumentError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(std::string(r.op) + ":", 0), 0u)
          << r.op << " error does not start with the op name: " << e.what();
    }
    for (int d = 0; d < kNumDTypes; ++d) {
      const DType dtype = static_cast<DType>(d);
      if ((r.dtypes & DTypeBit(dtype)) != 0) continue;
      const Tensor t = testing::RandomTensor(dtype, {2, 3, 4, 4}, 1);
      EXPECT_THROW(CallKernel(r.fn, ctx, {}, {&t, &t, &t}), InvalidArgumentError)
          << r.op << " with " << dtype_name(dtype);
    }
  }
}

}  // namespace
}  // namespace loom::kernels
