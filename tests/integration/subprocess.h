// Runs a program to completion with a chosen environment and captures its
// output; for tests that need a fresh process (the runtime starts once per
// process) or a different environment.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace loom::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 if it did not exit normally
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with the current environment minus every variable
// the threading configuration reads, plus `env`. Waits for it to finish.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {});

#ifdef LOOM_BINARY
// Runs the `loom` binary under test (its path comes from the test target's
// LOOM_BINARY definition) with `args`.
inline ProcessResult RunLoom(const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {LOOM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, env);
}
#endif

}  // namespace loom::testing
