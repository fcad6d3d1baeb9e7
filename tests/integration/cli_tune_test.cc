// `loom tune` as a separate process, kept small (two thread counts, two
// iterations a cell): the table, the export lines, tune.svg and tune.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int UsableCpus() {
  ProcessResult r = RunLoom({"threads", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out)["cpu"]["usable"].get<int>();
}

class CliTune : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("loom-cli-tune-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CliTune, LatencySweepWritesHeatmapJsonAndExportLines) {
  ProcessResult r =
      RunLoom({"tune", "--max-threads", "2", "--iterations", "2", "--out", dir_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int limit = std::min(2, UsableCpus());

  const json j = json::parse(Slurp(dir_ / "tune.json"));
  EXPECT_EQ(j["model"], "demo");
  EXPECT_EQ(j["objective"], "latency");
  ASSERT_EQ(j["cells"].size(), static_cast<size_t>(limit * limit));
  // --iterations 2: two rounds of one run, then one run a round until the
  // pick is stable (at most 8 rounds).
  const size_t rounds = j["rounds"].get<size_t>();
  EXPECT_GE(rounds, 2u);
  EXPECT_LE(rounds, 8u);
  double fastest_ms = 1e300;
  for (const json& cell : j["cells"]) {
    EXPECT_LE(cell["intra_op_threads"].get<int>(), limit);
    EXPECT_LE(cell["inter_op_threads"].get<int>(), limit);
    EXPECT_EQ(cell["latencies_ms"].size(), 2 + (rounds - 2));
    EXPECT_EQ(cell["round_medians_ms"].size(), rounds);
    fastest_ms = std::min(fastest_ms, cell["median_ms"].get<double>());
  }
  EXPECT_DOUBLE_EQ(j["fastest"]["median_ms"].get<double>(), fastest_ms);
  // The pick: within the noise of the fastest, with the fewest threads.
  const double noise = j["noise_band_pct"].get<double>() / 100;
  EXPECT_GE(noise, 0.01);
  EXPECT_LE(j["best"]["median_ms"].get<double>(), fastest_ms * (1 + noise) * (1 + 1e-12));
  auto threads = [](const json& setting) {
    return setting["intra_op_threads"].get<int>() + setting["inter_op_threads"].get<int>();
  };
  for (const json& close : j["within_noise"]) EXPECT_LE(threads(j["best"]), threads(close));
  EXPECT_NE(r.out.find(j["verdict"].get<std::string>()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("noise: \u00b1"), std::string::npos) << r.out;

  const std::string intra_line =
      "export LOOM_NUM_INTRAOP_THREADS=" + std::to_string(j["best"]["intra_op_threads"].get<int>());
  const std::string inter_line =
      "export LOOM_NUM_INTEROP_THREADS=" + std::to_string(j["best"]["inter_op_threads"].get<int>());
  EXPECT_NE(r.out.find(intra_line + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(inter_line + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- best"), std::string::npos) << r.out;

  const std::string svg = Slurp(dir_ / "tune.svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg "), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("intra-op threads"), std::string::npos);
  EXPECT_NE(svg.find("inter-op threads"), std::string::npos);
  EXPECT_NE(svg.find("class=\"best\""), std::string::npos);
  // No terminal: no progress bar drawn.
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

TEST_F(CliTune, ThroughputSweepTriesBatchSizes) {
  ProcessResult r = RunLoom({"tune", "--objective", "throughput", "--max-threads", "1",
                             "--iterations", "1", "--max-batch", "4", "--out", dir_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(Slurp(dir_ / "tune.json"));
  std::vector<int> batches;
  for (const json& cell : j["cells"]) batches.push_back(cell["batch"].get<int>());
  EXPECT_EQ(batches, (std::vector<int>{1, 2, 4}));
  EXPECT_NE(r.out.find("export LOOM_NUM_INTRAOP_THREADS=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("items/s at batch"), std::string::npos) << r.out;
  EXPECT_NE(Slurp(dir_ / "tune.svg").find("items/s"), std::string::npos);
}

TEST_F(CliTune, MistakesAreClearErrors) {
  EXPECT_EQ(RunLoom({"tune", "--objective", "speed"}).exit_code, 2);
  ProcessResult intra = RunLoom({"tune", "--intra", "2"});
  EXPECT_EQ(intra.exit_code, 2);
  EXPECT_NE(intra.err.find("--max-threads"), std::string::npos) << intra.err;
  EXPECT_EQ(RunLoom({"tune", "--max-threads", "0"}).exit_code, 2);

  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  ProcessResult blocked = RunLoom(
      {"tune", "--max-threads", "1", "--iterations", "1", "--out", (dir_ / "file").string()});
  EXPECT_EQ(blocked.exit_code, 1);
  EXPECT_NE(blocked.err.find((dir_ / "file").string()), std::string::npos) << blocked.err;

  ProcessResult missing = RunLoom({"tune", (dir_ / "none.onnx").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.onnx"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace loom
