// `loom threads` run as a separate process: the real environment variables,
// the real process, real OS threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/testing/json.h"
#include "platform/testing/sanitizer_threads.h"
#include "subprocess.h"

namespace loom {
namespace {

using json = loom::testing::Json;
using testing::ProcessResult;
using testing::RunLoom;
using testing::RunProcess;

json ThreadsJson(const std::vector<std::string>& flags,
                 const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> args = {"threads", "--json"};
  args.insert(args.end(), flags.begin(), flags.end());
  ProcessResult r = RunLoom(args, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

// The process's threads as named in /proc: Loom's own, exactly, plus the
// main thread "loom" (and under TSan its background thread, also "loom").
void ExpectProcessThreads(const json& j, std::vector<std::string> loom_threads) {
  std::vector<std::string> names = j["process_threads"].get<std::vector<std::string>>();
  const auto main_count = std::count(names.begin(), names.end(), "loom");
  EXPECT_TRUE(main_count == 1 || main_count == 1 + platform::kSanitizerThreads) << j.dump();
  names.erase(std::remove(names.begin(), names.end(), "loom"), names.end());
  EXPECT_EQ(names, loom_threads);
}

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CliThreads, PrintsTheConfigurationInForce) {
  // (Plain `loom` runs the demo network now: cli_run_test.cc.)
  ProcessResult r = RunLoom({"threads"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("intra_op_parallelism_threads"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threads created by loom:"), std::string::npos) << r.out;
  ProcessResult two = RunLoom({"threads", "--intra", "2", "--inter", "2"});
  EXPECT_NE(two.out.find("loom-intra-0     intra_op  global"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("loom-inter-0     inter_op  global"), std::string::npos) << two.out;
}

TEST(CliThreads, TextExplainsWhyIntraNCreatesNMinusOneWorkers) {
  ProcessResult r = RunLoom({"threads", "--intra", "2", "--inter", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(the calling thread runs shard 0 itself: intra 2 -> 1 loom-intra worker, "
                       "inter 3 -> 2 loom-inter workers)"),
            std::string::npos)
      << r.out;
}

TEST(CliThreads, JsonHasTheDocumentedShape) {
  json j = ThreadsJson({});
  for (const char* key :
       {"intra_op_parallelism_threads", "inter_op_parallelism_threads", "spin_wait_us"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_GE(j[key]["value"].get<int>(), key == std::string("spin_wait_us") ? 0 : 1);
    EXPECT_EQ(j[key]["source"], "auto");
  }
  for (const char* key : {"logical", "affinity", "cgroup_quota", "physical_cores", "usable"}) {
    EXPECT_TRUE(j["cpu"].contains(key)) << key;
  }
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], j["cpu"]["usable"]);
  EXPECT_TRUE(j["threads"].is_array());
  EXPECT_TRUE(j["runtime_started"].get<bool>());
}

TEST(CliThreads, ProcessHasExactlyTheConfiguredThreads) {
  json j = ThreadsJson({"--intra", "3", "--inter", "2"});
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], 3);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["source"], "flag --intra");
  // intra = 3: the calling thread plus two workers; inter = 2: the thread
  // calling run() plus one worker.
  ExpectProcessThreads(j, {"loom-intra-0", "loom-intra-1", "loom-inter-0"});
  ASSERT_EQ(j["threads"].size(), 3u);
  EXPECT_EQ(j["threads"][0]["name"], "loom-intra-0");
  EXPECT_EQ(j["threads"][0]["pool"], "intra_op");
  EXPECT_EQ(j["threads"][0]["owner"], "global");
  EXPECT_EQ(j["threads"][2]["pool"], "inter_op");
}

TEST(CliThreads, OneIntraThreadCreatesNoIntraWorker) {
  // Nor does one inter-op thread: the caller is the only runner.
  json j = ThreadsJson({"--intra", "1", "--inter", "1"});
  ExpectProcessThreads(j, {});
}

TEST(CliThreads, EnvOutranksFlagWithOneWarningNamingTheFlag) {
  ProcessResult r =
      RunLoom({"threads", "--json", "--intra", "2"}, {{"LOOM_NUM_INTRAOP_THREADS", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], 1);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["source"], "env:LOOM_NUM_INTRAOP_THREADS");
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("LOOM_NUM_INTRAOP_THREADS=1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--intra 2 has no effect"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("set_intra_op"), std::string::npos) << "the user called no function";
}

TEST(CliThreads, EveryFlagIsReportedAsItsSource) {
  ProcessResult r = RunLoom({"threads", "--intra", "1", "--inter", "1", "--data", "1", "--spin-us",
                             "0", "--cpu-budget", "1", "--intra-cpus", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* source : {"(flag --intra)", "(flag --inter)", "(flag --data)",
                             "(flag --spin-us)", "(flag --cpu-budget)", "(flag --intra-cpus)"}) {
    EXPECT_NE(r.out.find(source), std::string::npos) << source << " in\n" << r.out;
  }
  EXPECT_EQ(r.out.find("(api)"), std::string::npos) << r.out;
}

TEST(CliThreads, TensorFlowVariablesWork) {
  json j = ThreadsJson({}, {{"TF_NUM_INTRAOP_THREADS", "1"}, {"TF_NUM_INTEROP_THREADS", "3"}});
  EXPECT_EQ(j["intra_op_parallelism_threads"]["source"], "env:TF_NUM_INTRAOP_THREADS");
  EXPECT_EQ(j["inter_op_parallelism_threads"]["value"], 3);
  ExpectProcessThreads(j, {"loom-inter-0", "loom-inter-1"});
}

TEST(CliThreads, OmpNumThreadsIsOnlyAFallback) {
  json fallback = ThreadsJson({}, {{"OMP_NUM_THREADS", "1"}});
  EXPECT_EQ(fallback["intra_op_parallelism_threads"]["value"], 1);
  EXPECT_EQ(fallback["intra_op_parallelism_threads"]["source"], "env:OMP_NUM_THREADS");
  json flag = ThreadsJson({"--intra", "2"}, {{"OMP_NUM_THREADS", "1"}});
  EXPECT_EQ(flag["intra_op_parallelism_threads"]["value"], 2);
  EXPECT_EQ(flag["intra_op_parallelism_threads"]["source"], "flag --intra");
}

TEST(CliThreads, KmpBlocktimeZeroMeansNoSpin) {
  json j = ThreadsJson({"--spin-us", "500"}, {{"KMP_BLOCKTIME", "0"}});
  EXPECT_EQ(j["spin_wait_us"]["value"], 0);
  EXPECT_EQ(j["spin_wait_us"]["source"], "env:KMP_BLOCKTIME");
}

TEST(CliThreads, NoDataThreadsUntilAPipelineRuns) {
  json j = ThreadsJson({"--intra", "1", "--inter", "1", "--data", "3"});
  EXPECT_EQ(j["data_pipeline_threads"]["value"], 3);
  EXPECT_EQ(j["data_pipeline_threads"]["source"], "flag --data");
  ExpectProcessThreads(j, {});
  EXPECT_TRUE(j["data_pipelines"].empty()) << j.dump();
}

TEST(CliThreads, PipelineShowsDataThreadsAndWhatAutotuneChose) {
  json j =
      ThreadsJson({"--intra", "1", "--inter", "1", "--pipeline"}, {{"LOOM_NUM_DATA_THREADS", "3"}});
  EXPECT_EQ(j["data_pipeline_threads"]["value"], 3);
  EXPECT_EQ(j["data_pipeline_threads"]["source"], "env:LOOM_NUM_DATA_THREADS");
  ExpectProcessThreads(j, {"loom-data-0", "loom-data-1", "loom-data-2"});
  ASSERT_EQ(j["data_pipelines"].size(), 1u) << j.dump();
  const json& pipeline = j["data_pipelines"][0];
  EXPECT_EQ(pipeline["cpu_budget"], 3);
  ASSERT_EQ(pipeline["stages"].size(), 2u) << pipeline.dump();
  const json& map = pipeline["stages"][0];
  EXPECT_EQ(map["name"], "map#1");
  EXPECT_TRUE(map["autotuned"].get<bool>());
  EXPECT_EQ(map["max_parallelism"], 3);
  EXPECT_GE(map["parallelism"].get<int>(), 1);
  EXPECT_LE(map["parallelism"].get<int>(), 3);
  EXPECT_GT(map["produced"].get<int>(), 0);
  EXPECT_GE(map["buffered"].get<int>(), 0);
  EXPECT_LE(map["buffered"].get<int>(), map["buffer_size"].get<int>());
  EXPECT_GE(map["in_progress"].get<int>(), 0);
  EXPECT_LE(map["in_progress"].get<int>(), map["parallelism"].get<int>());
  EXPECT_EQ(pipeline["stages"][1]["name"], "prefetch#3");
}

TEST(CliThreads, InvalidDataThreadCountIsAnError) {
  ProcessResult r = RunLoom({"threads", "--pipeline"}, {{"LOOM_NUM_DATA_THREADS", "lots"}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("LOOM_NUM_DATA_THREADS"), std::string::npos) << r.err;
}

TEST(CliThreads, InvalidEnvironmentValueIsOneLineErrorAndNonZeroExit) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"LOOM_NUM_INTRAOP_THREADS", "abc"},
           {"LOOM_NUM_INTEROP_THREADS", "-2"},
           {"TF_NUM_INTRAOP_THREADS", "4x"},
           {"LOOM_NUM_INTRAOP_THREADS", ""},
           {"LOOM_SPIN_WAIT_US", "99999999999999999999"}}) {
    ProcessResult r = RunLoom({"threads"}, {{name, value}});
    EXPECT_EQ(r.exit_code, 1) << name;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(name + "='" + value + "'"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "nothing printed as if it had started";
  }
}

TEST(CliThreads, UnusableOtherLibraryVariableIsOneWarningNotAnError) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"OMP_NUM_THREADS", "0"}, {"KMP_BLOCKTIME", "infinite"}}) {
    ProcessResult r = RunLoom({"threads", "--json"}, {{name, value}});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(name + "='" + value + "' is ignored"), std::string::npos) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["intra_op_parallelism_threads"]["source"], "auto");
    EXPECT_EQ(j["spin_wait_us"]["source"], "auto");
  }
}

