#include "threading/threading_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "base/logging.h"
#include "loom/errors.h"
#include "platform/testing/fake_system_probe.h"

namespace loom::threading {
namespace {

using platform::FakeSystemProbe;

// A host with `online` CPUs (one core each) of which `affinity` are usable,
// in cgroup v2 /job whose cpu.max is `cpu_max`.
FakeSystemProbe Host(int online, std::vector<int> affinity, const std::string& cpu_max) {
  FakeSystemProbe probe;
  probe.online = online;
  probe.affinity = affinity;
  for (int cpu = 0; cpu < online; ++cpu) {
    probe.files["/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                "/topology/thread_siblings_list"] = std::to_string(cpu) + "\n";
  }
  probe.files["/proc/self/cgroup"] = "0::/job\n";
  probe.files["/proc/self/mountinfo"] =
      "30 1 0:26 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw\n";
  probe.files["/sys/fs/cgroup/job/cpu.max"] = cpu_max + "\n";
  return probe;
}

FakeSystemProbe TwoCpuHost() { return Host(2, {0, 1}, "max 100000"); }

// Captures warnings for the lifetime of the object.
class CapturedWarnings {
 public:
  CapturedWarnings() {
    previous_ =
        base::SetLogSinkForTesting([this](std::string_view line) { lines.emplace_back(line); });
  }
  ~CapturedWarnings() { base::SetLogSinkForTesting(std::move(previous_)); }
  std::vector<std::string> lines;

 private:
  base::LogSink previous_;
};

std::string MessageOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(Config, AutomaticIntraIsUsableCpusOfAQuotaLimitedHost) {
  FakeSystemProbe probe = Host(
      64,
      [] {
        std::vector<int> all(64);
        for (int i = 0; i < 64; ++i) all[i] = i;
        return all;
      }(),
      "300000 100000");
  ThreadingConfig config(MapEnvironment({}), probe);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 3);
  EXPECT_EQ(r.intra_op_threads.source, "auto");
  EXPECT_EQ(r.cpu.usable, 3);
}

TEST(Config, AutomaticIntraFollowsSparseCpuset) {
  FakeSystemProbe probe = Host(8, {0, 5, 7}, "max 100000");
  ThreadingConfig config(MapEnvironment({}), probe);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 3);
}

TEST(Config, AutomaticInterIsUsableCpus) {
  FakeSystemProbe one = Host(4, {2}, "max 100000");
  EXPECT_EQ(ThreadingConfig(MapEnvironment({}), one).Resolve().inter_op_threads.value, 1);
  FakeSystemProbe quota = Host(8, {0, 1, 2, 3, 4, 5, 6, 7}, "250000 100000");
  ResolvedThreading r = ThreadingConfig(MapEnvironment({}), quota).Resolve();
  EXPECT_EQ(r.inter_op_threads.value, 3);
  EXPECT_EQ(r.inter_op_threads.source, "auto");
}

TEST(Config, GettersNeverReturnZero) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetIntraOpThreads(0);
  config.SetInterOpThreads(0);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 2);
  EXPECT_GE(r.inter_op_threads.value, 1);
  EXPECT_EQ(r.intra_op_threads.source, "auto");
}

TEST(Config, ApiCallSetsValueWithApiSource) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetIntraOpThreads(1);
  config.SetInterOpThreads(3);
  config.SetSpinWaitUs(0);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 1);
  EXPECT_EQ(r.intra_op_threads.source, "api");
  EXPECT_EQ(r.inter_op_threads.value, 3);
  EXPECT_EQ(r.spin_wait_us.value, 0);
  EXPECT_EQ(r.spin_wait_us.source, "api");
}

TEST(Config, NegativeCountThrowsNamingTheValue) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  EXPECT_THROW(config.SetIntraOpThreads(-3), InvalidArgumentError);
  std::string message = MessageOf([&] { config.SetInterOpThreads(-7); });
  EXPECT_NE(message.find("Number of threads must be positive"), std::string::npos) << message;
  EXPECT_NE(message.find("-7"), std::string::npos) << message;
  EXPECT_EQ(config.Resolve().inter_op_threads.source, "auto");  // nothing changed
}

