#include "cli_flags.h"

#include <utility>

#include "base/parse_number.h"
#include "platform/cpu_list.h"

namespace loom::cli {

FlagReader::FlagReader(std::string command, const std::vector<std::string>& args)
    : command_(std::move(command)), args_(args) {}

bool FlagReader::Next() {
  if (started_) {
    CheckInlineValueUsed();
    ++index_;
  }
  started_ = true;
  inline_value_.reset();
  value_used_ = false;
  if (index_ >= args_.size()) return false;
  const std::string& arg = args_[index_];
  const size_t equals = arg.find('=');
  if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
    name_ = arg.substr(0, equals);
    inline_value_ = arg.substr(equals + 1);
  } else {
    name_ = arg;
  }
  return true;
}

void FlagReader::CheckInlineValueUsed() const {
  if (inline_value_ && !value_used_) {
    throw UsageError(command_ + ": " + name_ + " takes no value, got '" + args_[index_] + "'");
  }
}

bool FlagReader::IsPositional() const { return name_.empty() || name_.front() != '-'; }

std::string FlagReader::StringValue() {
  value_used_ = true;
  std::string value;
  if (inline_value_) {
    value = *inline_value_;
  } else if (index_ + 1 < args_.size()) {
    value = args_[++index_];
  } else {
    throw UsageError(command_ + ": " + name_ + " needs a value");
  }
  if (value.empty()) throw UsageError(command_ + ": " + name_ + " needs a value, got ''");
  return value;
}

int64_t FlagReader::IntValue(int64_t min, int64_t max) {
  const std::string text = StringValue();
  const std::optional<int64_t> value = base::ParseInt64(text);
  if (!value || *value < min || *value > max) {
    throw UsageError(command_ + ": " + name_ + " expects an integer from " + std::to_string(min) +
                     " to " + std::to_string(max) + ", got '" + text + "'");
  }
  return *value;
}

std::vector<int> FlagReader::CpuListValue() {
  const std::string text = StringValue();
  const std::optional<std::vector<int>> cpus = platform::ParseCpuList(text);
  if (!cpus || cpus->empty()) {
    throw UsageError(command_ + ": " + name_ + " expects a CPU list such as 0-3,6, got '" + text +
                     "'");
  }
  return *cpus;
}

void FlagReader::Positional(const char* what, std::optional<std::string>& slot) {
  if (slot) {
    throw UsageError(command_ + ": unexpected argument '" + name_ + "' (" + what + " is already '" +
                     *slot + "')");
  }
  slot = name_;
}

void FlagReader::Unknown() const { throw UsageError(command_ + ": unknown flag '" + name_ + "'"); }

}  // namespace loom::cli
