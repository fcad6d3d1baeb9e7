// The cgroup CPU quota and memory limit that bind this process: the
// tightest of its cgroup and every ancestor, in cgroup v2 (`cpu.max`,
// `memory.max`) and v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`,
// `memory.limit_in_bytes`), located through /proc/self/cgroup and
// /proc/self/mountinfo (falling back to the usual mounts under
// /sys/fs/cgroup when those cannot be read).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/system_probe.h"

namespace loom::platform {

struct CgroupQuota {
  double cpus = 0;   // quota / period, e.g. 1.5
  std::string file;  // the file that set it
};

// nullopt when no level sets a quota. Never throws: malformed files are
// skipped and described in `notes`.
std::optional<CgroupQuota> DetectCgroupQuota(const SystemProbe& probe,
                                             std::vector<std::string>& notes);

struct CgroupMemoryLimit {
  int64_t bytes = 0;
  std::string file;  // the file that set it
};

// nullopt when no level sets a limit; the same rules as DetectCgroupQuota.
std::optional<CgroupMemoryLimit> DetectCgroupMemoryLimit(const SystemProbe& probe,
                                                         std::vector<std::string>& notes);

}  // namespace loom::platform