TEST(Config, CountAboveMaximumThrows) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  EXPECT_NO_THROW(config.SetIntraOpThreads(4096));
  std::string message = MessageOf([&] { config.SetIntraOpThreads(4097); });
  EXPECT_NE(message.find("4097"), std::string::npos) << message;
  EXPECT_THROW(config.SetInterOpThreads(1 << 30), InvalidArgumentError);
}

TEST(Config, SpinOutOfRangeThrows) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  EXPECT_THROW(config.SetSpinWaitUs(-1), InvalidArgumentError);
  EXPECT_THROW(config.SetSpinWaitUs(config::threading::kMaxSpinWaitUs + 1), InvalidArgumentError);
}

TEST(Config, EnvOutranksApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(
      MapEnvironment({{"LOOM_NUM_INTRAOP_THREADS", "3"}, {"LOOM_NUM_INTEROP_THREADS", "5"}}),
      probe);
  CapturedWarnings warnings;
  config.SetIntraOpThreads(1);
  config.SetInterOpThreads(1);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 3);
  EXPECT_EQ(r.intra_op_threads.source, "env:LOOM_NUM_INTRAOP_THREADS");
  EXPECT_EQ(r.inter_op_threads.value, 5);
  EXPECT_EQ(r.inter_op_threads.source, "env:LOOM_NUM_INTEROP_THREADS");
  ASSERT_EQ(warnings.lines.size(), 2u);  // one per overridden call
  EXPECT_NE(warnings.lines[0].find("LOOM_NUM_INTRAOP_THREADS=3"), std::string::npos)
      << warnings.lines[0];
  EXPECT_NE(warnings.lines[1].find("LOOM_NUM_INTEROP_THREADS=5"), std::string::npos)
      << warnings.lines[1];
}

TEST(Config, ToolRequestKeepsItsSourceAndWarnsInItsOwnWords) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_INTEROP_THREADS", "5"}}), probe);
  CapturedWarnings warnings;
  config.SetIntraOpThreads(2, {"flag --intra", "--intra 2"});
  config.SetInterOpThreads(1, {"flag --inter", "--inter 1"});
  config.SetIntraOpCpus({1}, {"flag --intra-cpus", "--intra-cpus 1"});
  config.SetSpinWaitUs(7);  // the API, as before
  const ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 2);
  EXPECT_EQ(r.intra_op_threads.source, "flag --intra");
  EXPECT_EQ(r.inter_op_threads.source, "env:LOOM_NUM_INTEROP_THREADS");
  EXPECT_EQ(r.intra_op_cpus.source, "flag --intra-cpus");
  EXPECT_EQ(r.spin_wait_us.source, "api");
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("--inter 1 has no effect"), std::string::npos)
      << warnings.lines[0];
  EXPECT_EQ(warnings.lines[0].find("set_inter_op"), std::string::npos) << warnings.lines[0];
}

TEST(Config, OverriddenApiCallStillValidatesItsArgument) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_INTRAOP_THREADS", "3"}}), probe);
  EXPECT_THROW(config.SetIntraOpThreads(-1), InvalidArgumentError);
}

TEST(Config, EnvZeroMeansAutomaticAndStillOutranksApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_INTRAOP_THREADS", "0"}}), probe);
  CapturedWarnings warnings;
  config.SetIntraOpThreads(1);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 2);
  EXPECT_EQ(config.Resolve().intra_op_threads.source, "env:LOOM_NUM_INTRAOP_THREADS");
}

TEST(Config, LoomVariableWinsOverTensorFlowAlias) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_INTRAOP_THREADS", "3"},
                                         {"TF_NUM_INTRAOP_THREADS", "7"},
                                         {"LOOM_NUM_INTEROP_THREADS", "2"},
                                         {"TF_NUM_INTEROP_THREADS", "6"}}),
                         probe);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 3);
  EXPECT_EQ(r.inter_op_threads.value, 2);
}

TEST(Config, TensorFlowAliasAloneOutranksApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(
      MapEnvironment({{"TF_NUM_INTRAOP_THREADS", "7"}, {"TF_NUM_INTEROP_THREADS", "6"}}), probe);
  CapturedWarnings warnings;
  config.SetIntraOpThreads(1);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.intra_op_threads.value, 7);
  EXPECT_EQ(r.intra_op_threads.source, "env:TF_NUM_INTRAOP_THREADS");
  EXPECT_EQ(r.inter_op_threads.source, "env:TF_NUM_INTEROP_THREADS");
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("TF_NUM_INTRAOP_THREADS=7"), std::string::npos);
}

