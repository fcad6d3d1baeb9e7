// `loom trace [MODEL] [--intra N] [--inter N] [--batch B] [--input NAME=FILE]
// [--no-blocked-layout] [--graph FILE] [-o FILE]`: one traced run (after a warm-up run, so the
// trace shows the steady state, not first-run packing and allocation) written as a Chrome /
// Perfetto trace (default ./trace.json), and the time per op type printed. The output paths are
// checked before the model loads: a typo must not cost a long run.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "loom/session.h"
#include "model_source.h"
#include "output_files.h"

namespace loom::cli {
namespace {

struct TraceFlags {
  ModelFlags model;
  std::string output = "trace.json";
  std::optional<std::string> graph_output;  // --graph FILE: the optimized graph
};

TraceFlags ParseFlags(const std::vector<std::string>& args) {
  TraceFlags out;
  FlagReader flags("trace", args);
  while (flags.Next()) {
    if (ParseModelFlag(flags, out.model)) continue;
    if (flags.Is("-o") || flags.Is("--output")) {
      out.output = flags.StringValue();
    } else if (flags.Is("--graph")) {
      out.graph_output = flags.StringValue();
    } else {
      flags.Unknown();
    }
  }
  return out;
}

}  // namespace

int TraceCommand(const std::vector<std::string>& args) {
  const TraceFlags flags = ParseFlags(args);
  CheckWritable(flags.output);
  if (flags.graph_output) CheckWritable(*flags.graph_output);
  ApplyThreadFlags(flags.model);
  Model model = LoadModel(flags.model.model);
  const Feeds feeds =
      BuildFeeds(model.graph, flags.model.batch, ReadInputFiles(flags.model.inputs));
  const Session session(std::move(model.graph), SessionOptionsFor(flags.model));

  if (flags.graph_output) {
    // The graph as the session runs it: fused nodes, the blocked layout and
    // its reorders, one node per line (Graph::to_string).
    WriteTextFile(*flags.graph_output, session.graph().to_string());
  }
  session.run(feeds.tensors);  // warm-up
  RunStats stats;
  RunOptions options;
  options.trace = true;
  session.run(feeds.tensors, {}, options, &stats);

  WriteTextFile(flags.output, stats.chrome_trace_json() + "\n");

  std::printf("model %s, batch %lld, intra %d, inter %d: %lld nodes in %.3f ms\n",
              model.label.c_str(), static_cast<long long>(feeds.batch),
              config::threading::get_intra_op_parallelism_threads(),
              config::threading::get_inter_op_parallelism_threads(),
              static_cast<long long>(stats.nodes_run), stats.wall_ms);
  std::printf("%-24s %6s %10s %7s\n", "op", "calls", "total ms", "share");
  for (const OpProfile& op : stats.op_profile()) {
    std::printf("%-24s %6lld %10.3f %6.1f%%\n", op.op.c_str(), static_cast<long long>(op.calls),
                op.total_ms, op.share * 100);
  }
  std::printf("trace written to %s (open in ui.perfetto.dev or chrome://tracing)\n",
              flags.output.c_str());
  return 0;
}

}  // namespace loom::cli
