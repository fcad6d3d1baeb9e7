#include "threading/env_values.h"

#include <limits>
#include <optional>

#include "base/parse_number.h"
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

int ParseOmpNumThreads(const std::string& text) {
  const std::string first = text.substr(0, text.find(','));
  auto value = InRange(first, 1, kMaxThreads);
  // The rest of a nested list must be well-formed too: garbage anywhere in
  // the variable is refused, not half-read.
  for (size_t pos = text.find(','); value && pos != std::string::npos;) {
    const size_t next = text.find(',', pos + 1);
    if (!InRange(text.substr(pos + 1, next - pos - 1), 1, kMaxThreads)) value = std::nullopt;
    pos = next;
  }
  if (!value) {
    Invalid("OMP_NUM_THREADS", text,
            "a positive number of threads up to " + std::to_string(kMaxThreads) +
                ", or a comma-separated list of them");
  }
  return static_cast<int>(*value);
}

int ParseSpinWaitUs(const std::string& text) {
  auto value = InRange(text, 0, kMaxSpinWaitUs);
  if (!value) {
    Invalid("LOOM_SPIN_WAIT_US", text, "microseconds from 0 to " + std::to_string(kMaxSpinWaitUs));
  }
  return static_cast<int>(*value);
}

int ParseKmpBlocktime(const std::string& text) {
  std::string number = text;
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
  auto value = InRange(number, 0, kMaxSpinWaitUs / scale_us);
  if (!value) {
    Invalid("KMP_BLOCKTIME", text,
            "milliseconds from 0 to " + std::to_string(kMaxSpinWaitUs / 1000) +
                " (optionally suffixed 'ms' or 'us'); Loom never spins without bound");
  }
  return static_cast<int>(*value * scale_us);
}

std::vector<int> ParseCpuListVariable(const std::string& name, const std::string& text) {
  auto cpus = platform::ParseCpuList(text);
  if (!cpus || cpus->empty()) Invalid(name, text, "a non-empty CPU list such as '0-3,6'");
  return *cpus;
}

}  // namespace loom::threading