TEST(Config, OmpNumThreadsIsFallbackBelowApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"OMP_NUM_THREADS", "4,2"}}), probe);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 4);
  EXPECT_EQ(config.Resolve().intra_op_threads.source, "env:OMP_NUM_THREADS");
  EXPECT_EQ(config.Resolve().inter_op_threads.source, "auto");  // OMP only governs intra
  CapturedWarnings warnings;
  config.SetIntraOpThreads(1);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 1);
  EXPECT_EQ(config.Resolve().intra_op_threads.source, "api");
  EXPECT_TRUE(warnings.lines.empty());  // the API outranks OMP: nothing overridden
}

TEST(Config, OmpNumThreadsLosesToLoomVariable) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(
      MapEnvironment({{"OMP_NUM_THREADS", "4"}, {"LOOM_NUM_INTRAOP_THREADS", "1"}}), probe);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 1);
}

TEST(Config, InvalidEnvValueRefusesToStartNamingVariableAndValue) {
  FakeSystemProbe probe = TwoCpuHost();
  for (const char* name :
       {"LOOM_NUM_INTRAOP_THREADS", "TF_NUM_INTRAOP_THREADS", "LOOM_NUM_INTEROP_THREADS",
        "TF_NUM_INTEROP_THREADS", "LOOM_SPIN_WAIT_US"}) {
    for (const char* value : {"abc", "-2", "4x", "", "99999999999999999999"}) {
      ThreadingConfig config(MapEnvironment({{name, value}}), probe);
      std::string message = MessageOf([&] { config.Freeze(); });
      EXPECT_NE(message.find(std::string(name) + "='" + value + "'"), std::string::npos) << message;
      EXPECT_FALSE(config.frozen());
      EXPECT_THROW(config.Resolve(), InvalidArgumentError);
    }
  }
}

TEST(Config, OtherLibrariesVariablesNeverStopLoomAndWarnOnceWhenTheyDecide) {
  FakeSystemProbe probe = TwoCpuHost();
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"OMP_NUM_THREADS", "0"},
                                                        {"OMP_NUM_THREADS", "abc"},
                                                        {"KMP_BLOCKTIME", "infinite"},
                                                        {"KMP_BLOCKTIME", "-2"}}) {
    ThreadingConfig config(MapEnvironment({{name, value}}), probe);
    CapturedWarnings warnings;
    const ResolvedThreading r = config.Freeze();
    config.Freeze();
    EXPECT_EQ(r.intra_op_threads.source, "auto") << name << "=" << value;
    EXPECT_EQ(r.spin_wait_us.source, "auto") << name << "=" << value;
    ASSERT_EQ(warnings.lines.size(), 1u) << name << "=" << value;
    EXPECT_NE(warnings.lines[0].find(name + "='" + value + "' is ignored"), std::string::npos)
        << warnings.lines[0];
  }
}

TEST(Config, OutrankedOtherLibraryVariablesAreNotConsulted) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"OMP_NUM_THREADS", "1,"},
                                         {"LOOM_NUM_INTRAOP_THREADS", "2"},
                                         {"KMP_BLOCKTIME", "infinite"},
                                         {"LOOM_SPIN_WAIT_US", "10"}}),
                         probe);
  CapturedWarnings warnings;
  const ResolvedThreading r = config.Freeze();
  EXPECT_EQ(r.intra_op_threads.value, 2);
  EXPECT_EQ(r.spin_wait_us.value, 10);
  EXPECT_TRUE(warnings.lines.empty());
  ThreadingConfig by_api(MapEnvironment({{"OMP_NUM_THREADS", "0"}}), probe);
  by_api.SetIntraOpThreads(1);
  EXPECT_EQ(by_api.Freeze().intra_op_threads.source, "api");
  EXPECT_TRUE(warnings.lines.empty());
}

TEST(Config, UnusableKmpBlocktimeFallsBackToTheApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"KMP_BLOCKTIME", "infinite"}}), probe);
  CapturedWarnings warnings;
  config.SetSpinWaitUs(7);
  EXPECT_EQ(config.Freeze().spin_wait_us.value, 7);
  EXPECT_EQ(config.Freeze().spin_wait_us.source, "api");
}

