// TfIdfVectorizer: the operator description's skip example by hand, the
// three modes, string tokens, random pools and rows against a brute-force
// count (every start, distance and size spelled out, no trie) at every
// thread count, and malformed attributes.
#include "kernels/strings/tfidf_vectorizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using Ints = std::vector<int64_t>;

Attributes Config(std::string mode, int64_t min_gram, int64_t max_gram, int64_t max_skip,
                  Ints counts, Ints indexes, Ints pool) {
  return Attributes()
      .set("mode", std::move(mode))
      .set("min_gram_length", min_gram)
      .set("max_gram_length", max_gram)
      .set("max_skip_count", max_skip)
      .set("ngram_counts", std::move(counts))
      .set("ngram_indexes", std::move(indexes))
      .set("pool_int64s", std::move(pool));
}

Tensor Row(Ints tokens) {
  const auto n = static_cast<int64_t>(tokens.size());
  return Tensor::from_vector(Shape({n}), tokens);
}

Tensor Floats(Shape shape, std::vector<float> values) {
  return Tensor::from_vector(std::move(shape), values);
}

TEST(TfIdfVectorizer, SkipExampleFromTheOperatorDescription) {
  // [94, 17, 36, 12, 28] with 2 skips: the bigrams at distance 3 are
  // [94, 12] and [17, 28]; at distance 1 [94, 17], [17, 36], ... Pool:
  // unigram 17; bigrams [94, 12], [17, 36], [12, 94] (absent).
  const Tensor x = Row({94, 17, 36, 12, 28});
  const Attributes only_distance_three =
      Config("TF", 1, 2, 2, {0, 1}, {0, 1, 2, 3}, {17, 94, 12, 17, 36, 12, 94});
  // 17 once; [94, 12] at distance 3; [17, 36] at distance 1; [12, 94] never.
  ExpectEverywhere(TfIdfVectorizerKernel, only_distance_three, {&x},
                   {Floats(Shape({4}), {1, 1, 1, 0})});
  // Without skips [94, 12] is not adjacent anywhere.
  const Attributes no_skips =
      Config("TF", 1, 2, 0, {0, 1}, {0, 1, 2, 3}, {17, 94, 12, 17, 36, 12, 94});
  ExpectEverywhere(TfIdfVectorizerKernel, no_skips, {&x}, {Floats(Shape({4}), {1, 0, 1, 0})});
  // Only bigrams counted: the unigram column stays 0.
  const Attributes bigrams =
      Config("TF", 2, 2, 2, {0, 1}, {0, 1, 2, 3}, {17, 94, 12, 17, 36, 12, 94});
  ExpectEverywhere(TfIdfVectorizerKernel, bigrams, {&x}, {Floats(Shape({4}), {0, 1, 1, 0})});
}

TEST(TfIdfVectorizer, ModesWeightsAndColumnMapping) {
  // Rows [7, 7, 8] and [8, 9, 9]; unigrams 7, 8, 9 into columns 2, 0, 1.
  const Tensor x = Tensor::from_vector(Shape({2, 3}), std::vector<int32_t>{7, 7, 8, 8, 9, 9});
  Attributes attrs = Config("TF", 1, 1, 0, {0}, {2, 0, 1}, {7, 8, 9});
  ExpectEverywhere(TfIdfVectorizerKernel, attrs, {&x}, {Floats(Shape({2, 3}), {1, 0, 2, 1, 2, 0})});
  attrs.set("mode", std::string("IDF"));
  ExpectEverywhere(TfIdfVectorizerKernel, attrs, {&x}, {Floats(Shape({2, 3}), {1, 0, 1, 1, 1, 0})});
  // weights go by n-gram number (7: 0.5, 8: 0.25, 9: 4), as the operator
  // description says and ONNX Runtime computes, not by column.
  attrs.set("weights", std::vector<float>{0.5f, 0.25f, 4.0f});
  ExpectEverywhere(TfIdfVectorizerKernel, attrs, {&x},
                   {Floats(Shape({2, 3}), {0.25f, 0, 0.5f, 0.25f, 4, 0})});
  attrs.set("mode", std::string("TFIDF"));
  ExpectEverywhere(TfIdfVectorizerKernel, attrs, {&x},
                   {Floats(Shape({2, 3}), {0.25f, 0, 1, 0.25f, 8, 0})});
  // Two n-grams in one column add up.
  const Tensor row = Row({1, 2, 2});
  ExpectEverywhere(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0}, {0, 0}, {1, 2}), {&row},
                   {Floats(Shape({1}), {3})});
}

TEST(TfIdfVectorizer, StringTokens) {
  const Tensor x = Tensor::from_vector(
      Shape({2, 4}), std::vector<std::string>{"the", "cat", "sat", "down", "a", "cat", "sat", ""});
  const Attributes attrs =
      Attributes()
          .set("mode", std::string("TF"))
          .set("min_gram_length", int64_t{1})
          .set("max_gram_length", int64_t{2})
          .set("max_skip_count", int64_t{0})
          .set("ngram_counts", Ints{0, 2})
          .set("ngram_indexes", Ints{0, 1, 2})
          .set("pool_strings", std::vector<std::string>{"cat", "sat", "cat", "sat"});
  ExpectEverywhere(TfIdfVectorizerKernel, attrs, {&x}, {Floats(Shape({2, 3}), {1, 1, 1, 1, 1, 1})});
}

