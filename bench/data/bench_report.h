// The data-pipeline benchmark's results and their three renderings: a table
// on stdout, a Markdown report and JSON (the raw samples plus the summaries).
#pragma once

#include <string>
#include <vector>

#include "loom/config.h"
#include "pipeline_runner.h"

namespace loom::bench {

struct ConfigResult {
  BenchConfig config;
  std::vector<Sample> samples;  // one per rep, in rep order
};

// A configuration with a CPU budget: every sample's pipeline cores must stay
// within budget + tolerance.
struct BudgetCheck {
  std::string config;
  int budget = 0;
  double tolerance = 0;
  double worst_pipeline_cores = 0;
  bool passed = false;
};

struct Report {
  std::string command;
  std::string date;  // UTC, YYYY-MM-DD
  double total_seconds = 0;
  int reps = 0;
  RunnerSettings settings;
  int64_t encoded_row_bytes = 0;
  double mean_encoded_bytes = 0;
  std::string cpu_model;
  config::threading::Description threading;  // taken after the runtime started
  std::string load_before;                   // /proc/loadavg's first three fields
  std::string load_after;
  std::vector<ConfigResult> results;  // in the order configurations are defined
  std::vector<BudgetCheck> budget_checks;
  bool checksums_match = false;  // every sample of every config saw the same batches
};

// Median, min and max of one metric over a configuration's samples.
struct Spread {
  double median = 0, min = 0, max = 0;
};
Spread SpreadOf(const std::vector<Sample>& samples, double Sample::*metric);

void PrintTable(const Report& report);
std::string ToMarkdown(const Report& report);
std::string ToJson(const Report& report);

}  // namespace loom::bench