TEST(Config, EmptyOtherLibraryVariablesCountAsUnset) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"OMP_NUM_THREADS", ""}, {"KMP_BLOCKTIME", " "}}), probe);
  CapturedWarnings warnings;
  const ResolvedThreading r = config.Freeze();
  EXPECT_EQ(r.intra_op_threads.source, "auto");
  EXPECT_EQ(r.spin_wait_us.source, "auto");
  EXPECT_TRUE(warnings.lines.empty());
}

TEST(Config, CpuBudgetIsOffUnlessSetZeroIsTheUsableCpusAndTheEnvironmentOutranksTheApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig automatic(MapEnvironment({}), probe);
  EXPECT_EQ(automatic.Resolve().cpu_budget.value, config::threading::kNoCpuBudget);
  EXPECT_EQ(automatic.Resolve().cpu_budget.source, "auto");
  automatic.SetCpuBudget(0);
  EXPECT_EQ(automatic.Resolve().cpu_budget.value, 2);
  EXPECT_EQ(automatic.Resolve().cpu_budget.source, "api");
  automatic.SetCpuBudget(1);
  EXPECT_EQ(automatic.Resolve().cpu_budget.value, 1);
  EXPECT_EQ(automatic.Resolve().cpu_budget.source, "api");
  automatic.Freeze();
  EXPECT_EQ(MessageOf([&] { automatic.SetCpuBudget(3); }),
            "The CPU budget cannot be modified after initialization.");
  EXPECT_NO_THROW(automatic.SetCpuBudget(1));

  ThreadingConfig from_env(MapEnvironment({{"LOOM_CPU_BUDGET", "3"}}), probe);
  CapturedWarnings warnings;
  from_env.SetCpuBudget(1);
  EXPECT_EQ(from_env.Resolve().cpu_budget.value, 3);
  EXPECT_EQ(from_env.Resolve().cpu_budget.source, "env:LOOM_CPU_BUDGET");
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("LOOM_CPU_BUDGET=3"), std::string::npos);
  ThreadingConfig zero(MapEnvironment({{"LOOM_CPU_BUDGET", "0"}}), probe);
  EXPECT_EQ(zero.Resolve().cpu_budget.value, 2);
  EXPECT_THROW(automatic.SetCpuBudget(-1), InvalidArgumentError);
  ThreadingConfig bad(MapEnvironment({{"LOOM_CPU_BUDGET", "two"}}), probe);
  EXPECT_NE(MessageOf([&] { bad.Freeze(); }).find("LOOM_CPU_BUDGET='two'"), std::string::npos);
}

TEST(Config, FreezingTheBudgetAloneLeavesThePoolSettingsOpen) {
  // What a session with private pools does: it shares the process's CPU
  // budget, so that is fixed; the global pools' settings are not.
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetCpuBudget(1);
  const Setting budget = config.FreezeCpuBudget();
  EXPECT_EQ(budget.value, 1);
  EXPECT_EQ(budget.source, "api");
  EXPECT_FALSE(config.frozen());
  EXPECT_NO_THROW(config.SetIntraOpThreads(2));
  EXPECT_NO_THROW(config.SetInterOpThreads(1));
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 2);
  EXPECT_EQ(MessageOf([&] { config.SetCpuBudget(2); }),
            "The CPU budget cannot be modified after initialization.");
  EXPECT_NO_THROW(config.SetCpuBudget(1));
  EXPECT_EQ(config.Resolve().cpu_budget.value, 1);
  // The full freeze keeps the budget fixed before it, and fixes the rest.
  const ResolvedThreading frozen = config.Freeze();
  EXPECT_EQ(frozen.cpu_budget.value, 1);
  EXPECT_EQ(frozen.intra_op_threads.value, 2);
  EXPECT_EQ(config.FreezeCpuBudget().value, 1);
  EXPECT_THROW(config.SetIntraOpThreads(1), RuntimeError);

  // Unset, the budget freezes as "none" (kNoCpuBudget); asking for one
  // after that is refused rather than silently ignored.
  ThreadingConfig none(MapEnvironment({}), probe);
  EXPECT_EQ(none.FreezeCpuBudget().value, config::threading::kNoCpuBudget);
  EXPECT_THROW(none.SetCpuBudget(1), RuntimeError);
  EXPECT_NO_THROW(none.SetIntraOpThreads(1));
}

