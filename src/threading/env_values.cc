#include "threading/env_values.h"

#include <limits>
#include <optional>

#include "base/parse_number.h"
#include "base/text.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "platform/cpu_list.h"

namespace loom::threading {
namespace {

using config::threading::kMaxSpinWaitUs;
using config::threading::kMaxThreads;

[[noreturn]] void Invalid(const std::string& name, const std::string& text,
                          const std::string& expected) {
  throw InvalidArgumentError("invalid environment variable " + name + "='" + text + "': expected " +
                             expected);
}

std::optional<int64_t> InRange(const std::string& text, int64_t low, int64_t high) {
  std::optional<int64_t> value = base::ParseInt64(text);
  if (!value || *value < low || *value > high) return std::nullopt;
  return value;
}

}  // namespace

int ParseThreadCountVariable(const std::string& name, const std::string& text) {
  auto value = InRange(text, 0, kMaxThreads);
  if (!value) {
    Invalid(name, text,
            "a whole number of threads from 0 (automatic) to " + std::to_string(kMaxThreads));
  }
  return static_cast<int>(*value);
}

OtherLibraryValue ReadOmpNumThreads(const std::string& text) {
  const std::string trimmed(base::Trim(text));
  if (trimmed.empty()) return {};
  const std::string first(base::Trim(std::string_view(trimmed).substr(0, trimmed.find(','))));
  if (auto value = InRange(first, 1, kMaxThreads)) return {static_cast<int>(*value), ""};
  return {std::nullopt, "OMP_NUM_THREADS='" + text +
                            "' is ignored: Loom reads a positive number of threads up to " +
                            std::to_string(kMaxThreads) + " (or a list whose first entry is one)"};
}

int ParseSpinWaitUs(const std::string& text) {
  auto value = InRange(text, 0, kMaxSpinWaitUs);
  if (!value) {
    Invalid("LOOM_SPIN_WAIT_US", text, "microseconds from 0 to " + std::to_string(kMaxSpinWaitUs));
  }
  return static_cast<int>(*value);
}

OtherLibraryValue ReadKmpBlocktime(const std::string& text) {
  std::string number(base::Trim(text));
  if (number.empty()) return {};
  int64_t scale_us = 1000;  // plain numbers are milliseconds
  auto ends_with = [&](const std::string& suffix) {
    return number.size() > suffix.size() &&
           number.compare(number.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("ms")) {
    number.resize(number.size() - 2);
  } else if (ends_with("us")) {
    number.resize(number.size() - 2);
    scale_us = 1;
  }
  if (auto value = InRange(number, 0, kMaxSpinWaitUs / scale_us)) {
    return {static_cast<int>(*value * scale_us), ""};
  }
  return {std::nullopt, "KMP_BLOCKTIME='" + text +
                            "' is ignored: Loom reads milliseconds from 0 to " +
                            std::to_string(kMaxSpinWaitUs / 1000) +
                            " (optionally suffixed 'ms' or 'us') and never spins without bound"};
}

std::vector<int> ParseCpuListVariable(const std::string& name, const std::string& text) {
  auto cpus = platform::ParseCpuList(text);
  if (!cpus || cpus->empty()) Invalid(name, text, "a non-empty CPU list such as '0-3,6'");
  return *cpus;
}

}  // namespace loom::threading
