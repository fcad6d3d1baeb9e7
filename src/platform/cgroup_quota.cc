#include "platform/cgroup_quota.h"

#include <algorithm>
#include <string_view>

#include "base/parse_number.h"
#include "base/text.h"

namespace loom::platform {
namespace {

using Notes = std::vector<std::string>;

// Where cgroup files live when /proc cannot tell us: the usual v2 mount and
// the usual v1 mounts of the cpu and memory hierarchies.
constexpr char kDefaultV2Dir[] = "/sys/fs/cgroup";
constexpr char kDefaultV1CpuDir[] = "/sys/fs/cgroup/cpu";
constexpr char kDefaultV1MemoryDir[] = "/sys/fs/cgroup/memory";

using base::Split;
using base::Trim;

bool HasToken(std::string_view list, std::string_view token) {
  auto tokens = Split(list, ',');
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

std::string MalformedNote(const std::string& file, std::string_view content) {
  return "ignoring malformed " + file + ": \"" + std::string(Trim(content)) + "\"";
}

// ---- Which cgroup directories belong to this process ----------------------

// One cgroup hierarchy: where it is mounted, the cgroup path that mount shows
// at its mount point, and this process's cgroup path within the hierarchy.
struct Hierarchy {
  std::optional<std::string> mount_point;
  std::string mount_root;
  std::optional<std::string> process_path;
};

// The v2 hierarchy and the v1 hierarchy of one controller ("cpu", "memory").
struct Hierarchies {
  Hierarchy v2;
  Hierarchy v1;
};

// /proc/self/cgroup lines are "hierarchy-ID:controller-list:path"; v2 is
// "0::/path". The path may itself contain ':', so split only twice.
void ParseProcCgroup(std::string_view text, std::string_view controller, Hierarchies& out) {
  for (std::string_view line : Split(text, '\n')) {
    size_t first = line.find(':');
    size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    std::string_view id = line.substr(0, first);
    std::string_view controllers = line.substr(first + 1, second - first - 1);
    std::string path(line.substr(second + 1));
    if (id == "0" && controllers.empty()) {
      out.v2.process_path = path;
    } else if (HasToken(controllers, controller)) {
      out.v1.process_path = path;
    }
  }
}

// mountinfo escapes space, tab, newline and backslash in paths as \ooo.
std::string UnescapeMountPath(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    bool octal = text[i] == '\\' && i + 3 < text.size();
    if (octal && std::all_of(text.begin() + i + 1, text.begin() + i + 4,
                             [](char c) { return c >= '0' && c <= '7'; })) {
      out +=
          static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + text[i + 3] - '0');
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

// mountinfo fields: ID parent major:minor root mount-point options
// [optional fields...] - fstype source super-options.
void ParseMountInfo(std::string_view text, std::string_view controller, Hierarchies& out) {
  for (std::string_view line : Split(text, '\n')) {
    std::vector<std::string_view> fields;
    for (std::string_view field : Split(line, ' ')) {
      if (!field.empty()) fields.push_back(field);
    }
    auto dash = std::find(fields.begin(), fields.end(), "-");
    if (dash - fields.begin() < 6 || fields.end() - dash < 4) continue;
    std::string_view fstype = dash[1];
    std::string_view super_options = dash[3];
    Hierarchy* hierarchy = nullptr;
    if (fstype == "cgroup2") hierarchy = &out.v2;
    if (fstype == "cgroup" && HasToken(super_options, controller)) hierarchy = &out.v1;
    // First mount wins: later ones are usually bind mounts of the same tree.
    if (hierarchy == nullptr || hierarchy->mount_point) continue;
    hierarchy->mount_root = UnescapeMountPath(fields[3]);
    hierarchy->mount_point = UnescapeMountPath(fields[4]);
  }
}

// The process's cgroup directory and its ancestors up to the mount point,
// innermost first. A container that bind-mounts the host's cgroup tree shows
// mount root "/docker/<id>" and the same process path, so the root prefix is
// stripped; a path outside the mount root cannot be located, so only the
// mount point itself is checked.
std::vector<std::string> CgroupLevels(const Hierarchy& hierarchy, Notes& notes) {
  std::string_view path = *hierarchy.process_path;
  std::string_view root = hierarchy.mount_root;
  if (root == "/") root = "";
  bool inside_root = path.substr(0, root.size()) == root &&
                     (path.size() == root.size() || path[root.size()] == '/');
  if (inside_root) {
    path.remove_prefix(root.size());
  } else {
    notes.push_back("cgroup path " + std::string(path) + " is outside the mount root " +
                    hierarchy.mount_root + ": checking only " + *hierarchy.mount_point);
    path = "";
  }
  std::vector<std::string> levels = {*hierarchy.mount_point};
  for (std::string_view component : Split(path, '/')) {
    if (component.empty()) continue;
    // A mount point of "/" already ends in the separator.
    std::string_view separator = levels.back().ends_with('/') ? "" : "/";
    levels.push_back(levels.back() + std::string(separator) + std::string(component));
  }
  std::reverse(levels.begin(), levels.end());
  return levels;
}

// ---- Reading one level's quota --------------------------------------------

std::optional<int64_t> ParsePositive(std::string_view text) {
  std::optional<int64_t> value = base::ParseInt64(Trim(text));
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

// v2 cpu.max: "<quota> <period>" in microseconds, quota "max" when unlimited.
std::optional<CgroupQuota> ReadV2Level(const SystemProbe& probe, const std::string& dir,
                                       Notes& notes) {
  std::string file = dir + "/cpu.max";
  std::optional<std::string> text = probe.ReadFile(file);
  if (!text) return std::nullopt;  // the root cgroup has no cpu.max
  std::vector<std::string_view> fields;
  for (std::string_view field : Split(Trim(*text), ' ')) {
    if (!field.empty()) fields.push_back(field);
  }
  std::optional<int64_t> period = fields.size() == 2 ? ParsePositive(fields[1]) : std::nullopt;
  std::optional<int64_t> quota = period ? ParsePositive(fields[0]) : std::nullopt;
  if (period && fields[0] == "max") return std::nullopt;
  if (!quota) {
    notes.push_back(MalformedNote(file, *text));
    return std::nullopt;
  }
  return CgroupQuota{static_cast<double>(*quota) / static_cast<double>(*period), file};
}

// v1: cpu.cfs_quota_us (-1 when unlimited) over cpu.cfs_period_us.
std::optional<CgroupQuota> ReadV1Level(const SystemProbe& probe, const std::string& dir,
                                       Notes& notes) {
  std::string quota_file = dir + "/cpu.cfs_quota_us";
  std::optional<std::string> quota_text = probe.ReadFile(quota_file);
  if (!quota_text) return std::nullopt;
  if (base::ParseInt64(Trim(*quota_text)) == -1) return std::nullopt;
  std::optional<int64_t> quota = ParsePositive(*quota_text);
  if (!quota) {
    notes.push_back(MalformedNote(quota_file, *quota_text));
    return std::nullopt;
  }
  std::string period_file = dir + "/cpu.cfs_period_us";
  std::optional<std::string> period_text = probe.ReadFile(period_file);
  if (!period_text) {
    notes.push_back("cannot read " + period_file + ": ignoring the quota in " + quota_file);
    return std::nullopt;
  }
  std::optional<int64_t> period = ParsePositive(*period_text);
  if (!period) {
    notes.push_back(MalformedNote(period_file, *period_text));
    return std::nullopt;
  }
  return CgroupQuota{static_cast<double>(*quota) / static_cast<double>(*period), quota_file};
}

// ---- Reading one level's memory limit ----------------------------------------

// v1 writes "no limit" as a huge number (LONG_MAX rounded down to a page).
constexpr int64_t kV1Unlimited = int64_t{1} << 62;

// v2 memory.max: bytes, or "max" when unlimited.
std::optional<CgroupMemoryLimit> ReadV2MemoryLevel(const SystemProbe& probe, const std::string& dir,
                                                   Notes& notes) {
  std::string file = dir + "/memory.max";
  std::optional<std::string> text = probe.ReadFile(file);
  if (!text || Trim(*text) == "max") return std::nullopt;  // the root has no memory.max
  std::optional<int64_t> bytes = ParsePositive(*text);
  if (!bytes) {
    notes.push_back(MalformedNote(file, *text));
    return std::nullopt;
  }
  return CgroupMemoryLimit{*bytes, file};
}

// v1 memory.limit_in_bytes.
std::optional<CgroupMemoryLimit> ReadV1MemoryLevel(const SystemProbe& probe, const std::string& dir,
                                                   Notes& notes) {
  std::string file = dir + "/memory.limit_in_bytes";
  std::optional<std::string> text = probe.ReadFile(file);
  if (!text) return std::nullopt;
  std::optional<int64_t> bytes = ParsePositive(*text);
  if (!bytes) {
    notes.push_back(MalformedNote(file, *text));
    return std::nullopt;
  }
  if (*bytes >= kV1Unlimited) return std::nullopt;
  return CgroupMemoryLimit{*bytes, file};
}

// ---- The tightest limit anywhere ---------------------------------------------

template <typename Limit>
using LevelReader = std::optional<Limit> (*)(const SystemProbe&, const std::string&, Notes&);

// Which of two limits binds: the smaller.
bool Tighter(const CgroupQuota& a, const CgroupQuota& b) { return a.cpus < b.cpus; }
bool Tighter(const CgroupMemoryLimit& a, const CgroupMemoryLimit& b) { return a.bytes < b.bytes; }

template <typename Limit>
void KeepTightest(std::optional<Limit> candidate, std::optional<Limit>& tightest) {
  if (candidate && (!tightest || Tighter(*candidate, *tightest))) tightest = std::move(candidate);
}

// A parent's limit bounds all its children, so the binding limit is the
// smallest found anywhere from the process's cgroup up to the mount point,
// in v2 and in the v1 hierarchy of `controller` (hybrid hosts have both).
template <typename Limit>
std::optional<Limit> DetectTightest(const SystemProbe& probe, std::string_view controller,
                                    const char* default_v1_dir, LevelReader<Limit> read_v2,
                                    LevelReader<Limit> read_v1, Notes& notes) {
  std::optional<Limit> tightest;
  std::optional<std::string> proc_cgroup = probe.ReadFile("/proc/self/cgroup");
  std::optional<std::string> mountinfo = probe.ReadFile("/proc/self/mountinfo");
  Hierarchies hierarchies;
  if (proc_cgroup && mountinfo) {
    ParseProcCgroup(*proc_cgroup, controller, hierarchies);
    ParseMountInfo(*mountinfo, controller, hierarchies);
  } else {
    notes.push_back(
        "cannot read /proc/self/cgroup or /proc/self/mountinfo: checking the default cgroup "
        "mounts only");
  }
  bool found = false;
  for (auto [hierarchy, read_level] :
       {std::pair{&hierarchies.v2, read_v2}, std::pair{&hierarchies.v1, read_v1}}) {
    if (!hierarchy->mount_point || !hierarchy->process_path) continue;
    for (const std::string& dir : CgroupLevels(*hierarchy, notes)) {
      KeepTightest(read_level(probe, dir, notes), tightest);
    }
    found = true;
  }
  if (!found) {
    KeepTightest(read_v2(probe, kDefaultV2Dir, notes), tightest);
    KeepTightest(read_v1(probe, default_v1_dir, notes), tightest);
  }
  return tightest;
}

}  // namespace

std::optional<CgroupQuota> DetectCgroupQuota(const SystemProbe& probe,
                                             std::vector<std::string>& notes) {
  return DetectTightest<CgroupQuota>(probe, "cpu", kDefaultV1CpuDir, ReadV2Level, ReadV1Level,
                                     notes);
}

std::optional<CgroupMemoryLimit> DetectCgroupMemoryLimit(const SystemProbe& probe,
                                                         std::vector<std::string>& notes) {
  return DetectTightest<CgroupMemoryLimit>(probe, "memory", kDefaultV1MemoryDir, ReadV2MemoryLevel,
                                           ReadV1MemoryLevel, notes);
}

}  // namespace loom::platform
