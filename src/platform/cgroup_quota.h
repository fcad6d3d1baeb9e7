// The cgroup CPU quota that binds this process: the tightest of its cgroup
// and every ancestor, in cgroup v2 (`cpu.max`) and v1 (`cpu.cfs_quota_us` /
// `cpu.cfs_period_us`), located through /proc/self/cgroup and
// /proc/self/mountinfo (falling back to the usual mounts under
// /sys/fs/cgroup when those cannot be read).
#pragma once

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

}  // namespace loom::platform
