// Parsing the environment variables of the threading configuration. Each
// parser returns the value or throws loom::InvalidArgumentError naming the
// variable, the text found and what would have been valid.
#pragma once

#include <string>
#include <vector>

namespace loom::threading {

// LOOM_NUM_*/TF_NUM_* thread counts: an integer in [0, kMaxThreads]; 0 = automatic.
int ParseThreadCountVariable(const std::string& name, const std::string& text);

// OMP_NUM_THREADS: a positive integer, or OpenMP's nested list "4,2,1" of
// which Loom uses the first (outermost) level.
int ParseOmpNumThreads(const std::string& text);

// LOOM_SPIN_WAIT_US: microseconds in [0, kMaxSpinWaitUs].
int ParseSpinWaitUs(const std::string& text);

// KMP_BLOCKTIME: milliseconds, or with a unit suffix as newer OpenMP runtimes
// accept ("200ms", "50us"), converted to microseconds in [0, kMaxSpinWaitUs].
// "infinite" is rejected: Loom never spins without bound.
int ParseKmpBlocktime(const std::string& text);

// LOOM_INTRAOP_CPUS / LOOM_INTEROP_CPUS: a non-empty CPU list "0-3,6".
std::vector<int> ParseCpuListVariable(const std::string& name, const std::string& text);

}  // namespace loom::threading
