// loom: a thin dispatcher. Each subcommand lives in its own file; errors from
// any of them become one line on stderr and exit status 1 (2 for usage).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "commands.h"

namespace {

constexpr const char* kUsage =
    "usage: loom [run] [MODEL.onnx] [--intra N] [--inter N] [--batch B] [--iterations N]\n"
    "                  [--warmup N] [--input NAME=FILE.npy]... [--save-outputs DIR] [--json]\n"
    "  run       run a model (no MODEL: the built-in demo network, also what plain\n"
    "            `loom` does) and report latency p50/p90/p99/mean, throughput (batch\n"
    "            items/s), CPU use (process CPU time / wall time, in cores), the\n"
    "            threads in the process by pool, peak RSS, and each output's shape\n"
    "            and checksum (the sum of its elements, as a double). Inputs not\n"
    "            given with --input get their declared shape, the first symbolic\n"
    "            dimension set to --batch (default 1), filled with fixed-seed\n"
    "            uniform [-1, 1) values (integers: zeros). --save-outputs writes\n"
    "            DIR/<output name>.npy. Defaults: 3 warm-up runs, 20 timed ones\n"
    "            (fewer, at least 5, for models slower than 0.5 s a run).\n"
    "            --no-blocked-layout keeps convolutions in NCHW (no NCHWc reorders),\n"
    "            to compare the two layouts (also for trace).\n"
    "       loom trace [MODEL] [--intra N] [--inter N] [--batch B] [--input ...]\n"
    "                  [--graph GRAPH_FILE] -o FILE\n"
    "  trace     one run after a warm-up, as a Chrome/Perfetto trace (open FILE in\n"
    "            ui.perfetto.dev), and the time per op type. --graph also writes\n"
    "            the graph as the session runs it (after fusion and layout).\n"
    "       loom tune [MODEL] [--objective latency|throughput] [--max-threads N]\n"
    "                 [--out DIR] [--iterations N] [--batch B] [--max-batch B]\n"
    "  tune      sweep intra-op x inter-op thread counts (and, for throughput, batch\n"
    "            sizes up to --max-batch, default 8) on this machine; print a table\n"
    "            and the best setting as `export` lines; write DIR/tune.svg (a\n"
    "            heatmap) and DIR/tune.json. Defaults: --out ., 10 timed runs a cell,\n"
    "            thread counts up to the usable CPUs.\n"
    "       loom threads [--json] [--intra N] [--inter N] [--data N] [--spin-us N]\n"
    "                    [--intra-cpus LIST] [--inter-cpus LIST] [--cpu-budget N]\n"
    "                    [--pipeline]\n"
    "  threads   start the runtime and print the threading configuration in force\n"
    "            and the threads it created. LIST is a CPU list such as 0-3,6.\n"
    "            --cpu-budget: at most N threads of the process run Loom work at\n"
    "            once (0 = the usable CPUs; unset: no budget; LOOM_CPU_BUDGET\n"
    "            outranks it).\n"
    "            --pipeline also runs a short loom::data pipeline (a CPU-bound map\n"
    "            with AUTOTUNE, batch, prefetch AUTOTUNE) and shows, while it is\n"
    "            alive, the loom-data threads and what AUTOTUNE chose.\n"
    "       loom kernels [--json]\n"
    "  kernels   list every operator kernel: dtypes, ISA variants, and the ISA in\n"
    "            use (the CPU's best, capped by LOOM_MAX_ISA).\n"
    "       loom conformance DIR [--filter REGEX] [--json] [--verbose] [--list-failures]\n"
    "                            [--known-failures FILE]\n"
    "  conformance  run the ONNX backend test cases under DIR; print passed / failed /\n"
    "            unsupported counts per op.\n"
    "Thread flags act like API calls: LOOM_*/TF_* environment variables outrank\n"
    "them (with a warning); reports show the values in force.\n";

bool IsFlagOrModel(const std::string& arg) {
  return !arg.empty() && (arg.front() == '-' || arg.find('.') != std::string::npos ||
                          arg.find('/') != std::string::npos);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // `loom`, `loom model.onnx` and `loom --json` all mean `loom run ...`.
  std::string command = "run";
  if (!args.empty() && !IsFlagOrModel(args.front())) {
    command = args.front();
    args.erase(args.begin());
  }
  if (command == "-h" || command == "--help" || command == "help" ||
      (!args.empty() && (args[0] == "-h" || args[0] == "--help"))) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    if (command == "run") return loom::cli::RunCommand(args);
    if (command == "trace") return loom::cli::TraceCommand(args);
    if (command == "tune") return loom::cli::TuneCommand(args);
    if (command == "threads") return loom::cli::ThreadsCommand(args);
    if (command == "kernels") return loom::cli::KernelsCommand(args);
    if (command == "conformance") return loom::cli::ConformanceCommand(args);
    std::fprintf(stderr, "loom: unknown command '%s'\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const loom::cli::UsageError& e) {
    std::fprintf(stderr, "loom: %s (see loom --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
    return 1;
  }
}
