// `loom trace` as a separate process: the trace file is Chrome/Perfetto JSON
// with one complete ("X") event per node of the demo network.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/testing/json.h"
#include "subprocess.h"

namespace loom {
namespace {

namespace fs = std::filesystem;
using json = loom::testing::Json;
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

TEST_F(CliTrace, WithoutOutputFlagTheTraceGoesToTraceJsonInTheCurrentFolder) {
  const ProcessResult r = testing::RunProcess(
      {"/bin/sh", "-c", "cd '" + dir_.string() + "' && exec " + LOOM_BINARY + " trace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ReadJson(dir_ / "trace.json")["traceEvents"].is_array());
  EXPECT_NE(r.out.find("trace written to trace.json"), std::string::npos) << r.out;
}

TEST_F(CliTrace, AnUnwritableOutputFailsBeforeAnyWork) {
  const std::string unwritable = (dir_ / "no" / "such" / "folder" / "t.json").string();
  // The model does not exist either: the output is checked first.
  const ProcessResult r = RunLoom({"trace", (dir_ / "none.onnx").string(), "-o", unwritable});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(unwritable), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("none.onnx"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");

  const ProcessResult graph = RunLoom({"trace", (dir_ / "none.onnx").string(), "-o",
                                       (dir_ / "t.json").string(), "--graph", unwritable});
  EXPECT_EQ(graph.exit_code, 1);
  EXPECT_NE(graph.err.find(unwritable), std::string::npos) << graph.err;
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
}

TEST_F(CliTrace, MistakesAreClearErrors) {
  EXPECT_EQ(RunLoom({"trace", "-o"}).exit_code, 2);
  EXPECT_EQ(RunLoom({"trace", "--iterations", "3", "-o", "x.json"}).exit_code, 2);

  ProcessResult missing =
      RunLoom({"trace", (dir_ / "none.onnx").string(), "-o", (dir_ / "t.json").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.onnx"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace loom
