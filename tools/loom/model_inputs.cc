#include "model_inputs.h"

#include <random>
#include <vector>

#include "cli_flags.h"
#include "loom/errors.h"

namespace loom::cli {
namespace {

std::string InputList(const Graph& graph) {
  std::string names;
  for (const ValueInfo& input : graph.inputs)
    names += (names.empty() ? "'" : ", '") + input.name + "'";
  return names.empty() ? "none" : names;
}

// The most bytes of generated input: beyond this a typo in --batch would
// zero-fill memory until the OOM killer steps in, instead of a clear error.
constexpr int64_t kMaxGeneratedBytes = int64_t{4} << 30;

bool HasDefault(const Graph& graph, const std::string& name) {
  return graph.initializers.count(name) > 0;
}

template <typename T>
void FillUniform(Tensor& tensor, std::mt19937& engine) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.num_elements(); ++i) data[i] = T(uniform(engine));
}

Tensor Generate(DType dtype, Shape shape, uint32_t seed) {
  Tensor tensor(dtype, std::move(shape));  // zero-filled: right for ints and bool
  std::mt19937 engine(seed);
  if (dtype == DType::kFloat32) FillUniform<float>(tensor, engine);
  if (dtype == DType::kFloat64) FillUniform<double>(tensor, engine);
  if (dtype == DType::kFloat16) FillUniform<Float16>(tensor, engine);
  if (dtype == DType::kBFloat16) FillUniform<BFloat16>(tensor, engine);
  return tensor;
}

}  // namespace

InputFile ParseInputFlag(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw UsageError("--input expects NAME=FILE.npy, got '" + text + "'");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Feeds BuildFeeds(const Graph& graph, std::optional<int64_t> batch,
                 const std::map<std::string, Tensor>& given) {
  for (const auto& [name, tensor] : given) {
    bool found = false;
    for (const ValueInfo& input : graph.inputs) found = found || input.name == name;
    if (!found) {
      throw InvalidArgumentError("--input " + name + ": the model has no input '" + name +
                                 "' (its inputs: " + InputList(graph) + ")");
    }
  }
  // The inputs to feed, and the symbol sizes the given files fix.
  std::vector<const ValueInfo*> to_feed;
  std::map<std::string, int64_t> bound;
  Feeds feeds;
  for (const ValueInfo& input : graph.inputs) {
    auto file = given.find(input.name);
    if (file == given.end() && HasDefault(graph, input.name)) continue;
    to_feed.push_back(&input);
    if (!input.type.shape) continue;
    const SymbolicShape& shape = *input.type.shape;
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      if (shape[axis].is_known()) continue;
      if (feeds.batch_symbol.empty()) feeds.batch_symbol = shape[axis].symbol();
      if (file != given.end() && static_cast<int>(axis) < file->second.shape().rank()) {
        bound.emplace(shape[axis].symbol(), file->second.shape().dims()[axis]);
      }
    }
  }

  if (feeds.batch_symbol.empty()) {
    if (batch && *batch != 1) {
      throw InvalidArgumentError("--batch " + std::to_string(*batch) +
                                 ": the model's inputs have no symbolic (dynamic) dimension to "
                                 "bind it to; their shapes are fixed");
    }
  } else {
    auto fixed = bound.find(feeds.batch_symbol);
    if (fixed == bound.end()) {
      bound[feeds.batch_symbol] = batch.value_or(1);
    } else if (batch && *batch != fixed->second) {
      throw InvalidArgumentError("--batch " + std::to_string(*batch) + " differs from the " +
                                 std::to_string(fixed->second) + " that the --input files give '" +
                                 feeds.batch_symbol + "'");
    }
    feeds.batch = bound[feeds.batch_symbol];
  }

  for (size_t i = 0; i < to_feed.size(); ++i) {
    const ValueInfo& input = *to_feed[i];
    if (!input.type.is_tensor()) {
      throw InvalidArgumentError("input '" + input.name + "' is " + input.type.to_string() +
                                 ": the loom command feeds tensors only (sequence and optional "
                                 "inputs are not supported here yet; Session::run_values and "
                                 "Python's InferenceSession.run take them)");
    }
    if (auto file = given.find(input.name); file != given.end()) {
      feeds.tensors.emplace(input.name, file->second);
      continue;
    }
    if (!input.type.shape) {
      throw InvalidArgumentError("input '" + input.name +
                                 "' has an unknown shape; give it with --input " + input.name +
                                 "=FILE.npy");
    }
    std::vector<int64_t> dims;
    for (size_t axis = 0; axis < input.type.shape->size(); ++axis) {
      const Dim& dim = (*input.type.shape)[axis];
      if (dim.is_known()) {
        dims.push_back(dim.size());
        continue;
      }
      auto size = bound.find(dim.symbol());
      if (size == bound.end()) {
        throw InvalidArgumentError(
            "input '" + input.name + "' " + shape_to_string(*input.type.shape) + ": dimension " +
            std::to_string(axis) + " '" + dim.symbol() + "' is not the batch ('" +
            feeds.batch_symbol + "', set by --batch); give the input with --input " + input.name +
            "=FILE.npy");
      }
      dims.push_back(size->second);
    }
    Shape shape(std::move(dims));
    if (shape.num_elements() >
        kMaxGeneratedBytes / static_cast<int64_t>(dtype_size(input.type.dtype))) {
      throw InvalidArgumentError("input '" + input.name + "' would be " + shape.to_string() +
                                 ", more than 4 GiB of generated data; use a smaller --batch");
    }
    feeds.tensors.emplace(input.name, Generate(input.type.dtype, std::move(shape),
                                               kFeedSeed + static_cast<uint32_t>(i)));
  }

  if (feeds.batch_symbol.empty() && !to_feed.empty()) {
    const Tensor& first = feeds.tensors.at(to_feed.front()->name);
    feeds.batch = first.shape().rank() > 0 ? first.shape().dims()[0] : 1;
  }
  return feeds;
}

}  // namespace loom::cli