TEST(CliThreads, BadFlagsAreUsageErrorsNamingTheFlag) {
  ProcessResult negative = RunLoom({"threads", "--intra", "-1"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--intra expects an integer from 0"), std::string::npos)
      << negative.err;
  EXPECT_NE(negative.err.find("'-1'"), std::string::npos);
  ProcessResult garbage = RunLoom({"threads", "--inter", "4x"});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("'4x'"), std::string::npos) << garbage.err;
  ProcessResult missing = RunLoom({"threads", "--inter"});
  EXPECT_EQ(missing.exit_code, 2);
  ProcessResult huge = RunLoom({"threads", "--intra", "5000"});
  EXPECT_EQ(huge.exit_code, 2);
  ProcessResult spin = RunLoom({"threads", "--spin-us", "2000000"});
  EXPECT_EQ(spin.exit_code, 2);
  EXPECT_NE(spin.err.find("--spin-us"), std::string::npos) << spin.err;
  EXPECT_EQ(RunLoom({"frobnicate"}).exit_code, 2);
}

TEST(CliThreads, OversubscriptionIsAllowedWithAWarning) {
  ProcessResult r = RunLoom({"threads", "--json", "--intra", "64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("oversubscription"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["threads"].size(),
            63u + json::parse(r.out)["inter_op_parallelism_threads"]["value"].get<size_t>() - 1);
}

TEST(CliThreads, PinningFlagsPinTheWorkers) {
  json j = ThreadsJson({"--intra", "2", "--inter", "1", "--intra-cpus", "0", "--inter-cpus", "0"});
  EXPECT_EQ(j["intra_op_cpu_affinity"]["cpus"], json::array({0}));
  EXPECT_EQ(j["intra_op_cpu_affinity"]["source"], "flag --intra-cpus");
  EXPECT_EQ(j["inter_op_cpu_affinity"]["cpus"], json::array({0}));
  ProcessResult bad = RunLoom({"threads", "--intra-cpus", "3-1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'3-1'"), std::string::npos) << bad.err;
  ProcessResult outside = RunLoom({"threads", "--intra-cpus", "4000"});
  EXPECT_EQ(outside.exit_code, 2) << "a CPU the process may not use is an out-of-range value";
  EXPECT_NE(outside.err.find("--intra-cpus"), std::string::npos) << outside.err;
  EXPECT_NE(outside.err.find("CPU 4000"), std::string::npos) << outside.err;
}

TEST(CliThreads, PinningToACpuOutsideTheMaskIsRejected) {
  ProcessResult r = RunLoom({"threads"}, {{"LOOM_INTRAOP_CPUS", "4000"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("affinity mask"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace loom
