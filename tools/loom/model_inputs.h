// The tensors `loom run` / `trace` / `tune` feed a model: files the user
// gave with --input NAME=FILE.npy, and for every other graph input a tensor
// of its declared shape filled with fixed-seed values.
//
// Binding dimensions: the first symbolic dimension found (inputs in graph
// order, axes in order) is the batch; its symbol takes --batch everywhere
// (or the size a given file has there). Any other symbol must come from a
// given file; otherwise BuildFeeds throws, asking for --input. Inputs that
// have a default (an initializer of the same name) are left to it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "loom/graph.h"
#include "loom/tensor.h"

namespace loom::cli {

// The seed of the generated values (input i uses kFeedSeed + i), so two
// runs of one model see the same numbers.
inline constexpr uint32_t kFeedSeed = 42;

struct InputFile {
  std::string name;
  std::string path;
};

// Splits "NAME=FILE.npy" at the first '='. Throws UsageError when either
// side is empty.
InputFile ParseInputFlag(const std::string& text);

struct Feeds {
  std::map<std::string, Tensor> tensors;
  // The size bound to the batch symbol; with no symbolic dimension, the
  // first input's leading dimension (1 for a scalar).
  int64_t batch = 1;
  std::string batch_symbol;  // empty when the inputs have no symbol
};

// Builds the feeds for `graph`. `batch` is the --batch flag (nullopt: not
// given, which means 1 unless a file binds the batch symbol). `given` maps
// input names to tensors read from --input files; their dtype and shape are
// checked later by Session::run. Throws loom::InvalidArgumentError naming
// the input for: a given name that is not a graph input; --batch with no
// symbolic dimension, or differing from a given file's batch; a dimension
// nothing binds; an input of unknown rank.
//
// Generated values: float types uniform in [-1, 1); integers and bool zero.
Feeds BuildFeeds(const Graph& graph, std::optional<int64_t> batch,
                 const std::map<std::string, Tensor>& given);

}  // namespace loom::cli
