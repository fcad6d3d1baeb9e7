// `loom run` as a separate process: the demo network and (when
// ../shared/models exists) a real model, checked through the JSON report,
// saved outputs and exit codes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/testing/json.h"
#include "io/npy.h"
#include "platform/testing/sanitizer_threads.h"
#include "subprocess.h"

namespace loom {
namespace {

namespace fs = std::filesystem;
using json = loom::testing::Json;
using testing::ProcessResult;
using testing::RunLoom;

// A short run: the numbers are not the point here, the report is.
json RunJson(std::vector<std::string> flags, const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> args = {"run", "--json", "--warmup", "1", "--iterations", "3"};
  args.insert(args.end(), flags.begin(), flags.end());
  ProcessResult r = RunLoom(args, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("loom-cli-run-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(CliRun, DemoJsonHasTheIssueKeysAndTheThreadsInForce) {
  const json j = RunJson({"--intra", "2", "--inter", "2", "--batch", "2"});
  for (const char* key :
       {"model", "intra_op_threads", "inter_op_threads", "batch", "iterations", "latency_ms",
        "throughput_per_s", "cpu_cores_used", "threads", "peak_rss_mb", "outputs"}) {
    ASSERT_TRUE(j.contains(key)) << key << " in " << j.dump();
  }
  EXPECT_EQ(j["model"], "demo");
  EXPECT_EQ(j["intra_op_threads"], 2);
  EXPECT_EQ(j["inter_op_threads"], 2);
  EXPECT_EQ(j["sources"]["intra_op_threads"], "flag --intra");
  EXPECT_EQ(j["sources"]["inter_op_threads"], "flag --inter");
  EXPECT_EQ(j["batch"], 2);
  EXPECT_EQ(j["iterations"], 3);
  const json& latency = j["latency_ms"];
  EXPECT_GT(latency["p50"].get<double>(), 0);
  EXPECT_LE(latency["p50"].get<double>(), latency["p90"].get<double>());
  EXPECT_LE(latency["p90"].get<double>(), latency["p99"].get<double>());
  // throughput = batch items / mean latency.
  EXPECT_NEAR(j["throughput_per_s"].get<double>(), 2 * 1e3 / latency["mean"].get<double>(),
              1e-6 * j["throughput_per_s"].get<double>());
  EXPECT_GT(j["cpu_cores_used"].get<double>(), 0);
  EXPECT_GT(j["peak_rss_mb"].get<double>(), 1);

  // intra 2: the caller plus one loom-intra worker; inter 2: the caller
  // plus one loom-inter worker.
  const json& threads = j["threads"];
  EXPECT_EQ(threads["intra_op"], 1);
  EXPECT_EQ(threads["inter_op"], 1);
  EXPECT_EQ(threads["data"], 0);
  EXPECT_PRED2(platform::ThreadCountMatches, threads["other"].get<size_t>(), 0u);
  EXPECT_PRED2(platform::ThreadCountMatches, threads["total"].get<size_t>(), 1u + 1 + 1);
  // And by name, pool and owner.
  ASSERT_EQ(j["loom_threads"].size(), 2u) << j.dump();
  EXPECT_EQ(j["loom_threads"][0]["name"], "loom-intra-0");
  EXPECT_EQ(j["loom_threads"][0]["pool"], "intra_op");
  EXPECT_EQ(j["loom_threads"][0]["owner"], "global");
  EXPECT_EQ(j["loom_threads"][1]["name"], "loom-inter-0");
  EXPECT_EQ(j["loom_threads"][1]["pool"], "inter_op");

  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["name"], "probabilities");
  EXPECT_EQ(j["outputs"][0]["shape"], json::array({2, 10}));
  // Two rows of probabilities: the checksum is their sum, 2.
  EXPECT_NEAR(j["outputs"][0]["checksum"].get<double>(), 2.0, 1e-4);
}

TEST(CliRun, EqualsFormOfAFlagIsTheSameAsTheSeparateValue) {
  const json j = RunJson({"--intra=2", "--inter=1", "--batch=3"});
  EXPECT_EQ(j["intra_op_threads"], 2);
  EXPECT_EQ(j["inter_op_threads"], 1);
  EXPECT_EQ(j["batch"], 3);
}

TEST(CliRun, ReportsLoadAndOptimizeTimeAndAHistogramOfTheRuns) {
  const json j = RunJson({"--iterations", "9"});
  EXPECT_GT(j["load_ms"].get<double>(), 0);
  EXPECT_GT(j["optimize_ms"].get<double>(), 0);
  int runs = 0;
  for (const json& bucket : j["latency_histogram"]) {
    EXPECT_LE(bucket["lo_ms"].get<double>(), bucket["hi_ms"].get<double>());
    runs += bucket["count"].get<int>();
  }
  EXPECT_EQ(runs, 9);
  const ProcessResult text = RunLoom({"run", "--iterations", "9", "--warmup", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* part :
       {"setup        load ", " ms (read + parse), optimize ", "histogram    "}) {
    EXPECT_NE(text.out.find(part), std::string::npos) << part << " in\n" << text.out;
  }
}

TEST(CliRun, OneAndOneThreadsMeansNoWorkerAtAll) {
  const json j = RunJson({"--intra", "1", "--inter", "1"});
  EXPECT_EQ(j["intra_op_threads"], 1);
  EXPECT_EQ(j["threads"]["intra_op"], 0);
  EXPECT_EQ(j["threads"]["inter_op"], 0);
  EXPECT_PRED2(platform::ThreadCountMatches, j["threads"]["other"].get<size_t>(), 0u);
  EXPECT_EQ(j["outputs"][0]["shape"], json::array({1, 10}));
}

TEST(CliRun, EnvironmentOutranksTheFlagAndTheReportSaysSo) {
  ProcessResult r = RunLoom({"run", "--json", "--iterations", "1", "--warmup", "0", "--intra", "2"},
                            {{"LOOM_NUM_INTRAOP_THREADS", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["intra_op_threads"], 1);
  EXPECT_EQ(j["sources"]["intra_op_threads"], "env:LOOM_NUM_INTRAOP_THREADS");
  EXPECT_EQ(j["threads"]["intra_op"], 0);
  EXPECT_NE(r.err.find("LOOM_NUM_INTRAOP_THREADS=1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--intra 2 has no effect"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("set_intra_op"), std::string::npos) << r.err;
}

TEST(CliRun, NoArgumentsRunsTheDemoAndPrintsAReport) {
  ProcessResult r = RunLoom({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"demo", "latency ms", "p99", "throughput", "cpu use", "threads seen",
                           "peak RSS", "probabilities", "[1, 10]"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << " in\n" << r.out;
  }
  // stderr is a file here, not a terminal: no progress bar.
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_EQ(r.err.find('\033'), std::string::npos);
}

TEST(CliRun, SameInputsGiveTheSameChecksum) {
  const json a = RunJson({"--batch", "3"});
  const json b = RunJson({"--batch", "3", "--inter", "2"});
  EXPECT_EQ(a["outputs"][0]["checksum"], b["outputs"][0]["checksum"]);
  EXPECT_EQ(a["outputs"][0]["shape"], json::array({3, 10}));
}

TEST_F(TempDir, SaveOutputsWritesNpyWhoseSumIsTheChecksum) {
  const fs::path out = dir_ / "new" / "outputs";
  const json j = RunJson({"--batch", "2", "--save-outputs", out.string()});
  const Tensor saved = io::ReadNpy((out / "probabilities.npy").string());
  ASSERT_EQ(saved.shape(), Shape({2, 10}));
  double sum = 0;
  for (int64_t i = 0; i < saved.num_elements(); ++i) sum += saved.data<float>()[i];
  EXPECT_NEAR(sum, j["outputs"][0]["checksum"].get<double>(), 1e-9);
  for (int64_t row = 0; row < 2; ++row) {
    double row_sum = 0;
    for (int64_t c = 0; c < 10; ++c) row_sum += saved.data<float>()[row * 10 + c];
    EXPECT_NEAR(row_sum, 1.0, 1e-5);
  }
}

TEST_F(TempDir, InputFileIsFedAndItsBatchIsUsed) {
  const fs::path image = dir_ / "image.npy";
  io::WriteNpy(image.string(), Tensor(DType::kFloat32, Shape({4, 3, 64, 64})));
  const json zeros = RunJson({"--input", "image=" + image.string()});
  EXPECT_EQ(zeros["batch"], 4);
  EXPECT_EQ(zeros["outputs"][0]["shape"], json::array({4, 10}));
  // Four identical (zero) images: four identical rows, unlike random ones.
  const json random = RunJson({"--batch", "4"});
  EXPECT_NE(zeros["outputs"][0]["checksum"], random["outputs"][0]["checksum"]);
}

TEST_F(TempDir, InputWithTheWrongShapeIsAClearError) {
  const fs::path image = dir_ / "small.npy";
  io::WriteNpy(image.string(), Tensor(DType::kFloat32, Shape({1, 3, 32, 32})));
  ProcessResult r = RunLoom({"run", "--input", "image=" + image.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'image'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[1, 3, 32, 32]"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");

  io::WriteNpy(image.string(), Tensor(DType::kInt32, Shape({1, 3, 64, 64})));
  ProcessResult dtype = RunLoom({"run", "--input", "image=" + image.string()});
  EXPECT_EQ(dtype.exit_code, 1);
  EXPECT_NE(dtype.err.find("dtype"), std::string::npos) << dtype.err;

  ProcessResult unknown = RunLoom({"run", "--input", "pixels=" + image.string()});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("'pixels'"), std::string::npos) << unknown.err;

  ProcessResult missing = RunLoom({"run", "--input", "image=" + (dir_ / "none.npy").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.npy"), std::string::npos) << missing.err;
}

TEST(CliRun, CommandLineMistakesAreUsageErrors) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"run", "--frobnicate"},
                                             {"run", "--iterations", "0"},
                                             {"run", "--batch", "two"},
                                             {"run", "--intra"},
                                             {"run", "--input", "no-equals-sign"},
                                             {"run", "a.onnx", "b.onnx"},
                                             {"--json", "--bogus"}}) {
    ProcessResult r = RunLoom(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find("loom: "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  ProcessResult unknown = RunLoom({"run", "--frobnicate"});
  EXPECT_NE(unknown.err.find("'--frobnicate'"), std::string::npos) << unknown.err;
  ProcessResult boolean = RunLoom({"run", "--json=1"});
  EXPECT_EQ(boolean.exit_code, 2);
  EXPECT_NE(boolean.err.find("--json takes no value"), std::string::npos) << boolean.err;
  EXPECT_EQ(RunLoom({"run", "--help"}).exit_code, 0);
}

TEST_F(TempDir, MissingOrCorruptModelFilesAreClearErrors) {
  const std::string missing = (dir_ / "missing.onnx").string();
  ProcessResult r = RunLoom({"run", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;

  const fs::path corrupt = dir_ / "corrupt.onnx";
  std::ofstream(corrupt) << "this is not a protobuf";
  ProcessResult bad = RunLoom({"run", corrupt.string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find(corrupt.string()), std::string::npos) << bad.err;

  ProcessResult folder = RunLoom({"run", dir_.string()});
  EXPECT_EQ(folder.exit_code, 1);
  EXPECT_NE(folder.err.find("not a regular file"), std::string::npos) << folder.err;
}

TEST(CliRun, BatchOnAModelWithoutOneIsRejectedNotIgnored) {
  ProcessResult r = RunLoom({"run", "--batch", "100000000"});
  EXPECT_EQ(r.exit_code, 2) << "beyond the flag's range";
  ProcessResult huge = RunLoom({"run", "--batch", "1000000"});
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_NE(huge.err.find("--batch"), std::string::npos) << huge.err;
}

// The shared real models, when this checkout has them beside it.
const fs::path kSharedModels = fs::path(LOOM_SOURCE_DIR) / ".." / "shared" / "models";

TEST(CliRunSharedModels, MlpRunsAtBatchOne) {
  const fs::path mlp = kSharedModels / "mlp.onnx";
  if (!fs::exists(mlp)) GTEST_SKIP() << mlp << " not found";
  const json j = RunJson({mlp.string()});
  EXPECT_EQ(j["model"], mlp.string());
  EXPECT_EQ(j["batch"], 1);
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["shape"], json::array({1, 10}));
}

TEST_F(TempDir, SharedMlpMatchesPyTorchThroughInputAndSaveOutputs) {
  const fs::path mlp = kSharedModels / "mlp.onnx";
  if (!fs::exists(mlp)) GTEST_SKIP() << mlp << " not found";
  std::string input_name;
  std::ifstream(kSharedModels / "mlp.input_name") >> input_name;
  const json j = RunJson({mlp.string(), "--input",
                          input_name + "=" + (kSharedModels / "mlp.input.npy").string(),
                          "--save-outputs", dir_.string()});
  ASSERT_EQ(j["outputs"].size(), 1u);
  const std::string name = j["outputs"][0]["name"].get<std::string>();
  const Tensor ours = io::ReadNpy((dir_ / (name + ".npy")).string());
  const Tensor torch = io::ReadNpy((kSharedModels / "mlp.output.npy").string());
  ASSERT_EQ(ours.shape(), torch.shape());
  for (int64_t i = 0; i < ours.num_elements(); ++i) {
    const float want = torch.data<float>()[i];
    EXPECT_NEAR(ours.data<float>()[i], want, 1e-4 + 1e-3 * std::fabs(want)) << i;
  }
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

class CliExportDemo : public TempDir {};

TEST_F(CliExportDemo, TheExportedDemoComputesWhatTheBuiltInOneDoes) {
  const std::string file = (dir_ / "demo.onnx").string();
  const ProcessResult exported = RunLoom({"export-demo", file});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.out.find("input 'image' [N, 3, 64, 64]"), std::string::npos) << exported.out;
  const json built_in = RunJson({"--batch", "2"});
  const json from_file = RunJson({file, "--batch", "2"});
  ASSERT_EQ(from_file["outputs"][0]["shape"], json::array({2, 10}));
  EXPECT_NEAR(from_file["outputs"][0]["checksum"].get<double>(),
              built_in["outputs"][0]["checksum"].get<double>(), 1e-5);
}

TEST_F(CliExportDemo, AMissingOrUnwritableFileIsRefused) {
  EXPECT_EQ(RunLoom({"export-demo"}).exit_code, 2);
  EXPECT_EQ(RunLoom({"export-demo", "a.onnx", "b.onnx"}).exit_code, 2);
  const ProcessResult r = RunLoom({"export-demo", (dir_ / "no-such-dir" / "demo.onnx").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no-such-dir"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace loom
