#include "onnx_import/conformance/report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace loom::conformance {
namespace {

std::string Format(const char* format, auto... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), format, args...);
  return buffer;
}

bool IsKnown(const KnownFailures& known, const std::string& id) { return known.count(id) > 0; }

// A listed case that did not fail and should have: it passed although the
// list does not allow that, or it is no longer supported.
bool NoLongerFails(const KnownFailures& known, const CaseResult& r) {
  const auto it = known.find(r.id);
  if (it == known.end() || r.status == CaseStatus::kFailed) return false;
  return r.status != CaseStatus::kPassed || !it->second.may_pass;
}

}  // namespace

Report Summarize(std::vector<CaseResult> results, const KnownFailures& known,
                 std::vector<std::string> without_model) {
  Report report;
  report.without_model = std::move(without_model);
  for (const CaseResult& r : results) {
    const bool listed = IsKnown(known, r.id);
    switch (r.status) {
      case CaseStatus::kPassed:
        ++report.passed;
        break;
      case CaseStatus::kFailed:
        ++report.failed;
        if (listed) ++report.known;
        break;
      case CaseStatus::kUnsupported:
        ++report.unsupported;
        break;
    }
    if (r.status == CaseStatus::kFailed && !listed) report.regressions.push_back(r.id);
    if (NoLongerFails(known, r)) report.now_passing.push_back(r.id);
    for (const std::string& op : r.op_types) {
      OpCounts& counts = report.per_op[op];
      if (r.status == CaseStatus::kPassed) ++counts.passed;
      if (r.status == CaseStatus::kFailed) ++counts.failed;
      if (r.status == CaseStatus::kFailed && listed) ++counts.known;
      if (r.status == CaseStatus::kUnsupported) ++counts.unsupported;
    }
    for (const std::string& item : r.unsupported) ++report.unsupported_items[item];
  }
  report.results = std::move(results);
  return report;
}

std::string FormatCaseLine(const CaseResult& r) {
  std::string line = Format("%-11s %-60s %7.3f s", std::string(CaseStatusName(r.status)).c_str(),
                            r.id.c_str(), r.seconds);
  if (!r.reason.empty()) line += "  " + r.reason;
  return line;
}

std::string FormatText(const Report& report, const KnownFailures& known,
                       const TextOptions& options) {
  std::string out;
  out += Format("%-28s %6s %7s %7s %6s %12s\n", "op", "cases", "passed", "failed", "known",
                "unsupported");
  for (const auto& [op, c] : report.per_op) {
    out += Format("%-28s %6d %7d %7d %6d %12d\n", op.c_str(), c.passed + c.failed + c.unsupported,
                  c.passed, c.failed, c.known, c.unsupported);
  }

  if (!report.unsupported_items.empty()) {
    std::vector<std::pair<std::string, int>> items(report.unsupported_items.begin(),
                                                   report.unsupported_items.end());
    std::stable_sort(items.begin(), items.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    out += "\nunsupported, by what Loom lacks (cases):\n ";
    for (const auto& [item, count] : items) out += Format(" %s (%d);", item.c_str(), count);
    out.back() = '\n';
  }

  if (options.list_failures) {
    out += "\nfailed cases:\n";
    for (const CaseResult& r : report.results) {
      if (r.status != CaseStatus::kFailed) continue;
      out += "  " + r.id + (IsKnown(known, r.id) ? " [known]" : "") + ": " + r.reason + "\n";
    }
  }
  if (!report.regressions.empty()) {
    out += "\nFAILED and not in the known-failures list:\n";
    for (const CaseResult& r : report.results) {
      if (r.status != CaseStatus::kFailed || IsKnown(known, r.id)) continue;
      // With --list-failures the reasons are above already.
      out += "  " + r.id + (options.list_failures ? "" : ": " + r.reason) + "\n";
    }
  }
  if (!report.now_passing.empty()) {
    out += "\nlisted as known failures but did not fail (remove them from the list):\n";
    for (const CaseResult& r : report.results) {
      if (NoLongerFails(known, r)) {
        out += "  " + r.id + ": " + std::string(CaseStatusName(r.status)) + "\n";
      }
    }
  }
  if (!report.without_model.empty()) {
    out += Format("\n%zu case folder(s) without model.onnx skipped (e.g. %s)\n",
                  report.without_model.size(), report.without_model.front().c_str());
  }
  out += Format("\n%zu cases: %d passed, %d failed (%d known), %d unsupported -> %s\n",
                report.results.size(), report.passed, report.failed, report.known,
                report.unsupported, report.ok() ? "OK" : "FAIL");
  return out;
}

std::string FormatJson(const Report& report, const KnownFailures& known) {
  nlohmann::json out;
  out["totals"] = {{"cases", report.results.size()},
                   {"passed", report.passed},
                   {"failed", report.failed},
                   {"known_failures", report.known},
                   {"unsupported", report.unsupported}};
  out["ops"] = nlohmann::json::array();
  for (const auto& [op, c] : report.per_op) {
    out["ops"].push_back({{"op", op},
                          {"passed", c.passed},
                          {"failed", c.failed},
                          {"known_failures", c.known},
                          {"unsupported", c.unsupported}});
  }
  out["cases"] = nlohmann::json::array();
  for (const CaseResult& r : report.results) {
    out["cases"].push_back({{"id", r.id},
                            {"status", CaseStatusName(r.status)},
                            {"known_failure", IsKnown(known, r.id)},
                            {"reason", r.reason},
                            {"ops", r.op_types},
                            {"data_sets_run", r.data_sets_run},
                            {"seconds", r.seconds}});
  }
  out["unsupported_items"] = report.unsupported_items;
  out["regressions"] = report.regressions;
  out["now_passing"] = report.now_passing;
  out["without_model"] = report.without_model;
  out["ok"] = report.ok();
  // Reasons quote error messages, which may quote bytes from the model.
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace loom::conformance
