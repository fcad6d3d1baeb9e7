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

}  // namespace loom::testing
