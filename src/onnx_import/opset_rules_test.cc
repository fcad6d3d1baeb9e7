// The version rules (opset_adapter.h): every version of every ONNX op Loom
// runs has a decision, and the rewrites of versions older than the newest
// give the results ONNX defines for them (worked out by hand here).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "kernels/registry.h"
#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/onnx_op_versions.h"
#include "onnx_import/opset_adapter.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

bool IsSinceVersion(const OnnxOpVersions& history, int version) {
  for (int k = 0; k < history.count; ++k) {
    if (history.since[k] == version) return true;
  }
  return false;
}

TEST(OpVersionRules, SortedAndEachRowSpansRealVersionsOfAnOnnxOp) {
  const std::span<const OpVersionRule> rules = OpVersionRules();
  for (size_t i = 0; i < rules.size(); ++i) {
    const OpVersionRule& rule = rules[i];
    const OnnxOpVersions* history = FindOnnxOp(rule.op);
    ASSERT_NE(history, nullptr) << rule.op;
    EXPECT_TRUE(IsSinceVersion(*history, rule.first)) << rule.op << " " << rule.first;
    EXPECT_TRUE(IsSinceVersion(*history, rule.last)) << rule.op << " " << rule.last;
    EXPECT_LE(rule.first, rule.last) << rule.op;
    EXPECT_FALSE(rule.difference.empty()) << rule.op;
    if (i == 0) continue;
    const OpVersionRule& previous = rules[i - 1];
    EXPECT_LE(previous.op, rule.op);
    if (previous.op == rule.op) {
      EXPECT_LT(previous.last, rule.first) << rule.op;  // no overlap
    }
  }
}

// The coverage promise: an ONNX model of opset 7 to the newest that uses
// only ops with a Loom kernel never meets a version nobody decided on.
TEST(OpVersionRules, EveryVersionOfEveryKernelOpFromOpsetSevenHasARule) {
  for (const kernels::KernelRegistration& kernel : kernels::KernelRegistry()) {
    if (kernels::IsInternalOp(kernel.op) || FindOnnxOp(kernel.op) == nullptr) continue;
    for (int opset = 7; opset <= kNewestOnnxOpset; ++opset) {
      const std::optional<int> version = OpVersionAtOpset(kernel.op, opset);
      if (!version) continue;  // the op does not exist yet
      EXPECT_NE(FindVersionRule(kernel.op, *version), nullptr)
          << kernel.op << " version " << *version << " (opset " << opset << ")";
    }
  }
}

TEST(OpVersionRules, ReplacedOpsHaveNoKernelButRules) {
  for (std::string_view op : {"Dropout", "Scatter", "Swish", "Upsample"}) {
    EXPECT_TRUE(AdapterReplacesOp(op));
    EXPECT_EQ(kernels::FindKernel(op), nullptr) << op;
    EXPECT_NE(FindVersionRule(op, *OpVersionAtOpset(op, kNewestOnnxOpset)), nullptr) << op;
  }
  EXPECT_FALSE(AdapterReplacesOp("Relu"));
}

TEST(OpVersionRules, VersionsWithoutARuleAreRefusedByName) {
  // Add-1 had consumed_inputs; Gelu does not exist before opset 20; Silu is
  // Loom's, not ONNX's.
  TestModel old_add(1);
  old_add.Input("x", kFloat, {2});
  old_add.Node("Add", {"x", "x"}, {"y"});
  old_add.Output("y", kFloat, {2});
  std::string error = LoadError(old_add.Serialize());
  EXPECT_TRUE(
      Contains(error, "Add version 1 (opset 1): not supported; Loom reads it from version 6"))
      << error;

  TestModel early_gelu(19);
  early_gelu.Input("x", kFloat, {2});
  early_gelu.Node("Gelu", {"x"}, {"y"});
  early_gelu.Output("y", kFloat, {2});
  error = LoadError(early_gelu.Serialize());
  EXPECT_TRUE(Contains(error, "Gelu: does not exist at opset 19 (it was introduced at opset 20)"))
      << error;

  TestModel silu(24);
  silu.Input("x", kFloat, {2});
  silu.Node("Silu", {"x"}, {"y"});
  silu.Output("y", kFloat, {2});
  error = LoadError(silu.Serialize());
  EXPECT_TRUE(Contains(error, "Silu: not an operator of the default ONNX domain")) << error;
}

