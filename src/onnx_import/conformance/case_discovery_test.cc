#include "onnx_import/conformance/case_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "loom/errors.h"

namespace loom::conformance {
namespace {

namespace fs = std::filesystem;

class CaseDiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("case_discovery_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Touch(const fs::path& relative) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << "x";
  }

  fs::path root_;
};

TEST_F(CaseDiscoveryTest, FindsCasesInSuiteOrderWithDataSetsInNumericOrder) {
  Touch("simple/test_b/model.onnx");
  Touch("node/test_z/model.onnx");
  Touch("node/test_a/model.onnx");
  Touch("node/test_a/test_data_set_10/input_0.pb");
  Touch("node/test_a/test_data_set_2/input_0.pb");
  Touch("node/test_a/test_data_set_x/input_0.pb");  // not a data set
  Touch("real/test_resnet50/data.json");            // no model
  Touch("other/test_ignored/model.onnx");           // not a suite

  CaseList list = FindCases(root_.string());
  ASSERT_EQ(list.cases.size(), 3u);
  EXPECT_EQ(list.cases[0].id(), "node/test_a");
  EXPECT_EQ(list.cases[1].id(), "node/test_z");
  EXPECT_EQ(list.cases[2].id(), "simple/test_b");
  EXPECT_EQ(list.cases[0].dir, (root_ / "node/test_a").string());
  ASSERT_EQ(list.cases[0].data_sets.size(), 2u);
  EXPECT_EQ(list.cases[0].data_sets[0], (root_ / "node/test_a/test_data_set_2").string());
  EXPECT_EQ(list.cases[0].data_sets[1], (root_ / "node/test_a/test_data_set_10").string());
  EXPECT_EQ(list.without_model, std::vector<std::string>{"real/test_resnet50"});
}

TEST_F(CaseDiscoveryTest, RootMayBeOneSuiteOrOneCase) {
  Touch("node/test_a/model.onnx");
  Touch("node/test_b/model.onnx");
  CaseList suite = FindCases((root_ / "node").string() + "/");
  ASSERT_EQ(suite.cases.size(), 2u);
  EXPECT_EQ(suite.cases[1].id(), "node/test_b");

  CaseList one = FindCases((root_ / "node/test_b").string());
  ASSERT_EQ(one.cases.size(), 1u);
  EXPECT_EQ(one.cases[0].id(), "node/test_b");
}

TEST_F(CaseDiscoveryTest, MissingRootIsAnError) {
  EXPECT_THROW(FindCases((root_ / "absent").string()), InvalidArgumentError);
  Touch("file");
  EXPECT_THROW(FindCases((root_ / "file").string()), InvalidArgumentError);
}

TEST_F(CaseDiscoveryTest, DataFilesInNumericOrder) {
  for (int k : {0, 1, 2, 10, 3, 4, 5, 6, 7, 8, 9}) Touch("set/input_" + std::to_string(k) + ".pb");
  Touch("set/output_0.pb");
  Touch("set/input_x.pb");
  Touch("set/input_-1.pb");
  std::vector<std::string> inputs = DataFiles((root_ / "set").string(), "input");
  ASSERT_EQ(inputs.size(), 11u);
  EXPECT_EQ(inputs[9], (root_ / "set/input_9.pb").string());
  EXPECT_EQ(inputs[10], (root_ / "set/input_10.pb").string());
  EXPECT_EQ(DataFiles((root_ / "set").string(), "output").size(), 1u);
  EXPECT_TRUE(DataFiles((root_ / "set").string(), "missing").empty());
}

TEST_F(CaseDiscoveryTest, GapInDataFilesIsAnError) {
  Touch("set/input_0.pb");
  Touch("set/input_2.pb");
  try {
    DataFiles((root_ / "set").string(), "input");
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("input_1.pb is missing"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::conformance
