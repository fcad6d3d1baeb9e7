// `loom export-demo FILE`: the built-in demo network (demo_network.h) as an
// ONNX file, so the README's Python examples have a model on a fresh clone.
// Written as built, before any optimization: only ONNX operators, opset 24,
// loadable by any ONNX runtime. The path is checked before anything else.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "commands.h"
#include "demo_network.h"
#include "loom/onnx.h"
#include "output_files.h"

namespace loom::cli {

int ExportDemoCommand(const std::vector<std::string>& args) {
  FlagReader flags("export-demo", args);
  std::optional<std::string> path;
  while (flags.Next()) {
    if (flags.IsPositional()) {
      flags.Positional("FILE", path);
    } else {
      flags.Unknown();
    }
  }
  if (!path) throw UsageError("export-demo: missing FILE (e.g. loom export-demo demo.onnx)");
  CheckWritable(*path);
  save_onnx_model(DemoNetwork(), *path);
  std::printf(
      "wrote %s: the demo network, input '%s' [N, 3, 64, 64] float32, output '%s' "
      "[N, %lld]\n",
      path->c_str(), kDemoInputName, kDemoOutputName, static_cast<long long>(kDemoClasses));
  return 0;
}

}  // namespace loom::cli
