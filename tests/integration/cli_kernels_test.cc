// `loom kernels` run as a separate process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "subprocess.h"

namespace loom {
namespace {

using nlohmann::json;
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
    if (op["op"] == "Conv") {
      conv = true;
      EXPECT_EQ(op["dtypes"], "float32");
      EXPECT_NE(op["isas"].get<std::string>().find("portable"), std::string::npos);
    }
  }
  EXPECT_TRUE(conv) << r.out;
  EXPECT_GT(j["ops"].size(), 80u);
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
