// loom: a thin dispatcher. Each subcommand lives in its own file and its
// help in command_help.cc. Exit status: 0 ok, 1 for a failure while doing
// the work (one line on stderr), 2 for a usage error (a malformed command
// line: unknown command or flag, a missing, malformed or out-of-range value).
// Output that cannot be written, stdout included, is a failure.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "command_help.h"
#include "commands.h"
#include "output_files.h"

namespace {

bool IsFlagOrModel(const std::string& arg) {
  return !arg.empty() && (arg.front() == '-' || arg.find('.') != std::string::npos ||
                          arg.find('/') != std::string::npos);
}

bool IsHelpFlag(const std::string& arg) { return arg == "-h" || arg == "--help"; }

int VersionCommand(const std::vector<std::string>& args) {
  loom::cli::FlagReader flags("version", args);
  while (flags.Next()) {
    if (flags.IsPositional()) {
      throw loom::cli::UsageError("version: unexpected argument '" + flags.current() + "'");
    }
    flags.Unknown();
  }
  std::printf("%s\n", loom::cli::VersionLine().c_str());
  return 0;
}

int Dispatch(std::vector<std::string> args) {
  using namespace loom::cli;
  // `loom --help`, `loom help`, `loom help COMMAND`.
  if (!args.empty() && (IsHelpFlag(args[0]) || args[0] == "help")) {
    const std::string help = args.size() > 1 ? CommandHelp(args[1]) : OverviewHelp();
    if (help.empty()) {
      std::fprintf(stderr, "loom: help: unknown command '%s' (see loom --help)\n", args[1].c_str());
      return 2;
    }
    std::fputs(help.c_str(), stdout);
    return 0;
  }
  // `loom`, `loom model.onnx` and `loom --json` all mean `loom run ...`.
  std::string command = "run";
  if (!args.empty() && args[0] == "--version") {
    command = "version";
    args.erase(args.begin());
  } else if (!args.empty() && !IsFlagOrModel(args.front())) {
    command = args.front();
    args.erase(args.begin());
  }
  const std::string help = CommandHelp(command);
  if (help.empty()) {
    std::fprintf(stderr, "loom: unknown command '%s' (see loom --help)\n", command.c_str());
    return 2;
  }
  if (std::any_of(args.begin(), args.end(), IsHelpFlag)) {
    std::fputs(help.c_str(), stdout);
    return 0;
  }
  try {
    if (command == "run") return RunCommand(args);
    if (command == "trace") return TraceCommand(args);
    if (command == "tune") return TuneCommand(args);
    if (command == "threads") return ThreadsCommand(args);
    if (command == "kernels") return KernelsCommand(args);
    if (command == "conformance") return ConformanceCommand(args);
    if (command == "export-demo") return ExportDemoCommand(args);
    return VersionCommand(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "loom: %s (see loom %s --help)\n", e.what(), command.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int status = Dispatch(std::vector<std::string>(argv + 1, argv + argc));
  // A report that did not arrive (`loom run > /dev/full`) is a failure.
  std::string error;
  if (!loom::cli::FlushStdout(&error)) {
    std::fprintf(stderr, "loom: error: cannot write to standard output: %s\n", error.c_str());
    if (status == 0) status = 1;
  }
  return status;
}
