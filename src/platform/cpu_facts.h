// CpuFacts: how many CPUs this process can really use, and why.
//
// usable = min(physical cores among the CPUs in the affinity mask,
//              ceil(cgroup CPU quota)), and at least 1.
// The cgroup quota is the tightest of this process's cgroup and its ancestors
// (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`). SMT siblings
// (from /sys/devices/system/cpu/cpuN/topology) count as one core; when the
// topology cannot be read every CPU counts as a core.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/system_probe.h"

namespace loom::platform {

struct CpuFacts {
  int logical = 1;                          // CPUs online on the host
  std::vector<int> affinity_cpus;           // CPUs this process may run on, ascending
  std::optional<double> cgroup_quota_cpus;  // quota / period, nullopt when unlimited
  std::string cgroup_quota_file;            // file the binding quota came from, "" if none
  int physical_cores = 1;                   // distinct cores among affinity_cpus
  int usable = 1;                           // what automatic thread counts are based on
  // CPUs a scheduler assigned to the process without enforcing them (a Ray
  // actor's num_cpus; loom::config::threading::set_cpu_allotment), 0 = none.
  // Not detected here: when set, usable is capped by it.
  int allotment = 0;
  std::string allotment_granted_by;  // "ray", ...; "" when allotment is 0
  // Facts that could not be read or parsed and what was assumed instead,
  // e.g. "cannot read /sys/.../thread_siblings_list: counting each CPU as a core".
  std::vector<std::string> notes;
};

// Never throws: unreadable or malformed files become notes and the most
// permissive safe assumption (no quota, one core per CPU, all online CPUs).
CpuFacts DetectCpuFacts(const SystemProbe& probe);

}  // namespace loom::platform
