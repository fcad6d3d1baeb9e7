#include "platform/memory_limit.h"

#include <cctype>

#include "base/parse_number.h"
#include "base/text.h"
#include "platform/cgroup_quota.h"

namespace loom::platform {
namespace {

// "MemTotal:       24564408 kB" in /proc/meminfo.
std::optional<int64_t> MemTotalBytes(std::string_view meminfo) {
  for (std::string_view line : base::Split(meminfo, '\n')) {
    if (!line.starts_with("MemTotal:")) continue;
    std::string_view rest = base::Trim(line.substr(9));
    if (!rest.ends_with("kB")) return std::nullopt;
    std::optional<int64_t> kib = base::ParseInt64(base::Trim(rest.substr(0, rest.size() - 2)));
    if (!kib || *kib <= 0 || *kib > (int64_t{1} << 53)) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<MemoryLimit> DetectMemoryLimit(const SystemProbe& probe,
                                             std::vector<std::string>& notes) {
  std::optional<int64_t> physical;
  if (std::optional<std::string> meminfo = probe.ReadFile("/proc/meminfo")) {
    physical = MemTotalBytes(*meminfo);
    if (!physical) notes.push_back("no readable MemTotal line in /proc/meminfo");
  } else {
    notes.push_back("cannot read /proc/meminfo");
  }
  std::optional<CgroupMemoryLimit> cgroup = DetectCgroupMemoryLimit(probe, notes);
  // A cgroup limit above the machine's memory does not bind.
  if (cgroup && (!physical || cgroup->bytes < *physical)) {
    return MemoryLimit{cgroup->bytes, "cgroup limit " + cgroup->file};
  }
  if (physical) return MemoryLimit{*physical, "physical memory (/proc/meminfo)"};
  return std::nullopt;
}

std::optional<int64_t> ParseMemorySize(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 19) return std::nullopt;
  std::optional<int64_t> number = base::ParseInt64(text.substr(0, digits));
  if (!number || *number <= 0) return std::nullopt;
  std::string suffix;
  for (char c : text.substr(digits))
    suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (!suffix.empty() && suffix != "B") {
    const size_t unit = std::string_view("KMGT").find(suffix[0]);
    const std::string_view tail = std::string_view(suffix).substr(1);
    if (unit == std::string_view::npos || !(tail.empty() || tail == "B" || tail == "IB")) {
      return std::nullopt;
    }
    shift = 10 * (static_cast<int>(unit) + 1);
  }
  if (*number > (INT64_MAX >> shift)) return std::nullopt;
  return *number << shift;
}

}  // namespace loom::platform
