// CPU-time readings for the data-pipeline benchmark: the calling thread's
// clock, the OS's per-thread counters for a group of named threads, and a
// log of map-function calls that attributes the pipeline's own compute to a
// wall-clock window wherever it ran (pool thread or consumer).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace loom::bench {

// steady_clock now, in ns.
int64_t WallNs();

// CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in ns.
int64_t ThreadCpuNs();

// utime + stime of this process's threads whose name starts with `prefix`
// ("loom-data-"), from /proc/self/task/<tid>/stat, in seconds. The kernel
// counts in clock ticks (usually 10 ms), so short windows are coarse.
// Threads that vanish while being read are skipped.
double NamedThreadsCpuSeconds(const std::string& prefix);

// One entry per map-function call.
//
// Thread-safe: Record may be called from any thread at once; the readers
// must not race with Clear.
class CallCpuLog {
 public:
  void Clear();
  void Record(int64_t wall_start_ns, int64_t wall_end_ns, int64_t cpu_ns);

  // CPU seconds of the calls inside [from_ns, to_ns], a call straddling an
  // edge counted in proportion to its wall time inside (its CPU time is
  // assumed spread evenly over its wall interval). Exact for the calls
  // wholly inside; the edges are at most one call per thread.
  double CpuSecondsIn(int64_t from_ns, int64_t to_ns) const;

  // Median CPU ms of the calls that ended inside [from_ns, to_ns]; 0 if none.
  double MedianCallCpuMs(int64_t from_ns, int64_t to_ns) const;

 private:
  struct Call {
    int64_t wall_start_ns;
    int64_t wall_end_ns;
    int64_t cpu_ns;
  };
  mutable std::mutex mutex_;
  std::vector<Call> calls_;
};

}  // namespace loom::bench
