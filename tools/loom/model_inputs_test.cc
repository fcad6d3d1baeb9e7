#include "model_inputs.h"

#include <gtest/gtest.h>

#include "cli_flags.h"
#include "loom/errors.h"

namespace loom::cli {
namespace {

// A graph declaring `inputs` (no nodes: BuildFeeds reads declarations only).
Graph Declaring(std::vector<ValueInfo> inputs) {
  Graph g;
  g.name = "g";
  g.inputs = std::move(inputs);
  return g;
}

ValueInfo Input(std::string name, DType dtype, SymbolicShape shape) {
  return {std::move(name), {dtype, std::move(shape)}};
}

std::string ErrorOf(const Graph& g, std::optional<int64_t> batch,
                    const std::map<std::string, Tensor>& given = {}) {
  try {
    BuildFeeds(g, batch, given);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParseInputFlag, SplitsAtTheFirstEquals) {
  const InputFile f = ParseInputFlag("input.1=data/a=b.npy");
  EXPECT_EQ(f.name, "input.1");
  EXPECT_EQ(f.path, "data/a=b.npy");
  EXPECT_THROW(ParseInputFlag("x.npy"), UsageError);
  EXPECT_THROW(ParseInputFlag("=x.npy"), UsageError);
  EXPECT_THROW(ParseInputFlag("x="), UsageError);
}

TEST(BuildFeeds, TheFirstSymbolIsTheBatchEverywhere) {
  const Graph g = Declaring({Input("a", DType::kFloat32, {"N", 3}),
                             Input("b", DType::kInt64, {2, "N"}), Input("c", DType::kFloat64, {})});
  const Feeds f = BuildFeeds(g, 4, {});
  EXPECT_EQ(f.batch, 4);
  EXPECT_EQ(f.batch_symbol, "N");
  EXPECT_EQ(f.tensors.at("a").shape(), Shape({4, 3}));
  EXPECT_EQ(f.tensors.at("b").shape(), Shape({2, 4}));
  EXPECT_EQ(f.tensors.at("c").shape(), Shape({}));
  EXPECT_EQ(BuildFeeds(g, std::nullopt, {}).tensors.at("a").shape(), Shape({1, 3}));
}

TEST(BuildFeeds, FloatsAreUniformInMinusOneToOneIntsZeroAndRepeatable) {
  const Graph g = Declaring({Input("f", DType::kFloat32, {1000}), Input("i", DType::kInt32, {5}),
                             Input("h", DType::kFloat16, {100})});
  const Feeds a = BuildFeeds(g, std::nullopt, {});
  const float* f = a.tensors.at("f").data<float>();
  float lo = 1, hi = -1;
  for (int i = 0; i < 1000; ++i) {
    lo = std::min(lo, f[i]);
    hi = std::max(hi, f[i]);
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_LT(lo, -0.9f);  // 1000 draws cover the range
  EXPECT_GT(hi, 0.9f);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a.tensors.at("i").data<int32_t>()[i], 0);
  const Feeds b = BuildFeeds(g, std::nullopt, {});
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(f[i], b.tensors.at("f").data<float>()[i]);
  EXPECT_EQ(a.batch, 1000);  // no symbol: the first input's leading dimension
}

TEST(BuildFeeds, AnotherSymbolNeedsAnInputFile) {
  const Graph g = Declaring({Input("ids", DType::kInt64, {"batch", "sequence"})});
  const std::string error = ErrorOf(g, 2);
  EXPECT_NE(error.find("'ids'"), std::string::npos) << error;
  EXPECT_NE(error.find("'sequence'"), std::string::npos) << error;
  EXPECT_NE(error.find("--input ids=FILE.npy"), std::string::npos) << error;

  const Feeds f = BuildFeeds(g, std::nullopt, {{"ids", Tensor(DType::kInt64, Shape({3, 7}))}});
  EXPECT_EQ(f.batch, 3);  // the file binds the batch
  EXPECT_EQ(f.tensors.at("ids").shape(), Shape({3, 7}));
}

TEST(BuildFeeds, SequenceAndOptionalInputsAreRefusedClearly) {
  const Graph g = Declaring({{"s", SequenceType({DType::kFloat32, SymbolicShape{2}})}});
  const std::string error = ErrorOf(g, 1);
  EXPECT_NE(error.find("input 's' is seq(float32[2])"), std::string::npos) << error;
  EXPECT_NE(error.find("not supported here yet"), std::string::npos) << error;
}

TEST(BuildFeeds, AGivenFileBindsSymbolsForTheOtherInputs) {
  const Graph g = Declaring(
      {Input("tokens", DType::kInt64, {"B", "S"}), Input("mask", DType::kFloat32, {"B", "S"})});
  const Feeds f = BuildFeeds(g, 2, {{"tokens", Tensor(DType::kInt64, Shape({2, 9}))}});
  EXPECT_EQ(f.tensors.at("mask").shape(), Shape({2, 9}));
  const std::string error = ErrorOf(g, 4, {{"tokens", Tensor(DType::kInt64, Shape({2, 9}))}});
  EXPECT_NE(error.find("--batch 4"), std::string::npos) << error;
}

TEST(BuildFeeds, BatchOnAFixedShapeModelIsAnError) {
  const Graph g = Declaring({Input("x", DType::kFloat32, {1, 784})});
  EXPECT_NE(ErrorOf(g, 8).find("no symbolic"), std::string::npos);
  EXPECT_EQ(BuildFeeds(g, 1, {}).batch, 1);
}

TEST(BuildFeeds, UnknownNamesUnknownRanksAndHugeBatchesAreErrors) {
  const Graph g = Declaring({Input("x", DType::kFloat32, {"N", 3})});
  const std::string unknown = ErrorOf(g, 1, {{"y", Tensor(DType::kFloat32, Shape({1}))}});
  EXPECT_NE(unknown.find("no input 'y'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("'x'"), std::string::npos) << unknown;

  const Graph unranked = Declaring({{"u", {DType::kFloat32, std::nullopt}}});
  EXPECT_NE(ErrorOf(unranked, std::nullopt).find("--input u=FILE.npy"), std::string::npos);

  const Graph big = Declaring({Input("x", DType::kFloat32, {"N", 3, 1024, 1024})});
  EXPECT_NE(ErrorOf(big, 1 << 20).find("4 GiB"), std::string::npos);
}

TEST(BuildFeeds, InputsWithADefaultAreLeftToIt) {
  Graph g =
      Declaring({Input("x", DType::kFloat32, {"N", 2}), Input("scale", DType::kFloat32, {2})});
  g.initializers["scale"] = Tensor::from_vector<float>({2}, {1, 2});
  const Feeds f = BuildFeeds(g, 3, {});
  EXPECT_EQ(f.tensors.count("scale"), 0u);
  EXPECT_EQ(f.tensors.at("x").shape(), Shape({3, 2}));
  const Feeds overridden = BuildFeeds(g, 3, {{"scale", Tensor(DType::kFloat32, Shape({2}))}});
  EXPECT_EQ(overridden.tensors.count("scale"), 1u);
}

}  // namespace
}  // namespace loom::cli
