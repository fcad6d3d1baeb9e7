// ThreadingConfig: the settings behind loom::config::threading, their
// sources, and the freeze when the runtime starts.
//
// One instance backs the public API (GlobalThreadingConfig); tests build
// their own with a fake Environment and SystemProbe, so every rule can be
// checked in one process without touching the real environment.
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "loom/config.h"
#include "platform/cpu_facts.h"
#include "platform/system_probe.h"
#include "threading/environment.h"

namespace loom::threading {

using config::threading::CpuAffinitySetting;
using config::threading::Setting;

// Every effective value, resolved exactly as the pools will be sized.
struct ResolvedThreading {
  Setting intra_op_threads;
  Setting inter_op_threads;
  Setting data_pipeline_threads;
  Setting spin_wait_us;
  Setting cpu_budget;
  CpuAffinitySetting intra_op_cpus;
  CpuAffinitySetting inter_op_cpus;
  platform::CpuFacts cpu;
  // Other libraries' variables that decided nothing because Loom cannot use
  // their values (one sentence each, naming the variable); logged once by
  // Freeze().
  std::vector<std::string> ignored_variables;
};

// Every environment variable the configuration reads, highest rank first
// within each setting.
const std::vector<std::string>& ThreadingEnvironmentVariables();

// The automatic inter-op count for `usable` CPUs (see docs/threading.md for
// the measurements behind it).
int AutoInterOpThreads(int usable_cpus);

// Who asks for a value. The public API asks as Requester{}: the value's
// source is "api" and the warning when an environment variable outranks it
// names the function called ("set_intra_op_parallelism_threads(2)"). A tool
// that sets values for its user passes its own words — the loom command's
// `--intra 2` is {"flag --intra", "--intra 2"} — so reports and warnings name
// what the user typed, not a function the user never called.
struct Requester {
  std::string source = "api";  // the resolved Setting's source
  std::string call;            // for warnings; empty: the API function and argument
};

// The automatic spin time, in microseconds.
inline constexpr int kDefaultSpinWaitUs = 50;

class ThreadingConfig {
 public:
  // Reads every variable it will ever use from `environment` and detects the
  // CPU facts now, once; later changes to either are not seen.
  ThreadingConfig(const Environment& environment, const platform::SystemProbe& probe);

  void SetIntraOpThreads(int num_threads, const Requester& by = {});
  void SetInterOpThreads(int num_threads, const Requester& by = {});
  void SetDataPipelineThreads(int num_threads, const Requester& by = {});
  void SetSpinWaitUs(int microseconds, const Requester& by = {});
  void SetCpuBudget(int tokens, const Requester& by = {});
  // loom::config::threading::set_cpu_allotment (config.h); 0 = none.
  void SetCpuAllotment(int cpus, const std::string& granted_by);
  void SetIntraOpCpus(const std::vector<int>& cpus, const Requester& by = {});
  void SetInterOpCpus(const std::vector<int>& cpus, const Requester& by = {});

  // The values in force (frozen ones once frozen). Throws
  // loom::InvalidArgumentError if an environment variable is invalid.
  ResolvedThreading Resolve() const;

  // Resolves, then refuses every later change of a value. Idempotent: later
  // calls return the values frozen by the first. Logs an oversubscription
  // warning once when a pool is larger than the usable CPUs.
  ResolvedThreading Freeze();

  bool frozen() const;

  // Fixes the CPU budget alone (what the process-wide CpuBudget is built
  // from) and returns it; the other settings stay open until Freeze(). A
  // session with private pools calls this, not Freeze(): it shares the
  // process's budget but not the global pools. Logs the ignored-variable
  // warnings if Freeze() has not. Idempotent.
  Setting FreezeCpuBudget();

 private:
  // A value asked for and its source; nullopt = never asked (for thread
  // counts, 0 = automatic too).
  template <typename T>
  struct Requested {
    std::optional<T> value;
    std::string source = "api";
  };
  // What the API (or a tool, see Requester) asked for.
  struct ApiValues {
    Requested<int> intra_op_threads;
    Requested<int> inter_op_threads;
    Requested<int> data_pipeline_threads;
    Requested<int> spin_wait_us;
    Requested<int> cpu_budget;
    Requested<int> cpu_allotment;  // source: the scheduler's name
    Requested<std::vector<int>> intra_op_cpus;
    Requested<std::vector<int>> inter_op_cpus;
  };

  ResolvedThreading ResolveLocked(const ApiValues& api) const;
  // The first of `names` that is set in the environment snapshot, if any.
  std::optional<std::pair<std::string, std::string>> FirstSet(
      std::initializer_list<const char*> names) const;
  // Applies `change` to a copy of the API values; before the freeze that
  // copy becomes current, after it the change must leave `field` unchanged.
  template <typename Change, typename Field>
  void Update(Change change, Field field, const char* frozen_message);
  void WarnIfOverridden(std::initializer_list<const char*> names, const std::string& call) const;
  void ValidateCpus(const std::vector<int>& cpus, const std::string& what) const;

  mutable std::mutex mutex_;
  std::map<std::string, std::string> env_;  // only the variables that are set
  platform::CpuFacts cpu_;
  ApiValues api_;
  std::optional<ResolvedThreading> frozen_;
  std::optional<Setting> frozen_budget_;  // FreezeCpuBudget(), or Freeze()
  bool warned_ignored_ = false;
  void WarnIgnoredOnceLocked(const ResolvedThreading& r);
};

// The configuration behind loom::config::threading, reading the process
// environment and the real machine on first use.
ThreadingConfig& GlobalThreadingConfig();

}  // namespace loom::threading