TEST(Config, InvalidVariableIsRefusedEvenWhenOutranked) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(
      MapEnvironment({{"LOOM_NUM_INTRAOP_THREADS", "2"}, {"TF_NUM_INTRAOP_THREADS", "two"}}),
      probe);
  EXPECT_THROW(config.Freeze(), InvalidArgumentError);
}

TEST(Config, EnvironmentIsReadOnceAtConstruction) {
  class ChangingEnvironment : public Environment {
   public:
    std::optional<std::string> Get(const std::string& name) const override {
      if (name != "LOOM_NUM_INTRAOP_THREADS") return std::nullopt;
      ++reads;
      return std::to_string(reads);
    }
    mutable int reads = 0;
  } environment;
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(environment, probe);
  const int reads_after_construction = environment.reads;
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 1);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 1);
  EXPECT_EQ(environment.reads, reads_after_construction);
}

TEST(Config, SpinFromLoomVariableOutranksKmpBlocktimeAndApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_SPIN_WAIT_US", "70"}, {"KMP_BLOCKTIME", "3"}}),
                         probe);
  CapturedWarnings warnings;
  config.SetSpinWaitUs(5);
  EXPECT_EQ(config.Resolve().spin_wait_us.value, 70);
  EXPECT_EQ(config.Resolve().spin_wait_us.source, "env:LOOM_SPIN_WAIT_US");
  EXPECT_EQ(warnings.lines.size(), 1u);
}

TEST(Config, KmpBlocktimeZeroMeansNoSpinning) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"KMP_BLOCKTIME", "0"}}), probe);
  EXPECT_EQ(config.Resolve().spin_wait_us.value, 0);
  EXPECT_EQ(config.Resolve().spin_wait_us.source, "env:KMP_BLOCKTIME");
  ThreadingConfig millis(MapEnvironment({{"KMP_BLOCKTIME", "2"}}), probe);
  EXPECT_EQ(millis.Resolve().spin_wait_us.value, 2000);
}

TEST(Config, DefaultSpinIsAutomatic) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  EXPECT_EQ(config.Resolve().spin_wait_us.value, kDefaultSpinWaitUs);
  EXPECT_EQ(config.Resolve().spin_wait_us.source, "auto");
}

TEST(Config, ChangeAfterStartThrowsTensorFlowText) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetIntraOpThreads(2);
  config.Freeze();
  EXPECT_EQ(MessageOf([&] { config.SetIntraOpThreads(1); }),
            "Intra op parallelism cannot be modified after initialization.");
  EXPECT_EQ(MessageOf([&] { config.SetInterOpThreads(7); }),
            "Inter op parallelism cannot be modified after initialization.");
  EXPECT_THROW(config.SetInterOpThreads(7), RuntimeError);
  EXPECT_THROW(config.SetSpinWaitUs(1234), RuntimeError);
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 2);
}

TEST(Config, SameValueAfterStartIsOk) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetIntraOpThreads(2);
  ResolvedThreading frozen = config.Freeze();
  EXPECT_NO_THROW(config.SetIntraOpThreads(2));
  // The automatic values, asked for explicitly or by 0, change nothing either.
  EXPECT_NO_THROW(config.SetInterOpThreads(frozen.inter_op_threads.value));
  EXPECT_NO_THROW(config.SetInterOpThreads(0));
  EXPECT_NO_THROW(config.SetSpinWaitUs(frozen.spin_wait_us.value));
}

TEST(Config, EnvOverriddenCallAfterStartIsNotAnError) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_INTRAOP_THREADS", "1"}}), probe);
  config.Freeze();
  CapturedWarnings warnings;
  EXPECT_NO_THROW(config.SetIntraOpThreads(5));  // changes nothing: env wins
  EXPECT_EQ(config.Resolve().intra_op_threads.value, 1);
  EXPECT_EQ(warnings.lines.size(), 1u);
}

TEST(Config, InvalidValueAfterStartIsInvalidArgument) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.Freeze();
  EXPECT_THROW(config.SetIntraOpThreads(-1), InvalidArgumentError);
}

TEST(Config, OversubscriptionWarnsOnceButIsAllowed) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetIntraOpThreads(8);
  CapturedWarnings warnings;
  EXPECT_EQ(config.Freeze().intra_op_threads.value, 8);
  config.Freeze();
  config.Resolve();
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("oversubscription"), std::string::npos) << warnings.lines[0];
}

