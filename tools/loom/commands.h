// The loom command-line tool: one function per subcommand, each taking the
// arguments after its name and returning the process exit status. They throw
// cli::UsageError (cli_flags.h) for a malformed command line (exit status 2)
// and loom::Error for anything else that fails (exit status 1).
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

int RunCommand(const std::vector<std::string>& args);
int TraceCommand(const std::vector<std::string>& args);
int TuneCommand(const std::vector<std::string>& args);
int ThreadsCommand(const std::vector<std::string>& args);
int KernelsCommand(const std::vector<std::string>& args);
int ConformanceCommand(const std::vector<std::string>& args);
int ExportDemoCommand(const std::vector<std::string>& args);

}  // namespace loom::cli
