// The import rewrites of GroupNormalization-18 (per-group scale and bias),
// of a Dropout whose mode and ratio are run-time inputs (LoomDropout) and of
// LpPool-1's float p, run end to end on values worked out by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

TEST(AddedOpRules, GroupNormalization18ExpandsPerGroupScaleAndBias) {
  // X [1, 4, 1] in 2 groups of 2 channels: {1, 3} and {5, 7}, each mean
  // m +- 1 with variance 1, so xhat = -1, 1, -1, 1 (epsilon 0). Group 0
  // scale 2, bias 0; group 1 scale 3, bias 10.
  TestModel m(18);
  m.Input("x", kFloat, {1, 4, 1});
  m.Initializer(Tensor::from_vector<float>({2}, {2, 3}), "scale");
  m.Initializer(Tensor::from_vector<float>({2}, {0, 10}), "bias");
  SetFloat(SetInt(m.Node("GroupNormalization", {"x", "scale", "bias"}, {"y"}), "num_groups", 2),
           "epsilon", 0.0f);
  m.Output("y", kFloat, {1, 4, 1});
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  const std::vector<Tensor> out =
      session.run({{"x", Tensor::from_vector<float>({1, 4, 1}, {1, 3, 5, 7})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-2, 2, 7, 13}));
}

TEST(AddedOpRules, DropoutWithRunTimeModeDecidesWhenItRuns) {
  TestModel m(13);
  m.Input("x", kFloat, {3});
  m.Input("r", kFloat, {});
  m.Input("t", kBool, {});
  m.Node("Dropout", {"x", "r", "t"}, {"y", "mask"});
  m.Output("y", kFloat, {3});
  m.Output("mask", kBool, {3});
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  const Tensor x = Tensor::from_vector<float>({3}, {1, -2, 3});
  const auto run = [&](float ratio, bool training) {
    return session.run({{"x", x},
                        {"r", Tensor::from_vector<float>({}, {ratio})},
                        {"t", Tensor::from_vector<bool>({}, {training})}});
  };
  for (const auto& [ratio, training] : {std::pair{0.0f, true}, std::pair{0.5f, false}}) {
    const std::vector<Tensor> out = run(ratio, training);
    EXPECT_EQ(Values(out[0]), (std::vector<float>{1, -2, 3}));
    ASSERT_EQ(out[1].dtype(), DType::kBool);
    for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE(out[1].data<bool>()[i]);
  }
  try {
    run(0.5f, true);
    ADD_FAILURE() << "training with ratio 0.5 ran";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "is not supported")) << e.what();
  }
}

TEST(AddedOpRules, LpPoolOneReadsAWholeFloatP) {
  TestModel m(1);
  m.Input("x", kFloat, {1, 1, 2});
  SetFloat(SetInts(m.Node("LpPool", {"x"}, {"y"}), "kernel_shape", {2}), "p", 2.0f);
  m.Output("y", kFloat, {1, 1, 1});
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  EXPECT_EQ(Values(session.run({{"x", Tensor::from_vector<float>({1, 1, 2}, {3, -4})}})[0]),
            (std::vector<float>{5}));  // sqrt(9 + 16)

  TestModel fractional(1);
  fractional.Input("x", kFloat, {1, 1, 2});
  SetFloat(SetInts(fractional.Node("LpPool", {"x"}, {"y"}), "kernel_shape", {2}), "p", 2.5f);
  fractional.Output("y", kFloat, {1, 1, 1});
  EXPECT_TRUE(Contains(LoadError(fractional.Serialize()), "p = 2.500000 is not supported"))
      << LoadError(fractional.Serialize());
}

TEST(AddedOpRules, PRelu6AppliesAOneDimensionalSlopePerChannel) {
  // X [1, 2, 3]: channel 0 gets slope 0.5, channel 1 slope -2 (as PyTorch's
  // PReLU(2) does); 7's right-aligned broadcast would refuse [2] against 3.
  TestModel m(6);
  m.Input("x", kFloat, {1, 2, 3});
  m.Initializer(Tensor::from_vector<float>({2}, {0.5f, -2}), "slope");
  m.Node("PRelu", {"x", "slope"}, {"y"});
  m.Output("y", kFloat, {1, 2, 3});
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  const std::vector<Tensor> out =
      session.run({{"x", Tensor::from_vector<float>({1, 2, 3}, {-2, 4, -6, -1, 3, -5})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-1, 4, -3, 2, 3, 10}));

  // A 2-D X: the slope already lines up with axis 1, nothing to change.
  TestModel flat(6);
  flat.Input("x", kFloat, {2, 2});
  flat.Initializer(Tensor::from_vector<float>({2}, {0.5f, -2}), "slope");
  flat.Node("PRelu", {"x", "slope"}, {"y"});
  flat.Output("y", kFloat, {2, 2});
  Session flat_session(load_onnx_model_from_bytes(flat.Serialize()));
  EXPECT_EQ(
      Values(flat_session.run({{"x", Tensor::from_vector<float>({2, 2}, {-2, -1, 4, -3})}})[0]),
      (std::vector<float>{-1, 2, 4, 6}));
}

}  // namespace
}  // namespace loom::onnx_import::testing