TEST(Config, NoOversubscriptionWarningWithinUsableCpus) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  CapturedWarnings warnings;
  config.Freeze();
  EXPECT_TRUE(warnings.lines.empty());
}

// A scheduler's allotment (Ray actor num_cpus): automatic values within it.
FakeSystemProbe EightCpuHost() { return Host(8, {0, 1, 2, 3, 4, 5, 6, 7}, "max 100000"); }

TEST(Config, AllotmentBoundsEveryAutomaticValueAndTurnsTheBudgetOn) {
  FakeSystemProbe probe = EightCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetCpuAllotment(3, "ray");
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.cpu.usable, 3);
  EXPECT_EQ(r.cpu.allotment, 3);
  EXPECT_EQ(r.cpu.allotment_granted_by, "ray");
  for (const Setting& s :
       {r.intra_op_threads, r.inter_op_threads, r.data_pipeline_threads, r.cpu_budget}) {
    EXPECT_EQ(s.value, 3);
    EXPECT_EQ(s.source, "auto:ray");
  }
}

TEST(Config, AllotmentAboveTheUsableCpusIsCappedByThem) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetCpuAllotment(6, "ray");
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.cpu.usable, 2);
  EXPECT_EQ(r.intra_op_threads.value, 2);
  EXPECT_EQ(r.cpu.allotment, 6);
}

TEST(Config, ExplicitSettingsOutrankTheAllotmentAndWarnNamingBothNumbers) {
  FakeSystemProbe probe = EightCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_INTEROP_THREADS", "5"}}), probe);
  config.SetCpuAllotment(2, "ray");
  config.SetIntraOpThreads(4);
  CapturedWarnings warnings;
  ResolvedThreading r = config.Freeze();
  EXPECT_EQ(r.intra_op_threads.value, 4);
  EXPECT_EQ(r.intra_op_threads.source, "api");
  EXPECT_EQ(r.inter_op_threads.value, 5);
  EXPECT_EQ(r.inter_op_threads.source, "env:LOOM_NUM_INTEROP_THREADS");
  EXPECT_EQ(r.data_pipeline_threads.value, 2);
  ASSERT_EQ(warnings.lines.size(), 2u);
  EXPECT_NE(warnings.lines[0].find("intra_op_parallelism_threads=4 (api) exceeds the 2 CPU(s) of "
                                   "the allotment granted by ray (2 assigned, 8 usable"),
            std::string::npos)
      << warnings.lines[0];
  EXPECT_NE(warnings.lines[1].find("inter_op_parallelism_threads=5"), std::string::npos)
      << warnings.lines[1];
}

TEST(Config, WithAnAllotmentOmpNumThreadsNoLongerDecidesAndADifferentValueIsReported) {
  FakeSystemProbe probe = EightCpuHost();
  ThreadingConfig same(MapEnvironment({{"OMP_NUM_THREADS", "2"}}), probe);
  same.SetCpuAllotment(2, "ray");
  CapturedWarnings warnings;
  EXPECT_EQ(same.Freeze().intra_op_threads.source, "auto:ray");
  EXPECT_TRUE(warnings.lines.empty());  // Ray's own OMP_NUM_THREADS agrees: nothing to say

  ThreadingConfig other(MapEnvironment({{"OMP_NUM_THREADS", "6"}}), probe);
  other.SetCpuAllotment(2, "ray");
  EXPECT_EQ(other.Freeze().intra_op_threads.value, 2);
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("OMP_NUM_THREADS=6 is ignored"), std::string::npos)
      << warnings.lines[0];
}

TEST(Config, AnExplicitBudgetOutranksTheAllotment) {
  FakeSystemProbe probe = EightCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetCpuAllotment(2, "ray");
  config.SetCpuBudget(0);  // 0 = the usable CPUs, which the allotment caps
  EXPECT_EQ(config.Resolve().cpu_budget.value, 2);
  EXPECT_EQ(config.Resolve().cpu_budget.source, "api");
  config.SetCpuBudget(7);
  EXPECT_EQ(config.Resolve().cpu_budget.value, 7);
}

