#include "cli_flags.h"

#include <utility>

#include "base/parse_number.h"

namespace loom::cli {

FlagReader::FlagReader(std::string command, const std::vector<std::string>& args)
    : command_(std::move(command)), args_(args) {}

bool FlagReader::Next() {
  if (started_) ++index_;
  started_ = true;
  return index_ < args_.size();
}

bool FlagReader::IsPositional() const { return current().empty() || current().front() != '-'; }

std::string FlagReader::StringValue() {
  const std::string flag = current();
  if (index_ + 1 >= args_.size()) throw UsageError(command_ + ": " + flag + " needs a value");
  return args_[++index_];
}

int64_t FlagReader::IntValue(int64_t min, int64_t max) {
  const std::string flag = current();
  const std::string text = StringValue();
  const std::optional<int64_t> value = base::ParseInt64(text);
  if (!value || *value < min || *value > max) {
    throw UsageError(command_ + ": " + flag + " expects an integer from " + std::to_string(min) +
                     " to " + std::to_string(max) + ", got '" + text + "'");
  }
  return *value;
}

void FlagReader::Positional(const char* what, std::optional<std::string>& slot) {
  if (slot) {
    throw UsageError(command_ + ": unexpected argument '" + current() + "' (" + what +
                     " is already '" + *slot + "')");
  }
  slot = current();
}

void FlagReader::Unknown() const {
  throw UsageError(command_ + ": unknown flag '" + current() + "'");
}

}  // namespace loom::cli
