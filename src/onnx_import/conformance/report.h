// Totals, per-op statistics and the verdict of a conformance run, as text
// (`loom conformance`) or JSON (`--json`).
//
// Per op: every op type a case's model uses (CaseResult::op_types) counts
// that case's verdict once, so an op appearing in a failing case is counted
// as failed even when another op caused the failure.
//
// The verdict is OK unless a case failed that the known-failures list does
// not name (a regression), or a listed case ran and did not fail (the list
// must shrink; a [may-pass] entry may pass, see known_failures.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "onnx_import/conformance/case_runner.h"
#include "onnx_import/conformance/known_failures.h"

namespace loom::conformance {

struct OpCounts {
  int passed = 0;
  int failed = 0;  // including known failures
  int known = 0;   // failed and listed
  int unsupported = 0;
};

struct Report {
  std::vector<CaseResult> results;  // in run order
  int passed = 0;
  int failed = 0;  // including known failures
  int known = 0;
  int unsupported = 0;
  std::map<std::string, OpCounts> per_op;
  // Scan items (CaseResult::unsupported) → number of cases they block.
  std::map<std::string, int> unsupported_items;
  std::vector<std::string> regressions;  // failed, not listed
  std::vector<std::string> now_passing;  // listed, did not fail (unless may-pass and passed)
  std::vector<std::string> without_model;

  bool ok() const { return regressions.empty() && now_passing.empty(); }
};

Report Summarize(std::vector<CaseResult> results, const KnownFailures& known,
                 std::vector<std::string> without_model = {});

// "passed      node/test_abs    0.004 s  <reason>": one case, for --verbose.
std::string FormatCaseLine(const CaseResult& result);

struct TextOptions {
  bool list_failures = false;  // every failed case with its reason (known ones too)
};

// The per-op table, totals, the most common unsupported items, and every
// regression (with its reason) and now-passing entry.
std::string FormatText(const Report& report, const KnownFailures& known,
                       const TextOptions& options);

// {"totals": {...}, "ops": [...], "cases": [...], "unsupported_items": {...},
//  "regressions": [...], "now_passing": [...], "without_model": [...], "ok": bool}.
std::string FormatJson(const Report& report, const KnownFailures& known);

}  // namespace loom::conformance
