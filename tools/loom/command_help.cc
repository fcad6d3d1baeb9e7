#include "command_help.h"

namespace loom::cli {
namespace {

// The last lines of every help text.
constexpr const char* kFooter =
    "Flags take their value as --flag VALUE or --flag=VALUE.\n"
    "exit status: 0 ok, 1 failure, 2 usage error (a malformed command line)\n";

// Thread flags, as run, trace and threads take them.
constexpr const char* kThreadFlags =
    "  --intra N              intra-op threads, 0 = automatic (usable CPUs)\n"
    "  --inter N              inter-op threads, 0 = automatic (usable CPUs)\n";

// The rest of ModelFlags (model_source.h).
constexpr const char* kModelFlags =
    "  --batch B              the first symbolic input dimension (default 1)\n"
    "  --input NAME=FILE.npy  feed input NAME from FILE (repeatable); the others\n"
    "                         get fixed-seed uniform [-1, 1) values (ints: 0)\n"
    "  --no-blocked-layout    keep convolutions NCHW (no NCHWc reorders), to\n"
    "                         compare the two layouts\n"
    "  --no-winograd          run 3x3 stride-1 convolutions with the direct\n"
    "                         kernel only (no Winograd F(4x4, 3x3)), to compare\n";

constexpr const char* kThreadFlagsNote =
    "LOOM_NUM_INTRAOP_THREADS / LOOM_NUM_INTEROP_THREADS (and TF_*) outrank\n"
    "--intra / --inter, with a warning; the report shows the values in force.\n";

constexpr const char* kHelpFlag = "  -h, --help             this help\n";

std::string RunHelp() {
  return std::string(
             "usage: loom run [MODEL.onnx] [FLAGS]\n"
             "\n"
             "Runs MODEL (none: the built-in demo network) on the global runtime and\n"
             "reports the time to load the model and to optimize it (session build),\n"
             "latency p50/p90/p99/mean and a histogram, throughput (batch items/s), CPU\n"
             "use (process CPU time / wall time), the threads in the process by pool,\n"
             "peak RSS, and each output's shape and checksum (the sum of its elements).\n"
             "`loom MODEL.onnx` does the same.\n"
             "\n"
             "flags:\n") +
         kThreadFlags + kModelFlags +
         "  --iterations N         timed runs (default 20; fewer, at least 5, for\n"
         "                         models slower than 0.5 s a run)\n"
         "  --warmup N             untimed runs first (default 3)\n"
         "  --save-outputs DIR     write each output as DIR/<output name>.npy\n"
         "  --json                 print the report as one JSON object\n" +
         kHelpFlag + "\n" + kThreadFlagsNote + kFooter;
}

std::string TraceHelp() {
  return std::string(
             "usage: loom trace [MODEL.onnx] [FLAGS]\n"
             "\n"
             "One run after a warm-up, written as a Chrome/Perfetto trace (open it in\n"
             "ui.perfetto.dev), and the time per op type. The output paths are checked\n"
             "before the model loads.\n"
             "\n"
             "flags:\n") +
         kThreadFlags + kModelFlags +
         "  -o, --output FILE      where to write the trace (default trace.json)\n"
         "  --graph FILE           also write the graph as the session runs it\n"
         "                         (after fusion and layout), one node a line\n" +
         kHelpFlag + "\n" + kThreadFlagsNote + kFooter;
}

std::string TuneHelp() {
  return std::string(
             "usage: loom tune [MODEL.onnx] [FLAGS]\n"
             "\n"
             "Which thread settings should I use? Sweeps intra-op x inter-op thread\n"
             "counts (for throughput also batch sizes) on private pools, in interleaved\n"
             "rounds repeated until the pick is stable; estimates the noise from the\n"
             "spread of each cell's round medians; picks the setting with the fewest\n"
             "threads among those within the noise of the fastest, says when no setting\n"
             "is measurably better, and prints the pick as `export` lines. Writes\n"
             "DIR/tune.svg (a heatmap shaded by distance from the best in noise bands)\n"
             "and DIR/tune.json.\n"
             "\n"
             "flags:\n"
             "  --objective latency|throughput   what to optimize (default latency)\n"
             "  --max-threads N        largest thread count to try (default: usable CPUs)\n"
             "  --iterations N         timed runs a cell over the first 3 rounds\n"
             "                         (default 10); later rounds add N/3 each\n"
             "  --max-rounds N         at most N rounds in all (default 8)\n"
             "  --batch B              the batch size (latency only)\n"
             "  --max-batch B          largest batch size for throughput (default 8)\n"
             "  --input NAME=FILE.npy  feed input NAME from FILE (repeatable)\n"
             "  --no-blocked-layout    keep convolutions NCHW (no NCHWc reorders)\n"
             "  --no-winograd          direct 3x3 convolutions only (no Winograd)\n"
             "  --out DIR              where to write tune.svg and tune.json (default .)\n") +
         kHelpFlag + "\n" + kFooter;
}

std::string ThreadsHelp() {
  return std::string(
             "usage: loom threads [FLAGS]\n"
             "\n"
             "Applies the flags, starts the runtime and prints every threading setting\n"
             "in force with its source, the CPUs found, and the threads created.\n"
             "\n"
             "flags:\n") +
         kThreadFlags +
         "  --data N               data-pipeline threads, 0 = automatic\n"
         "  --spin-us N            how long idle workers spin before blocking, in us\n"
         "  --cpu-budget N         at most N threads run Loom work at once (0 = the\n"
         "                         usable CPUs; unset: no budget)\n"
         "  --intra-cpus LIST      pin intra-op workers to a CPU list such as 0-3,6\n"
         "  --inter-cpus LIST      pin inter-op workers to a CPU list\n"
         "  --pipeline             also run a short loom::data pipeline (AUTOTUNE) and\n"
         "                         show its loom-data threads and what AUTOTUNE chose\n"
         "  --json                 print one JSON object\n" +
         kHelpFlag +
         "\n"
         "LOOM_* / TF_* environment variables outrank the flags, with a warning.\n" +
         kFooter;
}

std::string KernelsHelp() {
  return std::string(
             "usage: loom kernels [FLAGS]\n"
             "\n"
             "Lists every operator kernel: its dtypes, its ISA variants, and the ISA in\n"
             "use (the CPU's best, capped by LOOM_MAX_ISA=portable|avx2_fma|avx512f).\n"
             "\n"
             "flags:\n"
             "  --json                 print one JSON object\n") +
         kHelpFlag + "\n" + kFooter;
}

std::string ConformanceHelp() {
  return std::string(
             "usage: loom conformance DIR [FLAGS]\n"
             "\n"
             "Runs the ONNX backend test cases under DIR (the onnx package's\n"
             "<site-packages>/onnx/backend/test/data) and prints passed / failed /\n"
             "unsupported counts per op. Exit status 1 when a case failed that the\n"
             "known-failures file does not list, or a listed case passed.\n"
             "\n"
             "flags:\n"
             "  --filter REGEX         only the cases whose id matches REGEX\n"
             "  --known-failures FILE  cases expected to fail, one id a line\n"
             "  --list-failures        list every failed case\n"
             "  --verbose              one line per case as it runs\n"
             "  --json                 print one JSON object\n") +
         kHelpFlag + "\n" + kFooter;
}

std::string ExportDemoHelp() {
  return std::string(
             "usage: loom export-demo FILE\n"
             "\n"
             "Writes the built-in demo network (what `loom run` runs without a model) as\n"
             "an ONNX file: input 'image' [N, 3, 64, 64] float32, output 'probabilities'\n"
             "[N, 10]; ONNX operators only (opset 24), so any ONNX runtime loads it.\n"
             "\n"
             "flags:\n") +
         kHelpFlag + "\n" + kFooter;
}

std::string VersionHelp() {
  return std::string(
             "usage: loom version   (or: loom --version)\n"
             "\n"
             "Prints `loom X.Y.Z`.\n"
             "\n"
             "flags:\n") +
         kHelpFlag + "\n" + kFooter;
}

}  // namespace

std::string OverviewHelp() {
  return std::string(
             "usage: loom [COMMAND] [ARGS...]    (no COMMAND: loom run)\n"
             "\n"
             "commands:\n"
             "  run          run a model (or the built-in demo network) and report its\n"
             "               latency, throughput, CPU use, threads, memory and outputs\n"
             "  trace        one run as a Chrome/Perfetto trace, and the time per op type\n"
             "  tune         sweep intra-op x inter-op threads (and batch sizes) and\n"
             "               recommend a setting\n"
             "  threads      the threading configuration in force and the threads created\n"
             "  kernels      every operator kernel: dtypes, ISA variants, the ISA in use\n"
             "  conformance  run the ONNX backend test cases under a folder\n"
             "  export-demo  write the built-in demo network as an ONNX file\n"
             "  version      print the version (also: loom --version)\n"
             "\n"
             "`loom COMMAND --help` lists a command's flags.\n"
             "Thread flags act like API calls: LOOM_*/TF_* environment variables outrank\n"
             "them (with a warning); reports show the values in force and their source.\n") +
         kFooter;
}

std::string CommandHelp(const std::string& command) {
  if (command == "run") return RunHelp();
  if (command == "trace") return TraceHelp();
  if (command == "tune") return TuneHelp();
  if (command == "threads") return ThreadsHelp();
  if (command == "kernels") return KernelsHelp();
  if (command == "conformance") return ConformanceHelp();
  if (command == "export-demo") return ExportDemoHelp();
  if (command == "version") return VersionHelp();
  return "";
}

std::string VersionLine() { return std::string("loom ") + LOOM_VERSION; }

}  // namespace loom::cli
