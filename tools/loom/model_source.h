// Where `loom run` / `trace` / `tune` get their graph and input files: an
// ONNX model from disk, or the built-in demo network when no path is given.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "loom/graph.h"
#include "loom/session.h"
#include "model_inputs.h"

namespace loom::cli {

// The flags `run`, `trace` and `tune` share: [MODEL] --intra N --inter N
// --batch B --input NAME=FILE.npy --no-blocked-layout --no-winograd.
struct ModelFlags {
  std::optional<std::string> model;
  std::optional<int> intra, inter;  // 0 = automatic, as in the API
  std::optional<int64_t> batch;
  std::vector<InputFile> inputs;
  bool blocked_layout = true;  // --no-blocked-layout: keep every node NCHW (A/B)
  bool winograd = true;        // --no-winograd: direct 3x3 convolutions only (A/B)
};

// Consumes the reader's current argument if it is one of ModelFlags (a
// positional argument is the model); returns false for any other flag.
bool ParseModelFlag(FlagReader& flags, ModelFlags& out);

// --intra/--inter as requests to the threading configuration, before the
// runtime starts, labelled with the flag (thread_flags.h): an environment
// variable still outranks them, with a warning naming the flag.
void ApplyThreadFlags(const ModelFlags& flags);

// The session options these flags ask for.
SessionOptions SessionOptionsFor(const ModelFlags& flags);

struct Model {
  std::string label;  // the path as given, or "demo"
  Graph graph;
};

// The demo network for nullopt, else loom::load_onnx_model(path). Throws
// loom::InvalidArgumentError naming the path when the file does not exist,
// is not a regular file, or does not load.
Model LoadModel(const std::optional<std::string>& path);

// Reads each --input file (loom::io::ReadNpy); the same name twice is an
// InvalidArgumentError.
std::map<std::string, Tensor> ReadInputFiles(const std::vector<InputFile>& files);

}  // namespace loom::cli
