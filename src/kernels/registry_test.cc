#include "kernels/registry.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/attention/attention_micro_kernel.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/conv_depthwise.h"
#include "kernels/elementwise/elementwise_vector_math.h"
#include "kernels/gemm/gemm.h"
#include "kernels/nchwc/nchwc_micro_kernel.h"
#include "kernels/normalization/softmax_primitives.h"
#include "kernels/pool/pool_common.h"
#include "kernels/quant/int_gemm.h"
#include "kernels/quant/qlinear_conv_vnni.h"
#include "kernels/quant/quant_common.h"
#include "kernels/reduce/reduce_primitives.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

// The `isas` column says what the families' variant tables say: an op's
// levels are those of the tables its kernel selects from (isa_variant.h),
// and an op that selects from none is portable only. A new ISA row in a
// family's table fails here until the registry names it too.
TEST(Registry, IsaColumnIsWhatTheFamiliesSelectFrom) {
  const IsaMask gemm = GemmIsaLevels();
  const IsaMask math = F32MathIsaLevels();
  const IsaMask reduce = F32ReduceIsaLevels();
  const IsaMask pool = F32PoolIsaLevels();
  const IsaMask softmax = F32SoftmaxIsaLevels();
  const IsaMask attention = AttentionIsaLevels();
  const IsaMask nchwc = NchwcIsaLevels();
  const IsaMask depthwise = DepthwiseRowIsaLevels();
  const IsaMask int_gemm = Int16GemmIsaLevels();
  const IsaMask spans = quant::QuantSpanIsaLevels();
  const IsaMask qlinear_conv = QLinearConvPreparedIsaLevels();
  std::map<std::string_view, IsaMask> expected;
  const auto set = [&](std::initializer_list<std::string_view> ops, IsaMask levels) {
    for (std::string_view op : ops) expected[op] = levels;
  };
  set({"ArgMax", "ArgMin", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
       "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"},
      reduce);
  set({"Attention", "LoomAttention"}, attention);
  set({"AveragePool", "GlobalAveragePool", "GlobalMaxPool", "MaxPool"}, pool);
  set({"Ceil", "Clip", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu",
       "Log", "Relu", "Sigmoid", "Silu", "Tanh"},
      math);
  set({"Conv"}, gemm | math | depthwise);
  set({"ConvTranspose", "DeformConv", "Einsum"}, gemm);
  set({"FusedMatMul", "Gemm", "MatMul", "GRU", "LSTM", "RNN"}, gemm | math);
  set({"NchwcConv"}, nchwc | math);
  set({"NchwcAveragePool", "NchwcChannelAffine", "NchwcGlobalAveragePool", "NchwcGlobalMaxPool",
       "NchwcMaxPool", "NchwcReorderInput", "NchwcReorderOutput"},
      nchwc);
  set({"ConvInteger", "MatMulInteger", "QLinearMatMul"}, int_gemm);
  set({"QLinearConv"}, int_gemm | qlinear_conv);
  set({"LoomQLinearAdd", "QuantizeLinear"}, spans);
  set({"LogSoftmax", "Softmax"}, softmax);
  for (const auto& [op, levels] : expected) EXPECT_NE(FindKernel(op), nullptr) << op;
  for (const KernelRegistration& r : KernelRegistry()) {
    const auto it = expected.find(r.op);
    const IsaMask want = it == expected.end() ? IsaBit(Isa::kPortable) : it->second;
    EXPECT_EQ(static_cast<int>(r.isas), static_cast<int>(want)) << r.op;
  }
}

// Every family picks its variant the same way (isa_variant.h): the best
// level not above the one asked for, and an error, not SIGILL, for a level
// this CPU lacks.
TEST(IsaVariant, PicksTheBestLevelNotAboveTheOneAskedFor) {
  struct Entry {
    Isa isa;
    int id;
  };
  const Entry table[] = {{Isa::kAvx2Fma, 2}, {Isa::kPortable, 0}};
  const std::span<const Entry> entries(table);
  EXPECT_EQ(SelectIsaVariant("t", entries, Isa::kPortable).id, 0);
  EXPECT_EQ(IsaVariantLevels(entries), IsaBit(Isa::kPortable) | IsaBit(Isa::kAvx2Fma));
  if (IsaSupported(Isa::kAvx2Fma)) {
    EXPECT_EQ(SelectIsaVariant("t", entries, Isa::kAvx2Fma).id, 2);
  }
  if (IsaSupported(Isa::kAvx512f)) {
    EXPECT_EQ(SelectIsaVariant("t", entries, Isa::kAvx512f).id, 2);  // no row of its own
  } else {
    try {
      SelectIsaVariant("t", entries, Isa::kAvx512f);
      FAIL() << "an unsupported level was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_STREQ(e.what(), "t: ISA avx512f is not supported by this CPU");
    }
  }
  // `accept` narrows the table; nothing left is an error naming the family.
  const auto none = [](const Entry& e) { return e.id > 5; };
  EXPECT_THROW(SelectIsaVariant("t", entries, Isa::kPortable, none), InvalidArgumentError);
  const Entry only_avx2[] = {{Isa::kAvx2Fma, 2}};
  try {
    SelectIsaVariant("t", std::span<const Entry>(only_avx2), Isa::kPortable);
    FAIL() << "a table without a portable row answered for portable";
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(e.what(), "t: no variant for ISA portable");
  }
}

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
