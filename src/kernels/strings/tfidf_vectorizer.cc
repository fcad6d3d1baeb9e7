#include "kernels/strings/tfidf_vectorizer.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "TfIdfVectorizer";

// Tokens become int64 symbols: integers are themselves; a string is its
// first position in pool_strings, or kUnknown when the pool lacks it (such a
// token starts and continues no n-gram).
constexpr int64_t kUnknown = -1;

// The pool's n-grams as a trie over symbols: walking from the root along a
// row's tokens meets every n-gram of the pool that starts there.
struct Trie {
  struct Node {
    std::unordered_map<int64_t, int32_t> next;
    int64_t gram = -1;  // the number of the pool's n-gram ending here, or -1
  };
  std::vector<Node> nodes{1};

  // False when the n-gram is already in the trie.
  bool Insert(const int64_t* symbols, int64_t size, int64_t gram) {
    int32_t at = 0;
    for (int64_t k = 0; k < size; ++k) {
      const auto [it, added] = nodes[static_cast<size_t>(at)].next.try_emplace(
          symbols[k], static_cast<int32_t>(nodes.size()));
      const int32_t child = it->second;
      if (added) nodes.emplace_back();
      at = child;
    }
    if (nodes[static_cast<size_t>(at)].gram >= 0) return false;
    nodes[static_cast<size_t>(at)].gram = gram;
    return true;
  }
};

enum class Mode { kTf, kIdf, kTfIdf };

struct Config {
  Mode mode = Mode::kTf;
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  int64_t width = 0;             // output columns
  std::vector<int64_t> columns;  // by n-gram number: ngram_indexes
  std::vector<float> weights;    // by n-gram number, or empty
  bool strings = false;
  std::unordered_map<std::string, int64_t> string_symbols;
  Trie trie;
};

Config ReadConfig(const Attributes& attrs) {
  Config config;
  const std::string mode = attrs.get_string("mode");
  if (mode == "TF") {
    config.mode = Mode::kTf;
  } else if (mode == "IDF") {
    config.mode = Mode::kIdf;
  } else if (mode == "TFIDF") {
    config.mode = Mode::kTfIdf;
  } else {
    ThrowKernelError(kOp, "attribute 'mode' = \"" + mode + "\" is not TF, IDF or TFIDF");
  }
  config.min_gram = attrs.get_int("min_gram_length");
  config.max_gram = attrs.get_int("max_gram_length");
  config.max_skip = attrs.get_int("max_skip_count");
  if (config.min_gram < 1 || config.max_gram < config.min_gram) {
    ThrowKernelError(kOp, "needs 1 <= min_gram_length <= max_gram_length (got " +
                              std::to_string(config.min_gram) + " and " +
                              std::to_string(config.max_gram) + ")");
  }
  if (config.max_skip < 0) {
    ThrowKernelError(kOp, "attribute 'max_skip_count' must be >= 0 (got " +
                              std::to_string(config.max_skip) + ")");
  }
  const bool has_ints = attrs.has("pool_int64s");
  const bool has_strings = attrs.has("pool_strings");
  if (has_ints == has_strings) {
    ThrowKernelError(kOp,
                     "exactly one of the attributes 'pool_int64s' and 'pool_strings' must be set");
  }
  config.strings = has_strings;
  std::vector<int64_t> pool;
  if (has_ints) {
    pool = attrs.get_ints("pool_int64s");
  } else {
    const std::vector<std::string> words = attrs.get_strings("pool_strings");
    pool.reserve(words.size());
    for (const std::string& word : words) {
      pool.push_back(
          config.string_symbols.try_emplace(word, static_cast<int64_t>(pool.size())).first->second);
    }
  }
  const std::vector<int64_t> counts = attrs.get_ints("ngram_counts");
  const std::vector<int64_t> indexes = attrs.get_ints("ngram_indexes");
  if (indexes.empty()) ThrowKernelError(kOp, "attribute 'ngram_indexes' is empty");
  for (const int64_t index : indexes) {
    if (index < 0) {
      ThrowKernelError(kOp, "attribute 'ngram_indexes' holds " + std::to_string(index) +
                                "; output columns are >= 0");
    }
  }
  config.width = *std::max_element(indexes.begin(), indexes.end()) + 1;
  const auto pool_size = static_cast<int64_t>(pool.size());
  int64_t gram_number = 0;  // n-grams so far, every size
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t size = static_cast<int64_t>(i) + 1;
    const int64_t begin = counts[i];
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : pool_size;
    if (begin < 0 || begin > end || end > pool_size) {
      ThrowKernelError(kOp, "attribute 'ngram_counts' must rise within the pool of " +
                                std::to_string(pool_size) + " entries (entry " + std::to_string(i) +
                                " starts " + std::to_string(begin) + ", the next size at " +
                                std::to_string(end) + ")");
    }
    if ((end - begin) % size != 0) {
      ThrowKernelError(kOp, "the pool's " + std::to_string(size) + "-grams take " +
                                std::to_string(end - begin) + " entries, not a multiple of " +
                                std::to_string(size));
    }
    const int64_t grams = (end - begin) / size;
    if (gram_number + grams > static_cast<int64_t>(indexes.size())) {
      ThrowKernelError(kOp, "the pool holds more n-grams than 'ngram_indexes' has entries (" +
                                std::to_string(indexes.size()) + ")");
    }
    if (size >= config.min_gram && size <= config.max_gram) {
      for (int64_t g = 0; g < grams; ++g) {
        if (!config.trie.Insert(pool.data() + begin + g * size, size, gram_number + g)) {
          ThrowKernelError(kOp, "the pool lists a " + std::to_string(size) +
                                    "-gram twice (n-gram " + std::to_string(gram_number + g) + ")");
        }
      }
    }
    gram_number += grams;
  }
  config.columns = indexes;
  config.weights = attrs.get_floats("weights", {});
  if (attrs.has("weights") && config.weights.size() != indexes.size()) {
    ThrowKernelError(kOp, "attribute 'weights' has " + std::to_string(config.weights.size()) +
                              " entries, 'ngram_indexes' " + std::to_string(indexes.size()) +
                              "; they must match");
  }
  return config;
}

