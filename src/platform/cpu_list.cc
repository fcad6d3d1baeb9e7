#include "platform/cpu_list.h"

#include <algorithm>
#include <charconv>

#include "base/text.h"

namespace loom::platform {
namespace {

// Highest CPU number accepted. Linux's NR_CPUS tops out at 8192 today; the
// margin keeps a typo like "1-4000000000" from allocating gigabytes.
constexpr int kMaxCpu = 65535;

using base::Trim;

// Digits only: parsing as unsigned makes from_chars reject any sign.
std::optional<int> ParseCpu(std::string_view text) {
  if (text.empty()) return std::nullopt;
  unsigned value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value > static_cast<unsigned>(kMaxCpu)) {
    return std::nullopt;
  }
  return static_cast<int>(value);
}

// Appends the CPUs of one comma-separated item, "N" or "N-M" with N <= M.
bool AppendItem(std::string_view item, std::vector<int>& cpus) {
  size_t dash = item.find('-');
  std::optional<int> first = ParseCpu(item.substr(0, dash));
  std::optional<int> last =
      dash == std::string_view::npos ? first : ParseCpu(item.substr(dash + 1));
  if (!first || !last || *first > *last) return false;
  for (int cpu = *first; cpu <= *last; ++cpu) cpus.push_back(cpu);
  return true;
}

}  // namespace

std::optional<std::vector<int>> ParseCpuList(std::string_view text) {
  text = Trim(text);
  std::vector<int> cpus;
  if (text.empty()) return cpus;
  while (true) {
    size_t comma = text.find(',');
    if (!AppendItem(text.substr(0, comma), cpus)) return std::nullopt;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  // Callers usually pass sorted lists, but sorting a copy keeps the output
  // canonical (and parseable back) whatever they pass.
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string text;
  for (size_t i = 0; i < sorted.size();) {
    size_t run_end = i;
    while (run_end + 1 < sorted.size() && sorted[run_end + 1] == sorted[run_end] + 1) ++run_end;
    if (!text.empty()) text += ',';
    text += std::to_string(sorted[i]);
    if (run_end > i) text += '-' + std::to_string(sorted[run_end]);
    i = run_end + 1;
  }
  return text;
}

}  // namespace loom::platform
