#include "onnx_import/conformance/case_runner.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "onnx_import/conformance/testing/test_models.h"

namespace loom::conformance {
namespace {

namespace fs = std::filesystem;
using testing::DataSet;
using testing::Proto;
using testing::SingleNodeModel;
using testing::WriteCase;

Tensor Floats(std::vector<float> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return Tensor::from_vector<float>({n}, values);
}

class CaseRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("case_runner_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) /
           "node" / "test_case";
  }
  void TearDown() override { fs::remove_all(dir_.parent_path().parent_path()); }

  CaseResult Run() {
    CaseList list = FindCases(dir_.string());
    EXPECT_EQ(list.cases.size(), 1u);
    return RunCase(list.cases.at(0));
  }

  // z = x - y on float32[4]: feeding x and y the wrong way round shows.
  static onnx::ModelProto SubModel() {
    return SingleNodeModel(
        "Sub", {{"x", onnx::TensorProto::FLOAT, {4}}, {"y", onnx::TensorProto::FLOAT, {4}}},
        {{"z", onnx::TensorProto::FLOAT, {4}}});
  }

  fs::path dir_;
};

TEST_F(CaseRunnerTest, MatchingOutputsPassEveryDataSet) {
  WriteCase(dir_.string(), SubModel(),
            {{{Proto(Floats({5, 6, 7, 8}), "x"), Proto(Floats({1, 2, 3, 4}), "y")},
              {Proto(Floats({4, 4, 4, 4}), "z")}},
             {{Proto(Floats({0, 0, 0, 1}), "x"), Proto(Floats({0.5f, 0, 0, 0}), "y")},
              {Proto(Floats({-0.5f, 0, 0, 1}), "z")}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kPassed) << result.reason;
  EXPECT_EQ(result.id, "node/test_case");
  EXPECT_EQ(result.data_sets_run, 2);
  EXPECT_EQ(result.op_types, std::vector<std::string>{"Sub"});
  EXPECT_TRUE(result.reason.empty());
}

TEST_F(CaseRunnerTest, NamelessTensorsFollowGraphOrder) {
  // Named the wrong way round would give -4s; nameless ones go in order.
  WriteCase(dir_.string(), SubModel(),
            {{{Proto(Floats({5, 6, 7, 8})), Proto(Floats({1, 2, 3, 4}))},
              {Proto(Floats({4, 4, 4, 4}))}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kPassed) << result.reason;
}

TEST_F(CaseRunnerTest, NamesOutrankOrder) {
  WriteCase(dir_.string(), SubModel(),
            {{{Proto(Floats({1, 2, 3, 4}), "y"), Proto(Floats({5, 6, 7, 8}), "x")},
              {Proto(Floats({4, 4, 4, 4}), "z")}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kPassed) << result.reason;
}

TEST_F(CaseRunnerTest, MismatchFailsNamingDataSetOutputAndElement) {
  WriteCase(
      dir_.string(), SubModel(),
      {{{Proto(Floats({5, 6, 7, 8})), Proto(Floats({1, 2, 3, 4}))}, {Proto(Floats({4, 4, 4, 4}))}},
       {{Proto(Floats({5, 6, 7, 8})), Proto(Floats({1, 2, 3, 4}))},
        {Proto(Floats({4, 4, 4.1f, 4}))}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kFailed);
  EXPECT_EQ(result.data_sets_run, 1);
  EXPECT_EQ(result.reason.rfind("data set 1: output 'z': 1 of 4 elements differ; first at index 2 "
                                "(2): expected 4.0999999",
                                0),
            0u)
      << result.reason;
}

TEST_F(CaseRunnerTest, ShapeAndDTypeOfExpectedOutputMustMatch) {
  WriteCase(dir_.string(), SubModel(),
            {{{Proto(Floats({5, 6, 7, 8})), Proto(Floats({1, 2, 3, 4}))},
              {Proto(Tensor::from_vector<float>({2, 2}, {4, 4, 4, 4}))}}});
  CaseResult shape = Run();
  EXPECT_EQ(shape.status, CaseStatus::kFailed);
  EXPECT_EQ(shape.reason, "data set 0: output 'z': shape differs: expected [2, 2], got [4]");

  WriteCase(dir_.string(), SubModel(),
            {{{Proto(Floats({5, 6, 7, 8})), Proto(Floats({1, 2, 3, 4}))},
              {Proto(Tensor::from_vector<double>({4}, {4, 4, 4, 4}))}}});
  CaseResult dtype = Run();
  EXPECT_EQ(dtype.status, CaseStatus::kFailed);
  EXPECT_EQ(dtype.reason, "data set 0: output 'z': dtype differs: expected float64, got float32");
}

TEST_F(CaseRunnerTest, OpWithoutKernelIsUnsupported) {
  WriteCase(dir_.string(), SingleNodeModel("ImageDecoder", {{"x"}}, {{"y"}}),
            {{{Proto(Floats({1}))}, {Proto(Floats({1}))}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kUnsupported) << result.reason;
  EXPECT_EQ(result.reason, "op ImageDecoder");
  EXPECT_EQ(result.unsupported, std::vector<std::string>{"op ImageDecoder"});
  EXPECT_EQ(result.op_types, std::vector<std::string>{"ImageDecoder"});
}

TEST_F(CaseRunnerTest, OpVersionWithoutARuleIsUnsupported) {
  // Abs at opset 1 is Abs-1 (with consumed_inputs), which Loom does not read.
  WriteCase(dir_.string(),
            SingleNodeModel("Abs", {{"x", onnx::TensorProto::FLOAT, {1}}},
                            {{"y", onnx::TensorProto::FLOAT, {1}}}, 1),
            {{{Proto(Floats({1}))}, {Proto(Floats({1}))}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kUnsupported) << result.reason;
  EXPECT_EQ(result.reason, "op Abs version 1");
}

TEST_F(CaseRunnerTest, DTypeTheKernelLacksIsUnsupportedWithTheMessage) {
  // Sqrt has float kernels only.
  Tensor x = Tensor::from_vector<int32_t>({2}, {4, 9});
  WriteCase(dir_.string(),
            SingleNodeModel("Sqrt", {{"x", onnx::TensorProto::INT32, {2}}},
                            {{"y", onnx::TensorProto::INT32, {2}}}),
            {{{Proto(x)}, {Proto(Tensor::from_vector<int32_t>({2}, {2, 3}))}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kUnsupported) << result.reason;
  EXPECT_NE(result.reason.find("int32"), std::string::npos) << result.reason;
  EXPECT_TRUE(result.unsupported.empty());
}

TEST_F(CaseRunnerTest, CorruptModelFails) {
  testing::WriteBytes((dir_ / "model.onnx").string(), "\x08\x07\x12\xff\xff garbage");
  testing::WriteBytes((dir_ / "test_data_set_0" / "input_0.pb").string(), "");
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kFailed);
  EXPECT_EQ(result.reason.rfind("load: ", 0), 0u) << result.reason;
  EXPECT_TRUE(result.op_types.empty());
}

TEST_F(CaseRunnerTest, CorruptDataFileFails) {
  WriteCase(dir_.string(), SubModel(), {});
  testing::WriteBytes((dir_ / "test_data_set_0" / "input_0.pb").string(), "\xff\xff\xff\xff");
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kFailed);
  EXPECT_EQ(result.reason, "data set 0: input_0.pb is not a TensorProto");
}

TEST_F(CaseRunnerTest, RunErrorFails) {
  // Feeding [3] where the model declares [4].
  WriteCase(dir_.string(), SubModel(),
            {{{Proto(Floats({5, 6, 7})), Proto(Floats({1, 2, 3}))}, {Proto(Floats({4, 4, 4}))}}});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kFailed);
  EXPECT_EQ(result.reason.rfind("data set 0: run: ", 0), 0u) << result.reason;
}

TEST_F(CaseRunnerTest, CaseWithoutDataSetsFails) {
  WriteCase(dir_.string(), SubModel(), {});
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kFailed);
  EXPECT_EQ(result.reason, "no test_data_set_* folder");
}

TEST_F(CaseRunnerTest, DataOfAnElementTypeLoomLacksIsUnsupported) {
  WriteCase(dir_.string(), SubModel(), {});
  onnx::TensorProto complex;
  complex.set_data_type(onnx::TensorProto::COMPLEX64);
  complex.add_dims(1);
  complex.add_float_data(1);
  complex.add_float_data(2);
  testing::WriteBytes((dir_ / "test_data_set_0" / "input_0.pb").string(),
                      complex.SerializeAsString());
  CaseResult result = Run();
  EXPECT_EQ(result.status, CaseStatus::kUnsupported);
  EXPECT_EQ(result.reason, "data set 0: input_0.pb has element type COMPLEX64, which Loom lacks");
}

}  // namespace
}  // namespace loom::conformance