TEST(Config, AllotmentZeroRemovesItAndBadNamesOrCountsAreRefused) {
  FakeSystemProbe probe = EightCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetCpuAllotment(2, "ray");
  config.SetCpuAllotment(0, "");
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.cpu.allotment, 0);
  EXPECT_EQ(r.intra_op_threads.value, 8);
  EXPECT_EQ(r.intra_op_threads.source, "auto");
  EXPECT_EQ(r.cpu_budget.value, config::threading::kNoCpuBudget);
  EXPECT_NE(MessageOf([&] { config.SetCpuAllotment(-1, "ray"); }).find("must be positive"),
            std::string::npos);
  EXPECT_NE(MessageOf([&] { config.SetCpuAllotment(2, "my scheduler"); }).find("one word"),
            std::string::npos);
  EXPECT_NE(MessageOf([&] { config.SetCpuAllotment(2, ""); }).find("granted_by"),
            std::string::npos);
}

TEST(Config, AllotmentIsFixedOnceTheRuntimeOrTheBudgetIs) {
  FakeSystemProbe probe = EightCpuHost();
  ThreadingConfig started(MapEnvironment({}), probe);
  started.SetCpuAllotment(2, "ray");
  started.Freeze();
  started.SetCpuAllotment(2, "ray");  // restating it is fine
  EXPECT_NE(MessageOf([&] {
              started.SetCpuAllotment(3, "ray");
            }).find("The CPU allotment cannot be modified after initialization."),
            std::string::npos);

  ThreadingConfig budget_only(MapEnvironment({}), probe);
  budget_only.FreezeCpuBudget();  // a private session fixed the budget
  EXPECT_NE(MessageOf([&] { budget_only.SetCpuAllotment(1, "ray"); }).find("cannot be modified"),
            std::string::npos);
}

TEST(Config, PinningOutsideAffinityMaskIsRejectedAtConfigurationTime) {
  FakeSystemProbe probe = Host(8, {0, 5, 7}, "max 100000");
  ThreadingConfig config(MapEnvironment({}), probe);
  std::string message = MessageOf([&] { config.SetIntraOpCpus({5, 1}); });
  EXPECT_NE(message.find("CPU 1"), std::string::npos) << message;
  EXPECT_NE(message.find("0,5,7"), std::string::npos) << message;
  EXPECT_THROW(config.SetInterOpCpus({8}), InvalidArgumentError);
  config.SetIntraOpCpus({5, 7});
  EXPECT_EQ(config.Resolve().intra_op_cpus.cpus, (std::vector<int>{5, 7}));
  EXPECT_EQ(config.Resolve().intra_op_cpus.source, "api");
  EXPECT_TRUE(config.Resolve().inter_op_cpus.cpus.empty());
}

TEST(Config, PinningVariableIsValidatedAgainstAffinityMask) {
  FakeSystemProbe probe = Host(8, {0, 5, 7}, "max 100000");
  ThreadingConfig bad(MapEnvironment({{"LOOM_INTEROP_CPUS", "0-1"}}), probe);
  EXPECT_THROW(bad.Freeze(), InvalidArgumentError);
  ThreadingConfig good(MapEnvironment({{"LOOM_INTEROP_CPUS", "5,7"}}), probe);
  EXPECT_EQ(good.Freeze().inter_op_cpus.source, "env:LOOM_INTEROP_CPUS");
}

TEST(Config, AutomaticDataThreadsAreUsableCpus) {
  FakeSystemProbe quota = Host(8, {0, 1, 2, 3, 4, 5, 6, 7}, "300000 100000");
  ResolvedThreading r = ThreadingConfig(MapEnvironment({}), quota).Resolve();
  EXPECT_EQ(r.data_pipeline_threads.value, 3);
  EXPECT_EQ(r.data_pipeline_threads.source, "auto");
  FakeSystemProbe sparse = Host(8, {1, 6}, "max 100000");
  EXPECT_EQ(ThreadingConfig(MapEnvironment({}), sparse).Resolve().data_pipeline_threads.value, 2);
}

TEST(Config, DataThreadsFromApi) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetDataPipelineThreads(5);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.value, 5);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.source, "api");
  config.SetDataPipelineThreads(0);  // back to automatic
  EXPECT_EQ(config.Resolve().data_pipeline_threads.value, 2);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.source, "auto");
}

