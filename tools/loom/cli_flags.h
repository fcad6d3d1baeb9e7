// Command-line parsing shared by every `loom` subcommand: positional
// arguments and flags, each flag's value given as `--flag VALUE` or
// `--flag=VALUE`. Mistakes in the command line throw UsageError, which
// main() turns into exit status 2; everything else that fails is a runtime
// error (status 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/errors.h"

namespace loom::cli {

// A malformed command line: unknown flag, missing, unparsable or
// out-of-range value, a value given to a flag that takes none, a second
// positional argument.
class UsageError : public InvalidArgumentError {
 public:
  using InvalidArgumentError::InvalidArgumentError;
};

// Walks a subcommand's arguments in order:
//
//   FlagReader flags("run", args);
//   while (flags.Next()) {
//     if (flags.Is("--intra")) intra = flags.IntValue(1, kMaxThreads);
//     else if (flags.Is("--json")) json = true;
//     else if (flags.IsPositional()) flags.Positional("MODEL", model);
//     else flags.Unknown();
//   }
//
// "--intra=2" reads as "--intra 2" (split at the first '=', only for
// arguments starting with "--"). A flag matched without reading its value
// takes none: given as "--json=1", the next Next() throws UsageError naming
// it, so the loop must run until Next() returns false.
class FlagReader {
 public:
  FlagReader(std::string command, const std::vector<std::string>& args);

  // Advances to the next argument; false when none is left.
  bool Next();
  // The current argument; for a flag, its name alone ("--intra" for
  // "--intra=2").
  const std::string& current() const { return name_; }

  bool Is(const char* flag) const { return name_ == flag; }
  // True for an argument not starting with '-'.
  bool IsPositional() const;

  // The flag's value: after '=', else the next argument. Throws UsageError
  // when missing or empty.
  std::string StringValue();
  // The value as an integer in [min, max]; throws UsageError otherwise.
  int64_t IntValue(int64_t min, int64_t max);
  // The value as a CPU list such as "0-3,6" (platform::ParseCpuList), not
  // empty; throws UsageError otherwise.
  std::vector<int> CpuListValue();
  // Takes the current positional argument; a second one for the same
  // `what` is a UsageError.
  void Positional(const char* what, std::optional<std::string>& slot);
  // Throws UsageError naming the current argument.
  [[noreturn]] void Unknown() const;

 private:
  // Throws UsageError if the current flag came with "=VALUE" that nobody read.
  void CheckInlineValueUsed() const;

  std::string command_;
  const std::vector<std::string>& args_;
  size_t index_ = 0;
  bool started_ = false;
  std::string name_;                         // see current()
  std::optional<std::string> inline_value_;  // the part after '=', if any
  bool value_used_ = false;
};

}  // namespace loom::cli
