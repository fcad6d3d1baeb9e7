#include "model_source.h"

#include <filesystem>
#include <system_error>

#include "demo_network.h"
#include "io/npy.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "loom/onnx.h"
#include "thread_flags.h"

namespace loom::cli {

namespace {

// The largest --batch, far beyond any real use; BuildFeeds also refuses
// generated inputs over 4 GiB.
constexpr int64_t kMaxBatch = 1 << 20;

}  // namespace

bool ParseModelFlag(FlagReader& flags, ModelFlags& out) {
  constexpr int kMax = config::threading::kMaxThreads;
  if (flags.Is("--intra")) {
    out.intra = static_cast<int>(flags.IntValue(0, kMax));
  } else if (flags.Is("--inter")) {
    out.inter = static_cast<int>(flags.IntValue(0, kMax));
  } else if (flags.Is("--batch")) {
    out.batch = flags.IntValue(1, kMaxBatch);
  } else if (flags.Is("--no-blocked-layout")) {
    out.blocked_layout = false;
  } else if (flags.Is("--no-winograd")) {
    out.winograd = false;
  } else if (flags.Is("--input")) {
    out.inputs.push_back(ParseInputFlag(flags.StringValue()));
  } else if (flags.IsPositional()) {
    flags.Positional("MODEL", out.model);
  } else {
    return false;
  }
  return true;
}

void ApplyThreadFlags(const ModelFlags& flags) {
  threading::ThreadingConfig& config = threading::GlobalThreadingConfig();
  if (flags.intra) config.SetIntraOpThreads(*flags.intra, FlagRequester("--intra", *flags.intra));
  if (flags.inter) config.SetInterOpThreads(*flags.inter, FlagRequester("--inter", *flags.inter));
}

SessionOptions SessionOptionsFor(const ModelFlags& flags) {
  SessionOptions options;
  options.blocked_layout = flags.blocked_layout;
  options.winograd = flags.winograd;
  return options;
}

Model LoadModel(const std::optional<std::string>& path) {
  if (!path) return {"demo", DemoNetwork()};
  std::error_code error;
  const auto status = std::filesystem::status(*path, error);
  if (!std::filesystem::exists(status)) {
    throw InvalidArgumentError("model '" + *path + "': no such file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw InvalidArgumentError("model '" + *path + "': not a regular file");
  }
  return {*path, load_onnx_model(*path)};
}

std::map<std::string, Tensor> ReadInputFiles(const std::vector<InputFile>& files) {
  std::map<std::string, Tensor> tensors;
  for (const InputFile& file : files) {
    if (tensors.count(file.name) > 0) {
      throw InvalidArgumentError("--input " + file.name + " is given twice");
    }
    try {
      tensors.emplace(file.name, io::ReadNpy(file.path));
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError("--input " + file.name + ": " + e.what());
    }
  }
  return tensors;
}

}  // namespace loom::cli
