// RunStats' reports: the Chrome / Perfetto trace and the per-op profile.
#include <unistd.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "loom/session.h"

namespace loom {

std::string RunStats::chrome_trace_json() const {
  using json = nlohmann::ordered_json;
  json events = json::array();
  const int pid = static_cast<int>(getpid());
  std::map<int, std::string> thread_names;
  for (const TraceEvent& event : trace) {
    thread_names.emplace(event.tid, event.thread);
    // Chrome's trace format counts in microseconds; fractions keep ns detail.
    events.push_back({{"name", event.node},
                      {"cat", event.op},
                      {"ph", "X"},
                      {"ts", static_cast<double>(event.start_ns) / 1000.0},
                      {"dur", static_cast<double>(event.end_ns - event.start_ns) / 1000.0},
                      {"pid", pid},
                      {"tid", event.tid},
                      {"args",
                       {{"op", event.op},
                        {"thread", event.thread},
                        {"role", event.intra_op_helper ? "intra-op helper" : "node"}}}});
  }
  for (const auto& [tid, name] : thread_names) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", name}}}});
  }
  json document = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  return document.dump(1);
}

std::vector<OpProfile> RunStats::op_profile() const {
  std::map<std::string, OpProfile> by_op;
  double total_ms = 0;
  for (const TraceEvent& event : trace) {
    if (event.intra_op_helper) continue;
    OpProfile& profile = by_op[event.op];
    profile.op = event.op;
    ++profile.calls;
    const double ms = static_cast<double>(event.end_ns - event.start_ns) / 1e6;
    profile.total_ms += ms;
    total_ms += ms;
  }
  std::vector<OpProfile> profiles;
  for (auto& [op, profile] : by_op) {
    profile.share = total_ms > 0 ? profile.total_ms / total_ms : 0;
    profiles.push_back(profile);
  }
  std::stable_sort(profiles.begin(), profiles.end(),
                   [](const OpProfile& a, const OpProfile& b) { return a.total_ms > b.total_ms; });
  return profiles;
}

}  // namespace loom
