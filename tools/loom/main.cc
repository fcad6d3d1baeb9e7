// loom: a thin dispatcher. Each subcommand lives in its own file; errors from
// any of them become one line on stderr and exit status 1 (2 for usage).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.h"

namespace {

constexpr const char* kUsage =
    "usage: loom [threads [--json] [--intra N] [--inter N] [--spin-us N]\n"
    "                     [--intra-cpus LIST] [--inter-cpus LIST]]\n"
    "  threads   start the runtime and print the threading configuration in force\n"
    "            and the threads it created (also the default with no arguments).\n"
    "            Flags act like API calls: LOOM_*/TF_* environment variables\n"
    "            outrank them. LIST is a CPU list such as 0-3,6.\n"
    "       loom kernels [--json]\n"
    "  kernels   list every operator kernel: dtypes, ISA variants, and the ISA in\n"
    "            use (the CPU's best, capped by LOOM_MAX_ISA).\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string command = args.empty() ? "threads" : args.front();
  if (!args.empty()) args.erase(args.begin());
  try {
    if (command == "threads") return loom::cli::ThreadsCommand(args);
    if (command == "kernels") return loom::cli::KernelsCommand(args);
    if (command == "-h" || command == "--help" || command == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "loom: unknown command '%s'\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
    return 1;
  }
}
