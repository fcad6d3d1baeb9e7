#include "onnx_import/conformance/report.h"

#include <gtest/gtest.h>

#include "base/testing/json.h"

namespace loom::conformance {
namespace {

CaseResult Result(std::string id, CaseStatus status, std::vector<std::string> ops,
                  std::string reason = "", std::vector<std::string> unsupported = {}) {
  CaseResult r;
  r.id = std::move(id);
  r.status = status;
  r.op_types = std::move(ops);
  r.reason = std::move(reason);
  r.unsupported = std::move(unsupported);
  return r;
}

std::vector<CaseResult> SampleResults() {
  return {
      Result("node/test_add", CaseStatus::kPassed, {"Add"}),
      Result("node/test_add_relu", CaseStatus::kFailed, {"Add", "Relu"}, "output 'y': differs"),
      Result("node/test_loop", CaseStatus::kUnsupported, {"Add", "Loop"}, "op Loop", {"op Loop"}),
      Result("node/test_relu", CaseStatus::kFailed, {"Relu"}, "run: boom"),
      Result("node/test_scan", CaseStatus::kUnsupported, {"Scan"}, "op Scan", {"op Scan"}),
      Result("node/test_loop2", CaseStatus::kUnsupported, {"Loop"}, "op Loop", {"op Loop"}),
  };
}

TEST(Report, CountsTotalsAndEveryOpOfEachCase) {
  Report report = Summarize(SampleResults(), {{"node/test_relu", {"kernel bug"}}});
  EXPECT_EQ(report.passed, 1);
  EXPECT_EQ(report.failed, 2);
  EXPECT_EQ(report.known, 1);
  EXPECT_EQ(report.unsupported, 3);
  const OpCounts& add = report.per_op.at("Add");
  EXPECT_EQ(add.passed, 1);
  EXPECT_EQ(add.failed, 1);
  EXPECT_EQ(add.known, 0);
  EXPECT_EQ(add.unsupported, 1);
  const OpCounts& relu = report.per_op.at("Relu");
  EXPECT_EQ(relu.failed, 2);
  EXPECT_EQ(relu.known, 1);
  EXPECT_EQ(report.per_op.at("Loop").unsupported, 2);
  EXPECT_EQ(report.unsupported_items.at("op Loop"), 2);
  EXPECT_EQ(report.unsupported_items.at("op Scan"), 1);
}

TEST(Report, UnlistedFailureIsARegression) {
  Report report = Summarize(SampleResults(), {{"node/test_relu", {"kernel bug"}}});
  EXPECT_EQ(report.regressions, std::vector<std::string>{"node/test_add_relu"});
  EXPECT_TRUE(report.now_passing.empty());
  EXPECT_FALSE(report.ok());
}

TEST(Report, ListedCaseThatPassesOrIsUnsupportedMustLeaveTheList) {
  Report report = Summarize(SampleResults(), {{"node/test_relu", {"a"}},
                                              {"node/test_add_relu", {"b"}},
                                              {"node/test_add", {"c"}},
                                              {"node/test_scan", {"d"}},
                                              {"node/test_not_run", {"e"}}});
  EXPECT_TRUE(report.regressions.empty());
  EXPECT_EQ(report.now_passing, (std::vector<std::string>{"node/test_add", "node/test_scan"}));
  EXPECT_FALSE(report.ok());
}

TEST(Report, MayPassEntryMayPassButNotBecomeUnsupported) {
  const KnownFailures known = {{"node/test_relu", {"a", true}},
                               {"node/test_add_relu", {"b"}},
                               {"node/test_add", {"c", true}},
                               {"node/test_scan", {"d", true}}};
  Report report = Summarize(SampleResults(), known);
  EXPECT_TRUE(report.regressions.empty());
  // test_add passed and may; test_relu failed as listed; test_scan is now
  // unsupported, which a may-pass entry does not excuse.
  EXPECT_EQ(report.now_passing, std::vector<std::string>{"node/test_scan"});
  EXPECT_EQ(report.known, 2);
  const std::string text = FormatText(report, known, {});
  EXPECT_NE(text.find("remove them from the list):\n  node/test_scan: unsupported\n\n"),
            std::string::npos)
      << text;
}

TEST(Report, AllFailuresListedIsOk) {
  Report report =
      Summarize(SampleResults(), {{"node/test_relu", {"a"}}, {"node/test_add_relu", {"b"}}});
  EXPECT_TRUE(report.ok());
  const std::string text = FormatText(
      report, {{"node/test_relu", {"a"}}, {"node/test_add_relu", {"b"}}}, {.list_failures = true});
  EXPECT_NE(text.find("6 cases: 1 passed, 2 failed (2 known), 3 unsupported -> OK"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  node/test_relu [known]: run: boom\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" op Loop (2); op Scan (1)\n"), std::string::npos) << text;
}

TEST(Report, TextNamesRegressionsWithReasons) {
  Report report = Summarize(SampleResults(), {});
  const std::string text = FormatText(report, {}, {});
  EXPECT_NE(text.find("FAILED and not in the known-failures list:\n"
                      "  node/test_add_relu: output 'y': differs\n"
                      "  node/test_relu: run: boom\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-> FAIL"), std::string::npos) << text;
}

TEST(Report, ListFailuresGivesReasonsOnceAndMarksKnownOnes) {
  KnownFailures known = {{"node/test_relu", {"a"}}};
  const std::string text =
      FormatText(Summarize(SampleResults(), known), known, {.list_failures = true});
  EXPECT_NE(text.find("failed cases:\n"
                      "  node/test_add_relu: output 'y': differs\n"
                      "  node/test_relu [known]: run: boom\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("FAILED and not in the known-failures list:\n  node/test_add_relu\n"),
            std::string::npos)
      << text;
}

TEST(Report, JsonHasTotalsOpsAndCases) {
  KnownFailures known = {{"node/test_relu", {"a"}}};
  loom::testing::Json j =
      loom::testing::Json::parse(FormatJson(Summarize(SampleResults(), known), known));
  EXPECT_EQ(j["totals"]["cases"], 6);
  EXPECT_EQ(j["totals"]["passed"], 1);
  EXPECT_EQ(j["totals"]["failed"], 2);
  EXPECT_EQ(j["totals"]["known_failures"], 1);
  EXPECT_EQ(j["totals"]["unsupported"], 3);
  EXPECT_EQ(j["ops"][0]["op"], "Add");
  EXPECT_EQ(j["cases"][3]["id"], "node/test_relu");
  EXPECT_EQ(j["cases"][3]["status"], "failed");
  EXPECT_EQ(j["cases"][3]["known_failure"], true);
  EXPECT_EQ(j["regressions"], loom::testing::Json::array({"node/test_add_relu"}));
  EXPECT_EQ(j["ok"], false);
}

TEST(Report, JsonSurvivesInvalidUtf8InReasons) {
  std::vector<CaseResult> results = {
      Result("node/test_x", CaseStatus::kFailed, {"Add"}, std::string("bad \xff byte"))};
  loom::testing::Json j = loom::testing::Json::parse(FormatJson(Summarize(results, {}), {}));
  EXPECT_EQ(j["totals"]["failed"], 1);
}

}  // namespace
}  // namespace loom::conformance
