// `loom conformance DIR [--filter REGEX] [--json] [--verbose] [--list-failures]
//                       [--known-failures FILE]`: runs the ONNX backend test
// cases under DIR (src/onnx_import/conformance/README.md) and prints passed / failed
// / unsupported counts per op and in total. Exit status 1 when a case failed
// that FILE does not list, or a listed case did not fail (without FILE: when
// any case failed).
#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "commands.h"
#include "onnx_import/conformance/case_discovery.h"
#include "onnx_import/conformance/case_runner.h"
#include "onnx_import/conformance/known_failures.h"
#include "onnx_import/conformance/report.h"
#include "progress_bar.h"

namespace loom::cli {

int ConformanceCommand(const std::vector<std::string>& args) {
  std::optional<std::string> dir;
  std::optional<std::regex> pattern;
  std::optional<std::string> known_path;
  bool json = false;
  bool verbose = false;
  bool list_failures = false;
  FlagReader flags("conformance", args);
  while (flags.Next()) {
    if (flags.Is("--filter")) {
      const std::string filter = flags.StringValue();
      try {
        pattern.emplace(filter, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw UsageError("conformance: --filter '" + filter + "' is not a regular expression (" +
                         e.what() + ")");
      }
    } else if (flags.Is("--known-failures")) {
      known_path = flags.StringValue();
    } else if (flags.Is("--json")) {
      json = true;
    } else if (flags.Is("--verbose")) {
      verbose = true;
    } else if (flags.Is("--list-failures")) {
      list_failures = true;
    } else if (flags.IsPositional()) {
      flags.Positional("DIR", dir);
    } else {
      flags.Unknown();
    }
  }
  if (!dir) {
    throw UsageError(
        "conformance: missing DIR (the onnx package's backend data: "
        "<site-packages>/onnx/backend/test/data)");
  }
  const conformance::KnownFailures known =
      known_path ? conformance::ReadKnownFailures(*known_path) : conformance::KnownFailures{};

  conformance::CaseList list = conformance::FindCases(*dir);
  std::vector<conformance::ConformanceCase> cases;
  for (conformance::ConformanceCase& c : list.cases) {
    if (!pattern || std::regex_search(c.id(), *pattern)) cases.push_back(std::move(c));
  }

  // --verbose lines go where they cannot spoil the JSON.
  FILE* case_lines = json ? stderr : stdout;
  ProgressBar bar("conformance", static_cast<int64_t>(cases.size()),
                  !verbose && StderrIsTerminal());
  std::vector<conformance::CaseResult> results;
  for (const conformance::ConformanceCase& c : cases) {
    results.push_back(conformance::RunCase(c));
    if (verbose) {
      std::fprintf(case_lines, "%s\n", conformance::FormatCaseLine(results.back()).c_str());
      std::fflush(case_lines);
    }
    bar.Update(static_cast<int64_t>(results.size()));
  }
  bar.Finish();

  const conformance::Report report =
      conformance::Summarize(std::move(results), known, std::move(list.without_model));
  if (json) {
    std::printf("%s\n", conformance::FormatJson(report, known).c_str());
  } else {
    if (verbose) std::printf("\n");
    std::fputs(conformance::FormatText(report, known, {.list_failures = list_failures}).c_str(),
               stdout);
  }
  return report.ok() ? 0 : 1;
}

}  // namespace loom::cli
