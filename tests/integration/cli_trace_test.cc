// `loom trace` as a separate process: the trace file is Chrome/Perfetto JSON
// with one complete ("X") event per node of the demo network.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.h"

namespace loom {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ProcessResult;
using testing::RunLoom;

class CliTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("loom-cli-trace-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  json ReadJson(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
  }

  fs::path dir_;
};

TEST_F(CliTrace, DemoTraceHasACompleteEventPerNode) {
  const fs::path file = dir_ / "trace.json";
  ProcessResult r = RunLoom({"trace", "--intra", "1", "--inter", "2", "-o", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json trace = ReadJson(file);
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::set<std::string> names;
  for (const json& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    names.insert(event["name"].get<std::string>());
    EXPECT_GE(event["ts"].get<double>(), 0);
    EXPECT_GE(event["dur"].get<double>(), 0);
    EXPECT_TRUE(event.contains("pid") && event.contains("tid")) << event.dump();
  }
  // The demo's convolutions (activations fused into them keep the Conv's
  // name), the join and the softmax.
  for (const char* node : {"stem_conv", "stem_pool", "tower_a_conv1", "tower_a_conv2",
                           "tower_b_conv1", "tower_b_conv2", "join", "softmax"}) {
    EXPECT_EQ(names.count(node), 1u) << node;
  }
  // The printed profile: one line per op type, Conv among them.
  EXPECT_NE(r.out.find("Conv"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("share"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(file.string()), std::string::npos) << r.out;
}

TEST_F(CliTrace, MistakesAreClearErrors) {
  ProcessResult no_output = RunLoom({"trace"});
  EXPECT_EQ(no_output.exit_code, 2);
  EXPECT_NE(no_output.err.find("-o FILE"), std::string::npos) << no_output.err;
  EXPECT_EQ(RunLoom({"trace", "-o"}).exit_code, 2);
  EXPECT_EQ(RunLoom({"trace", "--iterations", "3", "-o", "x.json"}).exit_code, 2);

  const std::string unwritable = (dir_ / "no" / "such" / "folder" / "t.json").string();
  ProcessResult r = RunLoom({"trace", "-o", unwritable});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(unwritable), std::string::npos) << r.err;

  ProcessResult missing = RunLoom({"trace", (dir_ / "none.onnx").string(), "-o", unwritable});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.onnx"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace loom