// Every n-gram of `row` by brute force: sizes min..max, each distance
// 1..skip+1 (unigrams once), looked up in a map of the pool's n-grams.
std::vector<float> BruteForce(const Ints& row, int64_t min_gram, int64_t max_gram, int64_t skip,
                              const std::map<Ints, int64_t>& columns, int64_t width) {
  std::vector<float> counts(static_cast<size_t>(width), 0.0f);
  const auto length = static_cast<int64_t>(row.size());
  for (int64_t size = min_gram; size <= max_gram; ++size) {
    for (int64_t distance = 1; distance <= (size == 1 ? 1 : skip + 1); ++distance) {
      for (int64_t start = 0; start + (size - 1) * distance < length; ++start) {
        Ints gram;
        for (int64_t k = 0; k < size; ++k)
          gram.push_back(row[static_cast<size_t>(start + k * distance)]);
        const auto found = columns.find(gram);
        if (found != columns.end()) counts[static_cast<size_t>(found->second)] += 1;
      }
    }
  }
  return counts;
}

TEST(TfIdfVectorizer, RandomPoolsMatchBruteForce) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t max_size = 1 + trial % 4;
    // A small alphabet so n-grams repeat; distinct pool n-grams per size.
    Ints pool, counts;
    std::map<Ints, int64_t> columns;
    int64_t number = 0;
    std::vector<Ints> grams;
    for (int64_t size = 1; size <= max_size; ++size) {
      counts.push_back(static_cast<int64_t>(pool.size()));
      std::map<Ints, bool> seen;
      for (int g = 0; g < 6; ++g) {
        Ints gram;
        for (int64_t k = 0; k < size; ++k) gram.push_back(static_cast<int64_t>(rng() % 4));
        if (seen[gram]) continue;
        seen[gram] = true;
        pool.insert(pool.end(), gram.begin(), gram.end());
        grams.push_back(gram);
        ++number;
      }
    }
    // A shuffled column for each n-gram.
    Ints indexes(static_cast<size_t>(number));
    for (int64_t i = 0; i < number; ++i) indexes[static_cast<size_t>(i)] = i;
    std::shuffle(indexes.begin(), indexes.end(), rng);
    const int64_t min_gram = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(max_size));
    const int64_t max_gram =
        min_gram + static_cast<int64_t>(rng() % static_cast<uint32_t>(max_size - min_gram + 1));
    for (size_t j = 0; j < grams.size(); ++j) {
      const auto size = static_cast<int64_t>(grams[j].size());
      if (size >= min_gram && size <= max_gram) columns[grams[j]] = indexes[j];
    }
    const int64_t skip = static_cast<int64_t>(rng() % 4);
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 5);
    const int64_t length = static_cast<int64_t>(rng() % 13);  // 0 included
    Ints tokens(static_cast<size_t>(rows * length));
    for (int64_t& token : tokens) token = static_cast<int64_t>(rng() % 5);  // 4 is in no n-gram
    const Tensor x = Tensor::from_vector(Shape({rows, length}), tokens);
    std::vector<float> expected;
    for (int64_t r = 0; r < rows; ++r) {
      const Ints row(tokens.begin() + r * length, tokens.begin() + (r + 1) * length);
      const std::vector<float> counted = BruteForce(row, min_gram, max_gram, skip, columns, number);
      expected.insert(expected.end(), counted.begin(), counted.end());
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    ExpectEverywhere(TfIdfVectorizerKernel,
                     Config("TF", min_gram, max_gram, skip, counts, indexes, pool), {&x},
                     {Floats(Shape({rows, number}), expected)});
  }
}

TEST(TfIdfVectorizer, MalformedAttributesAndInputs) {
  const Tensor x = Row({1, 2, 3});
  const std::string op = "TfIdfVectorizer";
  ExpectError(TfIdfVectorizerKernel, Config("BM25", 1, 1, 0, {0}, {0}, {1}), {&x}, op, {"BM25"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 2, 1, 0, {0}, {0}, {1}), {&x}, op,
              {"min_gram_length"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, -1, {0}, {0}, {1}), {&x}, op,
              {"max_skip_count"});
  // Three entries are not a whole number of bigrams.
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 2, 0, {0, 1}, {0, 1, 2}, {1, 2, 3, 4}), {&x},
              op, {"2-grams", "multiple of 2"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0, 5}, {0}, {1}), {&x}, op,
              {"ngram_counts"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0}, {0}, {1, 2}), {&x}, op,
              {"ngram_indexes"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0}, {-1}, {1}), {&x}, op,
              {"ngram_indexes", "-1"});
  Attributes both = Config("TF", 1, 1, 0, {0}, {0}, {1});
  both.set("pool_strings", std::vector<std::string>{"a"});
  ExpectError(TfIdfVectorizerKernel, both, {&x}, op, {"exactly one"});
  Attributes short_weights = Config("IDF", 1, 1, 0, {0}, {0, 3}, {1, 2});
  short_weights.set("weights", std::vector<float>{1});
  ExpectError(TfIdfVectorizerKernel, short_weights, {&x}, op, {"weights", "must match"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0}, {0, 1}, {1, 1}), {&x}, op,
              {"1-gram twice"});
  const Tensor strings = Tensor::from_vector(Shape({1}), std::vector<std::string>{"a"});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0}, {0}, {1}), {&strings}, op, {"X"});
  const Tensor cube = Tensor::from_vector(Shape({1, 1, 3}), Ints{1, 2, 3});
  ExpectError(TfIdfVectorizerKernel, Config("TF", 1, 1, 0, {0}, {0}, {1}), {&cube}, op, {"[N, C]"});
  // An absurd skip count finishes at once (no n-gram fits past the row).
  ExpectEverywhere(TfIdfVectorizerKernel, Config("TF", 2, 2, int64_t{1} << 62, {0, 0}, {0}, {1, 3}),
                   {&x}, {Floats(Shape({1}), {1})});
}

}  // namespace
}  // namespace loom::kernels
