// The loom command-line tool: one function per subcommand, each taking the
// arguments after its name and returning the process exit status.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

int ThreadsCommand(const std::vector<std::string>& args);
int KernelsCommand(const std::vector<std::string>& args);

}  // namespace loom::cli