std::vector<float> RunOutput(const TestModel& m, const std::map<std::string, Tensor>& feeds,
                             size_t output = 0) {
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  return Values(session.run(feeds)[output]);
}

const Tensor kA23 = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(OpVersionRules, LegacyBroadcastWithAxisAlignsBAtTheAxis) {
  // Opset 6: Mul(A [2, 3], B [2], broadcast=1, axis=0) multiplies row i by
  // B[i]; numpy broadcasting alone would align B with the last axis (and
  // fail: 2 vs 3). B constant and B an input of declared rank.
  for (bool constant : {true, false}) {
    TestModel m(6);
    m.Input("a", kFloat, {2, 3});
    if (constant) {
      m.Initializer(Tensor::from_vector<float>({2}, {10, 100}), "b");
    } else {
      m.Input("b", kFloat, {2});
    }
    SetInt(SetInt(m.Node("Mul", {"a", "b"}, {"y"}), "broadcast", 1), "axis", 0);
    m.Output("y", kFloat, {2, 3});
    std::map<std::string, Tensor> feeds = {{"a", kA23}};
    if (!constant) feeds.emplace("b", Tensor::from_vector<float>({2}, {10, 100}));
    EXPECT_EQ(RunOutput(m, feeds), (std::vector<float>{10, 20, 30, 400, 500, 600})) << constant;
  }
  // Without an axis, B aligns at the end, as numpy's rule does.
  TestModel tail(6);
  tail.Input("a", kFloat, {2, 3});
  tail.Initializer(Tensor::from_vector<float>({3}, {1, 0, -1}), "b");
  SetInt(tail.Node("Add", {"a", "b"}, {"y"}), "broadcast", 1);
  tail.Output("y", kFloat, {2, 3});
  EXPECT_EQ(RunOutput(tail, {{"a", kA23}}), (std::vector<float>{2, 2, 2, 5, 5, 5}));
}

