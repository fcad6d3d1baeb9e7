// `loom kernels` run as a separate process.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "base/testing/json.h"
#include "subprocess.h"

namespace loom {
namespace {

using json = loom::testing::Json;
using testing::ProcessResult;
using testing::RunProcess;

ProcessResult LoomKernels(const std::vector<std::string>& flags,
                          const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {LOOM_BINARY, "kernels"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return RunProcess(argv, env);
}

TEST(CliKernels, JsonListsTheRegistry) {
  const ProcessResult r = LoomKernels({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  bool conv = false;
  for (const json& op : j["ops"]) {
    ASSERT_TRUE(op["dtypes"].is_array()) << op.dump();
    ASSERT_TRUE(op["isas"].is_array()) << op.dump();
    if (op["op"] == "Conv") {
      conv = true;
      EXPECT_EQ(op["dtypes"], json::array({"float32"}));
      EXPECT_EQ(op["isas"][0], "portable");
    }
  }
  EXPECT_TRUE(conv) << r.out;
  EXPECT_GT(j["ops"].size(), 80u);
  ASSERT_TRUE(j["cpu_isas"].is_array());
  EXPECT_EQ(j["cpu_isas"][0], "portable");
}

TEST(CliKernels, TableColumnsStartAtTheSameOffsetAndNeverTouch) {
  const ProcessResult r = LoomKernels({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);  // active ISA
  std::getline(lines, line);
  const size_t isa_at = line.find("isa variants"), dtypes_at = line.find("dtypes");
  ASSERT_NE(dtypes_at, std::string::npos) << line;
  int rows = 0;
  while (std::getline(lines, line) && line.find(" operators") == std::string::npos) {
    ++rows;
    ASSERT_GT(line.size(), dtypes_at) << line;
    // Two spaces before each column: "portable, avx2_fma, avx512f" is no
    // longer glued to the dtypes.
    EXPECT_EQ(line.substr(isa_at - 2, 2), "  ") << line;
    EXPECT_NE(line[isa_at], ' ') << line;
    EXPECT_EQ(line.substr(dtypes_at - 2, 2), "  ") << line;
    EXPECT_NE(line[dtypes_at], ' ') << line;
  }
  EXPECT_GT(rows, 80);
}

TEST(CliKernels, MaxIsaCapsTheActiveIsa) {
  const ProcessResult r = LoomKernels({"--json"}, {{"LOOM_MAX_ISA", "portable"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["active_isa"], "portable");
}

TEST(CliKernels, InvalidMaxIsaIsAOneLineError) {
  const ProcessResult r = LoomKernels({}, {{"LOOM_MAX_ISA", "sse9"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "loom: error: LOOM_MAX_ISA='sse9' is not an ISA level (expected portable, avx2_fma or "
            "avx512f)\n");
}

}  // namespace
}  // namespace loom
