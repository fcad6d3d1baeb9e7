// Command-line parsing shared by `loom run`, `trace` and `tune`: one
// positional argument (the model) and flags that take a value. Mistakes in
// the command line throw UsageError, which main() turns into exit status 2;
// everything else that fails is a runtime error (status 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/errors.h"

namespace loom::cli {

// A malformed command line: unknown flag, missing or unparsable value, a
// second positional argument.
class UsageError : public InvalidArgumentError {
 public:
  using InvalidArgumentError::InvalidArgumentError;
};

// Walks a subcommand's arguments in order:
//
//   FlagReader flags("run", args);
//   while (flags.Next()) {
//     if (flags.Is("--intra")) intra = flags.IntValue(1, kMaxThreads);
//     else if (flags.IsPositional()) model = flags.Positional("MODEL");
//     else flags.Unknown();
//   }
class FlagReader {
 public:
  FlagReader(std::string command, const std::vector<std::string>& args);

  // Advances to the next argument; false when none is left.
  bool Next();
  const std::string& current() const { return args_[index_]; }

  bool Is(const char* flag) const { return current() == flag; }
  // True for an argument not starting with '-' (and for "-" itself).
  bool IsPositional() const;

  // The flag's value (the next argument). Throws UsageError when missing.
  std::string StringValue();
  // The value as an integer in [min, max]; throws UsageError otherwise.
  int64_t IntValue(int64_t min, int64_t max);
  // Takes the current positional argument; a second one for the same
  // `what` is a UsageError.
  void Positional(const char* what, std::optional<std::string>& slot);
  // Throws UsageError naming the current argument.
  [[noreturn]] void Unknown() const;

 private:
  std::string command_;
  const std::vector<std::string>& args_;
  size_t index_ = 0;
  bool started_ = false;
};

}  // namespace loom::cli