TEST(OpVersionRules, DropoutIsTheIdentityWithAnAllTrueMask) {
  TestModel m(13);
  m.Input("x", kFloat, {2, 3});
  m.Initializer(Tensor::from_vector<float>({}, {0.5f}), "ratio");
  m.Node("Dropout", {"x", "ratio"}, {"y", "mask"});
  m.Output("y", kFloat, {2, 3});
  m.Output("mask", onnx::TensorProto::BOOL, {2, 3});
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  const std::vector<Tensor> out = session.run({{"x", kA23}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(out[1].dtype(), DType::kBool);
  ASSERT_EQ(out[1].shape(), Shape({2, 3}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_TRUE(out[1].data<bool>()[i]);

  // Training mode from an input drops random elements: refused.
  TestModel training(13);
  training.Input("x", kFloat, {2});
  training.Input("t", onnx::TensorProto::BOOL, {});
  training.Initializer(Tensor::from_vector<float>({}, {0.5f}), "ratio");
  training.Node("Dropout", {"x", "ratio", "t"}, {"y"});
  training.Output("y", kFloat, {2});
  EXPECT_TRUE(
      Contains(LoadError(training.Serialize()), "training_mode other than a constant false"))
      << LoadError(training.Serialize());
  // ... unless the ratio is 0, which drops nothing.
  TestModel zero(13);
  zero.Input("x", kFloat, {2, 3});
  zero.Input("t", onnx::TensorProto::BOOL, {});
  zero.Initializer(Tensor::from_vector<float>({}, {0.0f}), "ratio");
  zero.Node("Dropout", {"x", "ratio", "t"}, {"y"});
  zero.Output("y", kFloat, {2, 3});
  EXPECT_EQ(RunOutput(zero, {{"x", kA23}, {"t", Tensor::from_vector<bool>({}, {true})}}),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(OpVersionRules, BatchNormalizationSpatialZeroIsRefused) {
  TestModel m(7);
  m.Input("x", kFloat, {1, 2, 2});
  for (const char* name : {"s", "b", "mean", "var"}) {
    m.Initializer(Tensor::from_vector<float>({2}, {1, 1}), name);
  }
  SetInt(m.Node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}), "spatial", 0);
  m.Output("y", kFloat, {1, 2, 2});
  EXPECT_TRUE(Contains(LoadError(m.Serialize()), "spatial = 0")) << LoadError(m.Serialize());
}

TEST(OpVersionRules, AttributeFormsOfBoundsRun) {
  // Clip-6 min/max, Pad-2 pads/value and Slice-1 starts/ends/axes are
  // attributes; the kernels read them.
  TestModel clip(6);
  clip.Input("x", kFloat, {2, 3});
  SetFloat(SetFloat(clip.Node("Clip", {"x"}, {"y"}), "min", 2.0f), "max", 4.5f);
  clip.Output("y", kFloat, {2, 3});
  EXPECT_EQ(RunOutput(clip, {{"x", kA23}}), (std::vector<float>{2, 2, 3, 4, 4.5f, 4.5f}));

  TestModel pad(2);
  pad.Input("x", kFloat, {2, 3});
  SetFloat(SetInts(pad.Node("Pad", {"x"}, {"y"}), "pads", {0, 1, 0, 0}), "value", -1.0f);
  pad.Output("y", kFloat, {2, 4});
  EXPECT_EQ(RunOutput(pad, {{"x", kA23}}), (std::vector<float>{-1, 1, 2, 3, -1, 4, 5, 6}));

  TestModel slice(7);  // Slice's version at opset 7 is 1
  slice.Input("x", kFloat, {2, 3});
  SetInts(SetInts(SetInts(slice.Node("Slice", {"x"}, {"y"}), "starts", {1}), "ends", {3}), "axes",
          {1});
  slice.Output("y", kFloat, {2, 2});
  EXPECT_EQ(RunOutput(slice, {{"x", kA23}}), (std::vector<float>{2, 3, 5, 6}));
}

TEST(OpVersionRules, SwishIsSiluOrXTimesSigmoidOfAlphaX) {
  TestModel m(24);
  m.Input("x", kFloat, {2});
  m.Node("Swish", {"x"}, {"y"});
  m.Output("y", kFloat, {2});
  const std::vector<float> y = RunOutput(m, {{"x", Tensor::from_vector<float>({2}, {0.0f, 2.0f})}});
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 2.0 / (1.0 + std::exp(-2.0)), 1e-6);

  TestModel alpha(24);
  alpha.Input("x", kFloat, {2});
  SetFloat(alpha.Node("Swish", {"x"}, {"y"}), "alpha", 2.0f);
  alpha.Output("y", kFloat, {2});
  // Another alpha: x * sigmoid(alpha * x), 2 * sigmoid(4) at x = 2.
  const std::vector<float> y2 =
      RunOutput(alpha, {{"x", Tensor::from_vector<float>({2}, {0.0f, 2.0f})}});
  EXPECT_FLOAT_EQ(y2[0], 0.0f);
  EXPECT_NEAR(y2[1], 2.0 / (1.0 + std::exp(-4.0)), 1e-6);
}

TEST(OpVersionRules, TopKOneReadsKFromItsAttribute) {
  TestModel m(9);  // TopK's version at opset 9 is 1
  m.Input("x", kFloat, {2, 3});
  SetInt(m.Node("TopK", {"x"}, {"v", "i"}), "k", 2);
  m.Output("v", kFloat, {2, 2});
  m.Output("i", onnx::TensorProto::INT64, {2, 2});
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  const std::vector<Tensor> out = session.run({{"x", kA23}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 2, 6, 5}));
  ASSERT_EQ(out[1].dtype(), DType::kInt64);
  EXPECT_EQ(std::vector<int64_t>(out[1].data<int64_t>(), out[1].data<int64_t>() + 4),
            (std::vector<int64_t>{2, 1, 2, 1}));
  TestModel no_k(9);
  no_k.Input("x", kFloat, {2, 3});
  no_k.Node("TopK", {"x"}, {"v", "i"});
  no_k.Output("v", kFloat, {2, 2});
  EXPECT_TRUE(Contains(LoadError(no_k.Serialize()), "attribute 'k' (an int) is required"))
      << LoadError(no_k.Serialize());
}

TEST(OpVersionRules, HardmaxBeforeThirteenCoercesTo2D) {
  // x [2, 2, 2] at axis 1 (the default): each batch row of 4 gets one 1 at
  // its first maximum, across both inner rows (version 13 would give one
  // per column pair).
  const Tensor x = Tensor::from_vector<float>({2, 2, 2}, {1, 5, 5, 2, 7, 0, 3, 9});
  TestModel m(11);
  m.Input("x", kFloat, {2, 2, 2});
  m.Node("Hardmax", {"x"}, {"y"});
  m.Output("y", kFloat, {2, 2, 2});
  EXPECT_EQ(RunOutput(m, {{"x", x}}), (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 1}));
  TestModel last(11);
  last.Input("x", kFloat, {2, 2, 2});
  SetInt(last.Node("Hardmax", {"x"}, {"y"}), "axis", -1);
  last.Output("y", kFloat, {2, 2, 2});
  EXPECT_EQ(RunOutput(last, {{"x", x}}), (std::vector<float>{0, 1, 1, 0, 1, 0, 0, 1}));
}

TEST(OpVersionRules, OneHotNineLeavesNegativeIndicesOff) {
  // Indices [1, -1, 5] with depth 3: version 11 would put -1 at 2.
  for (int opset : {10, 11}) {
    TestModel m(opset);
    m.Input("i", onnx::TensorProto::INT64, {3});
    m.Initializer(Tensor::from_vector<float>({}, {3}), "depth");
    m.Initializer(Tensor::from_vector<float>({2}, {-1, 1}), "values");
    SetInt(m.Node("OneHot", {"i", "depth", "values"}, {"y"}), "axis", 0);
    m.Output("y", kFloat, {3, 3});
    const std::vector<float> y =
        RunOutput(m, {{"i", Tensor::from_vector<int64_t>({3}, {1, -1, 5})}});
    if (opset == 10) {
      EXPECT_EQ(y, (std::vector<float>{-1, -1, -1, 1, -1, -1, -1, -1, -1}));
    } else {
      EXPECT_EQ(y, (std::vector<float>{-1, -1, -1, 1, -1, -1, -1, 1, -1}));
    }
  }
}

TEST(OpVersionRules, ScatterIsScatterElements) {
  TestModel m(10);
  m.Input("x", kFloat, {1, 5});
  m.Initializer(Tensor::from_vector<int64_t>({1, 2}, {1, 3}), "i");
  m.Initializer(Tensor::from_vector<float>({1, 2}, {10, 20}), "u");
  SetInt(m.Node("Scatter", {"x", "i", "u"}, {"y"}), "axis", 1);
  m.Output("y", kFloat, {1, 5});
  EXPECT_EQ(RunOutput(m, {{"x", Tensor::from_vector<float>({1, 5}, {1, 2, 3, 4, 5})}}),
            (std::vector<float>{1, 10, 3, 20, 5}));
}

TEST(OpVersionRules, NewestOpsetModelLoads) {
  // Opset 24, the axes-as-input form of ReduceMean (18).
  TestModel m(24, /*ir_version=*/11);
  m.Input("x", kFloat, {2, 3});
  m.Initializer(Tensor::from_vector<int64_t>({1}, {1}), "axes");
  SetInt(m.Node("ReduceMean", {"x", "axes"}, {"y"}), "keepdims", 0);
  m.Output("y", kFloat, {2});
  EXPECT_EQ(RunOutput(m, {{"x", kA23}}), (std::vector<float>{2, 5}));
}

}  // namespace
}  // namespace loom::onnx_import::testing
