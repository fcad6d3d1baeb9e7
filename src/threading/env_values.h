// Parsing the environment variables of the threading configuration. Each
// Parse* function (Loom's own variables and TensorFlow's aliases) returns the
// value or throws loom::InvalidArgumentError naming the variable, the text
// found and what would have been valid; the Read* functions (other
// libraries' variables) never throw.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace loom::threading {

// LOOM_NUM_*/TF_NUM_* thread counts: an integer in [0, kMaxThreads]; 0 = automatic.
int ParseThreadCountVariable(const std::string& name, const std::string& text);

// LOOM_SPIN_WAIT_US: microseconds in [0, kMaxSpinWaitUs].
int ParseSpinWaitUs(const std::string& text);

// Other libraries' variables are read in the forms those libraries accept
// and never stop Loom from starting: a value Loom cannot use comes back as
// `problem` (a sentence naming the variable, for a warning) and nullopt.
// Surrounding spaces are ignored; an empty (or all-space) value counts as
// unset: nullopt with no problem.
struct OtherLibraryValue {
  std::optional<int> value;
  std::string problem;
};

// OMP_NUM_THREADS: a positive thread count, or OpenMP's nested list "4,2,1"
// of which Loom uses the first (outermost) level; the inner levels are
// OpenMP's business and not checked. "0" or garbage in the first level is a
// problem.
OtherLibraryValue ReadOmpNumThreads(const std::string& text);

// KMP_BLOCKTIME: milliseconds, or with a unit suffix as newer OpenMP runtimes
// accept ("200ms", "50us"), converted to microseconds in [0, kMaxSpinWaitUs].
// "infinite" (accepted by Intel's runtime) is a problem: Loom never spins
// without bound.
OtherLibraryValue ReadKmpBlocktime(const std::string& text);

// LOOM_INTRAOP_CPUS / LOOM_INTEROP_CPUS: a non-empty CPU list "0-3,6".
std::vector<int> ParseCpuListVariable(const std::string& name, const std::string& text);

}  // namespace loom::threading
