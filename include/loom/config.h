// Loom's threading configuration, mirroring tf.config.threading.
//
//   loom::config::threading::set_intra_op_parallelism_threads(4);
//   int n = loom::config::threading::get_intra_op_parallelism_threads();  // 4
//
// Rules (each is tested; docs/threading.md explains them at length):
//  - 0 means automatic. Negative counts and counts above kMaxThreads throw
//    loom::InvalidArgumentError ("Number of threads must be positive ...").
//  - Environment variables, read once, outrank these calls:
//      LOOM_NUM_INTRAOP_THREADS (alias TF_NUM_INTRAOP_THREADS)
//      LOOM_NUM_INTEROP_THREADS (alias TF_NUM_INTEROP_THREADS)
//      LOOM_NUM_DATA_THREADS    (no alias: tf.data has no such variable)
//      LOOM_SPIN_WAIT_US        (alias KMP_BLOCKTIME, in milliseconds)
//      LOOM_INTRAOP_CPUS, LOOM_INTEROP_CPUS (CPU lists such as "0-3,6")
//      LOOM_CPU_BUDGET          (no alias: no peer has a process budget)
//    The LOOM_ name wins over its alias. A call that a variable overrides
//    still validates its argument, changes nothing and logs a warning.
//    OMP_NUM_THREADS is only a fallback for the automatic intra-op value.
//    An invalid value in a LOOM_ or TF_ variable makes the runtime refuse to
//    start (and the getters throw) with loom::InvalidArgumentError naming it.
//    OMP_NUM_THREADS and KMP_BLOCKTIME belong to other libraries: read in
//    their forms only when they decide a value; an empty one is unset, one
//    Loom cannot use is ignored with a warning when the runtime starts.
//  - Getters return the value in force, never 0: automatic values are
//    resolved exactly as the pools will be sized.
//  - Settings are open until the runtime starts (loom::start_runtime(), or
//    the first session on the global pools, eager op or data pipeline).
//    After that a call that would change a value throws loom::RuntimeError
//    ("Intra op parallelism cannot be modified after initialization.");
//    re-setting the value in force is fine. A session with private pools
//    fixes only the CPU budget (which it shares); the global pools'
//    settings stay open until something uses them.
//  - Automatic intra-op = usable CPUs: the affinity mask, counted in physical
//    cores, capped by the cgroup CPU quota (rounded up). Automatic inter-op
//    = usable CPUs too (the measurements behind it: docs/threading.md).
//
// What a count means: intra_op_parallelism_threads = N lets one op run on N
// threads — the thread that calls it plus N-1 "loom-intra-*" workers.
// inter_op_parallelism_threads = M lets one session run execute M nodes at
// once — the thread that calls run() plus M-1 "loom-inter-*" workers (so 1
// creates none). data_pipeline_threads = D creates D "loom-data-*" threads
// (the consumer only takes finished elements). Automatic = usable CPUs.
// Each pool is created when first used — the intra-op pool by the first
// op or session, the inter-op pool by the first session, the data pool by
// the first loom::data iterator — so a process has only the threads it
// uses. A session's private pools are named with its number:
// "loom-s1-intra-0" (thread names hold 15 characters; past that the pool
// name shortens: "loom-s12-ia-0", "ie" for inter, "d" for data).
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::config::threading {

inline constexpr int kMaxThreads = 4096;
inline constexpr int kMaxSpinWaitUs = 1'000'000;

void set_intra_op_parallelism_threads(int num_threads);
int get_intra_op_parallelism_threads();

void set_inter_op_parallelism_threads(int num_threads);
int get_inter_op_parallelism_threads();

// The pool that runs loom::data pipelines (parallel map, prefetch).
void set_data_pipeline_threads(int num_threads);
int get_data_pipeline_threads();

// How long an idle worker (or a caller waiting for helpers) spins before it
// blocks, in microseconds. 0 blocks at once: the good-neighbour setting.
void set_spin_wait_us(int microseconds);
int get_spin_wait_us();

// The process's CPU budget: at most this many threads run Loom work at any
// moment — intra-op helpers, inter-op runners, data-pipeline workers and
// application threads inside a session run or an eager op together — however
// many application threads call Loom and however many pools exist. Threads
// without a token wait (blocked) or leave their share of the work to a
// thread that holds one; waiting callers are served in arrival order.
// Environment variable LOOM_CPU_BUDGET outranks it. 0 = the usable CPUs
// (affinity mask and cgroup quota). Unset, there is no budget (the getter
// returns kNoCpuBudget): an automatic budget of the usable CPUs cost Python
// workloads throughput where a token holder waits for the GIL or the ops are
// short (docs/threading.md, "The CPU budget"), so it is opt-in until fixed.
inline constexpr int kNoCpuBudget = kMaxThreads;
void set_cpu_budget(int tokens);
int get_cpu_budget();

// The CPUs a scheduler assigned to this process without enforcing them (no
// affinity mask, no cgroup quota): a Ray actor's num_cpus, a Dask worker's
// nthreads, a batch job's slots. Automatic values are then based on
// min(usable CPUs, cpus) and their source reads "auto:<granted_by>"; the
// automatic CPU budget becomes that number (a budget applies), and
// OMP_NUM_THREADS no longer decides the automatic intra-op value. Explicit
// settings (variables, calls) still win; one above the allotment warns when
// the runtime starts, naming both numbers. 0 = no allotment (the default).
// `granted_by` names the scheduler: a word of letters, digits, '-', '_' or
// '.' ("ray"). The Python package calls it inside Ray workers (loom.ray).
void set_cpu_allotment(int cpus, const std::string& granted_by);
int get_cpu_allotment();  // 0 = none

// Pins the pool's workers (worker i to cpus[i % size]); empty = no pinning.
// Every CPU must be in the process's affinity mask, else
// loom::InvalidArgumentError is thrown here, not when the pool starts.
void set_intra_op_cpu_affinity(const std::vector<int>& cpus);
std::vector<int> get_intra_op_cpu_affinity();
void set_inter_op_cpu_affinity(const std::vector<int>& cpus);
std::vector<int> get_inter_op_cpu_affinity();

// Where a value came from: "env:<VARIABLE>", "api", "env:OMP_NUM_THREADS"
// (the fallback), "auto", or "auto:<granted_by>" (automatic within a CPU
// allotment, set_cpu_allotment); "flag --<name>" when the `loom` command set it
// from its flag (calls through this API are always "api").
struct Setting {
  int value = 0;
  std::string source;
};

struct CpuAffinitySetting {
  std::vector<int> cpus;  // empty: not pinned
  std::string source;
};

struct CpuDescription {
  int logical = 0;                     // CPUs online on the host
  int affinity = 0;                    // CPUs in this process's affinity mask
  std::vector<int> affinity_cpus;      // which ones
  std::optional<double> cgroup_quota;  // in CPUs; nullopt = no quota
  int physical_cores = 0;              // distinct cores among the affinity CPUs
  int usable = 0;                      // what "auto" is based on
  int allotment = 0;                   // set_cpu_allotment's cpus, 0 = none
  std::string allotment_granted_by;    // its granted_by, "" = none
  std::vector<std::string> notes;      // facts that could not be read
};

struct ThreadDescription {
  std::string name;              // "loom-intra-0", "loom-s1-intra-0"
  std::string pool;              // "intra_op", "inter_op" or "data"
  int tid = 0;                   // kernel thread id
  std::string owner = "global";  // or "session 1": a session's private pools
};

// One asynchronous stage of a live loom::data iterator (parallel map,
// prefetch) and what it chose.
struct PipelineStageDescription {
  std::string name;         // "map#2", "prefetch#4": kind#position from the source
  int parallelism = 0;      // elements it may compute at once now (prefetch: 1)
  bool autotuned = false;   // AUTOTUNE: a map's parallelism or a prefetch's
                            // buffer_size is chosen by measurement
  int max_parallelism = 0;  // the most a map's AUTOTUNE may choose (the pool
                            // and cpu_budget cap it)
  int buffer_size = 0;      // prefetch: finished elements it may hold (it
                            // computes one more meanwhile); map: elements it
                            // may hold in all (2 x parallelism)
  int64_t produced = 0;     // elements delivered downstream so far
  int buffered = 0;         // finished elements it holds now, not yet taken
  int in_progress = 0;      // elements being pulled from upstream or computed now
};

struct PipelineDescription {
  int64_t id = 0;  // one per iterator, in creation order
  int cpu_budget = 0;
  int max_intra_op_parallelism = 0;
  std::vector<PipelineStageDescription> stages;
};

struct Description {
  Setting intra_op_parallelism_threads;
  Setting inter_op_parallelism_threads;
  Setting data_pipeline_threads;
  Setting spin_wait_us;
  Setting cpu_budget;
  // Tokens of the CPU budget held and threads waiting for one, right now (0
  // until a session, op or pipeline starts, or with no budget).
  int cpu_budget_in_use = 0;
  int cpu_budget_waiting = 0;
  CpuAffinitySetting intra_op_cpu_affinity;
  CpuAffinitySetting inter_op_cpu_affinity;
  CpuDescription cpu;
  bool runtime_started = false;
  // Every live Loom worker thread: the global pools' first, then each
  // session's private pools (owner "session N"), in creation order.
  std::vector<ThreadDescription> threads;
  // loom::data iterators alive now, with their stages' chosen values.
  std::vector<PipelineDescription> data_pipelines;

  // The same, as one JSON object (the format of `loom threads --json`).
  std::string to_json() const;
};

// Every effective value with its source. Does not start the runtime.
Description describe();

}  // namespace loom::config::threading
