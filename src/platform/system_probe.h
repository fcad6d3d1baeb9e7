// SystemProbe: the raw machine facts Loom reads (files under /proc and /sys,
// the affinity mask, the online CPU count), behind an interface so tests can
// fake any host — a 64-CPU box limited to 3 CPUs by a cgroup, a sparse cpuset,
// SMT pairs, a container with no /sys, malformed files — on a 2-core machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace loom::platform {

class SystemProbe {
 public:
  virtual ~SystemProbe() = default;
  // Whole contents of `path`, or nullopt if it does not exist or cannot be read.
  virtual std::optional<std::string> ReadFile(const std::string& path) const = 0;
  // CPUs in this process's affinity mask (sched_getaffinity), ascending, or
  // nullopt when the mask cannot be read.
  virtual std::optional<std::vector<int>> AffinityCpus() const = 0;
  // CPUs online on the host (sysconf(_SC_NPROCESSORS_ONLN)); at least 1.
  virtual int OnlineCpuCount() const = 0;
};

// The probe for the machine this process runs on. Thread-safe; lives forever.
const SystemProbe& RealSystemProbe();

}  // namespace loom::platform
