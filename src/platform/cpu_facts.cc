#include "platform/cpu_facts.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include "base/text.h"
#include "platform/cgroup_quota.h"
#include "platform/cpu_list.h"

namespace loom::platform {
namespace {

using Notes = std::vector<std::string>;

using base::Trim;

// Slack for quota/period division, so floating-point noise just above a whole
// number of CPUs does not round up to one more.
constexpr double kQuotaTolerance = 1e-9;

// SMT siblings share a core, and each sibling lists the same set, so distinct
// sets are distinct cores. Any unreadable file makes the whole count fall back
// to one core per CPU: a partial count would mix two meanings of "core".
int CountPhysicalCores(const SystemProbe& probe, const std::vector<int>& cpus, Notes& notes) {
  std::set<std::vector<int>> cores;
  for (int cpu : cpus) {
    std::string file =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list";
    std::optional<std::string> text = probe.ReadFile(file);
    std::optional<std::vector<int>> siblings = text ? ParseCpuList(*text) : std::nullopt;
    if (!siblings || std::find(siblings->begin(), siblings->end(), cpu) == siblings->end()) {
      std::string problem = text ? "malformed " + file + " (\"" + std::string(Trim(*text)) + "\")"
                                 : "cannot read " + file;
      notes.push_back(problem + ": counting each CPU as a core");
      return static_cast<int>(cpus.size());
    }
    cores.insert(*std::move(siblings));
  }
  return static_cast<int>(cores.size());
}

}  // namespace

CpuFacts DetectCpuFacts(const SystemProbe& probe) {
  CpuFacts facts;
  facts.logical = std::max(1, probe.OnlineCpuCount());

  std::optional<std::vector<int>> affinity = probe.AffinityCpus();
  if (affinity && !affinity->empty()) {
    facts.affinity_cpus = *std::move(affinity);
    std::sort(facts.affinity_cpus.begin(), facts.affinity_cpus.end());
    facts.affinity_cpus.erase(std::unique(facts.affinity_cpus.begin(), facts.affinity_cpus.end()),
                              facts.affinity_cpus.end());
  } else {
    for (int cpu = 0; cpu < facts.logical; ++cpu) facts.affinity_cpus.push_back(cpu);
    facts.notes.push_back("cannot read the affinity mask: assuming all " +
                          std::to_string(facts.logical) + " online CPUs");
  }

  if (std::optional<CgroupQuota> quota = DetectCgroupQuota(probe, facts.notes)) {
    facts.cgroup_quota_cpus = quota->cpus;
    facts.cgroup_quota_file = quota->file;
  }

  facts.physical_cores = std::max(1, CountPhysicalCores(probe, facts.affinity_cpus, facts.notes));
  facts.usable = facts.physical_cores;
  if (facts.cgroup_quota_cpus) {
    // Compared as doubles first: a huge quota would overflow the int cast.
    double quota_cpus = std::ceil(*facts.cgroup_quota_cpus - kQuotaTolerance);
    if (quota_cpus < facts.usable) facts.usable = std::max(1, static_cast<int>(quota_cpus));
  }
  return facts;
}

}  // namespace loom::platform