// Adds row `tokens` (symbols) n-gram counts to `counts` (by n-gram number).
void CountRow(const Config& config, const int64_t* tokens, int64_t length, int64_t* counts) {
  const std::vector<Trie::Node>& nodes = config.trie.nodes;
  for (int64_t distance = 1; distance - 1 <= config.max_skip; ++distance) {
    // Unigrams do not depend on the distance: counted at distance 1 only.
    const int64_t shortest =
        distance == 1 ? config.min_gram : std::max<int64_t>(config.min_gram, 2);
    if (shortest > config.max_gram) break;
    // The shortest n-gram spans distance * (shortest - 1) + 1 tokens; a
    // longer distance fits no better.
    if (distance > (length - 1) / std::max<int64_t>(shortest - 1, 1) && shortest > 1) break;
    for (int64_t start = 0; start + distance * (shortest - 1) < length; ++start) {
      const Trie::Node* node = nodes.data();
      int64_t at = start;
      for (int64_t size = 1; size <= config.max_gram && at < length; ++size, at += distance) {
        const auto next = node->next.find(tokens[at]);
        if (next == node->next.end()) break;
        node = &nodes[static_cast<size_t>(next->second)];
        if (size >= shortest && node->gram >= 0) ++counts[node->gram];
      }
    }
  }
}

}  // namespace

std::vector<Tensor> TfIdfVectorizerKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Config config = ReadConfig(attrs);
  if (config.strings) {
    CheckDType(kOp, "X", x, {DType::kString});
  } else {
    CheckDType(kOp, "X", x, {DType::kInt32, DType::kInt64});
  }
  const int rank = x.shape().rank();
  if (rank != 1 && rank != 2) {
    ThrowKernelError(kOp, "input 'X' must be [C] or [N, C], got shape " + x.shape().to_string());
  }
  const int64_t rows = rank == 1 ? 1 : x.shape().dims()[0];
  const int64_t length = x.shape().dims()[static_cast<size_t>(rank - 1)];
  if (rows > 0 && config.width > kMaxTensorBytes / static_cast<int64_t>(sizeof(float)) / rows) {
    ThrowKernelError(kOp, std::to_string(rows) + " rows of " + std::to_string(config.width) +
                              " columns are more than Loom allocates (" +
                              std::to_string(kMaxTensorBytes) + " bytes)");
  }
  const Shape out_shape = rank == 1 ? Shape({config.width}) : Shape({rows, config.width});
  Tensor y = Tensor::uninitialized(DType::kFloat32, out_shape);
  float* out = y.data<float>();
  // Trie steps per token, at most: one walk per distance, each <= max_gram.
  const double steps_per_token = static_cast<double>(std::min(config.max_skip, length) + 1) *
                                 static_cast<double>(std::min(config.max_gram, length));
  // Serial loop replaced: for each row r: Y[r] = weighted n-gram counts of X[r].
  threading::ParallelFor(
      ctx.pool, rows,
      (static_cast<double>(length) * steps_per_token + static_cast<double>(config.width)) * 20.0,
      [&](int64_t begin, int64_t end) {
        std::vector<int64_t> tokens(static_cast<size_t>(length));
        std::vector<int64_t> counts(config.columns.size());
        for (int64_t r = begin; r < end; ++r) {
          for (int64_t c = 0; c < length; ++c) {
            const int64_t i = r * length + c;
            int64_t symbol = 0;
            if (config.strings) {
              const auto found = config.string_symbols.find(x.data<std::string>()[i]);
              symbol = found == config.string_symbols.end() ? kUnknown : found->second;
            } else if (x.dtype() == DType::kInt32) {
              symbol = x.data<int32_t>()[i];
            } else {
              symbol = x.data<int64_t>()[i];
            }
            tokens[static_cast<size_t>(c)] = symbol;
          }
          std::fill(counts.begin(), counts.end(), int64_t{0});
          CountRow(config, tokens.data(), length, counts.data());
          float* row = out + r * config.width;
          std::fill(row, row + config.width, 0.0f);
          // n-grams sharing a column add up, in n-gram order.
          for (size_t j = 0; j < counts.size(); ++j) {
            const auto count = static_cast<float>(counts[j]);
            const float weight = config.weights.empty() ? 1.0f : config.weights[j];
            float& y_col = row[config.columns[j]];
            switch (config.mode) {
              case Mode::kTf:
                y_col += count;
                break;
              case Mode::kIdf:
                y_col += count > 0 ? weight : 0.0f;
                break;
              case Mode::kTfIdf:
                y_col += weight * count;
                break;
            }
          }
        }
      });
  return {std::move(y)};
}

}  // namespace loom::kernels