TEST(Config, DataThreadsVariableOutranksApiAndTheCallWarns) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_DATA_THREADS", "6"}}), probe);
  CapturedWarnings warnings;
  config.SetDataPipelineThreads(3);
  ResolvedThreading r = config.Resolve();
  EXPECT_EQ(r.data_pipeline_threads.value, 6);
  EXPECT_EQ(r.data_pipeline_threads.source, "env:LOOM_NUM_DATA_THREADS");
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("set_data_pipeline_threads(3)"), std::string::npos)
      << warnings.lines[0];
  EXPECT_NE(warnings.lines[0].find("LOOM_NUM_DATA_THREADS=6"), std::string::npos)
      << warnings.lines[0];
  // The other settings are untouched by it.
  EXPECT_EQ(r.intra_op_threads.source, "auto");
  EXPECT_EQ(r.inter_op_threads.source, "auto");
}

TEST(Config, DataThreadsVariableZeroMeansAutomatic) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({{"LOOM_NUM_DATA_THREADS", "0"}}), probe);
  CapturedWarnings warnings;
  config.SetDataPipelineThreads(7);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.value, 2);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.source, "env:LOOM_NUM_DATA_THREADS");
}

TEST(Config, InvalidDataThreadsVariableIsRefusedNamingIt) {
  FakeSystemProbe probe = TwoCpuHost();
  for (const char* value : {"abc", "-1", "3.5", ""}) {
    ThreadingConfig config(MapEnvironment({{"LOOM_NUM_DATA_THREADS", value}}), probe);
    std::string message = MessageOf([&] { config.Freeze(); });
    EXPECT_NE(message.find(std::string("LOOM_NUM_DATA_THREADS='") + value + "'"), std::string::npos)
        << message;
    EXPECT_FALSE(config.frozen());
    EXPECT_THROW(config.Resolve(), InvalidArgumentError);
  }
}

TEST(Config, DataThreadsVariableIsListedWithoutATensorFlowAlias) {
  const std::vector<std::string>& names = ThreadingEnvironmentVariables();
  EXPECT_EQ(std::count(names.begin(), names.end(), "LOOM_NUM_DATA_THREADS"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "TF_NUM_DATA_THREADS"), 0);
}

TEST(Config, InvalidDataThreadCountThrowsNamingTheSetting) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  std::string message = MessageOf([&] { config.SetDataPipelineThreads(-2); });
  EXPECT_NE(message.find("data_pipeline_threads"), std::string::npos) << message;
  EXPECT_THROW(config.SetDataPipelineThreads(-2), InvalidArgumentError);
  EXPECT_THROW(config.SetDataPipelineThreads(config::threading::kMaxThreads + 1),
               InvalidArgumentError);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.source, "auto");
}

TEST(Config, DataThreadsChangeAfterStartThrows) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetDataPipelineThreads(3);
  CapturedWarnings warnings;  // 3 > 2 usable CPUs: an oversubscription warning
  config.Freeze();
  EXPECT_EQ(MessageOf([&] { config.SetDataPipelineThreads(4); }),
            "Data pipeline parallelism cannot be modified after initialization.");
  EXPECT_THROW(config.SetDataPipelineThreads(0), RuntimeError);  // auto would be 2
  EXPECT_NO_THROW(config.SetDataPipelineThreads(3));             // the value in force
  EXPECT_EQ(config.Resolve().data_pipeline_threads.value, 3);
  EXPECT_EQ(config.Resolve().data_pipeline_threads.source, "api");
}

TEST(Config, AutomaticDataThreadsMayBeRestatedAfterStart) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.Freeze();
  EXPECT_NO_THROW(config.SetDataPipelineThreads(0));
  EXPECT_NO_THROW(config.SetDataPipelineThreads(2));
  EXPECT_THROW(config.SetDataPipelineThreads(1), RuntimeError);
}

TEST(Config, DataThreadsAboveUsableCpusWarnOfOversubscription) {
  FakeSystemProbe probe = TwoCpuHost();
  ThreadingConfig config(MapEnvironment({}), probe);
  config.SetDataPipelineThreads(8);
  CapturedWarnings warnings;
  EXPECT_EQ(config.Freeze().data_pipeline_threads.value, 8);
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("data_pipeline_threads=8"), std::string::npos)
      << warnings.lines[0];
}

}  // namespace
}  // namespace loom::threading
