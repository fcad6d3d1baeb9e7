#include "cli_flags.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace loom::cli {
namespace {

TEST(FlagReader, ReadsFlagsValuesAndOnePositional) {
  const std::vector<std::string> args = {"model.onnx", "--intra", "3", "--json", "--name", "x"};
  FlagReader flags("run", args);
  std::optional<std::string> model, name;
  int64_t intra = 0;
  bool json = false;
  while (flags.Next()) {
    if (flags.Is("--intra")) {
      intra = flags.IntValue(0, 8);
    } else if (flags.Is("--json")) {
      json = true;
    } else if (flags.Is("--name")) {
      name = flags.StringValue();
    } else if (flags.IsPositional()) {
      flags.Positional("MODEL", model);
    } else {
      flags.Unknown();
    }
  }
  EXPECT_EQ(model, "model.onnx");
  EXPECT_EQ(intra, 3);
  EXPECT_TRUE(json);
  EXPECT_EQ(name, "x");
}

TEST(FlagReader, MistakesAreUsageErrorsNamingTheFlag) {
  auto first_int = [](std::vector<std::string> args) {
    FlagReader flags("run", args);
    flags.Next();
    return flags.IntValue(1, 10);
  };
  EXPECT_THROW(first_int({"--batch"}), UsageError);
  try {
    first_int({"--batch", "4x"});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--batch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'4x'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(first_int({"--batch", "0"}), UsageError);
  EXPECT_THROW(first_int({"--batch", "11"}), UsageError);
  EXPECT_EQ(first_int({"--batch", "10"}), 10);

  const std::vector<std::string> unknown = {"--frobnicate"};
  FlagReader flags("run", unknown);
  ASSERT_TRUE(flags.Next());
  EXPECT_FALSE(flags.IsPositional());
  try {
    flags.Unknown();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'--frobnicate'"), std::string::npos) << e.what();
  }
}

TEST(FlagReader, SecondPositionalIsAUsageError) {
  const std::vector<std::string> args = {"a.onnx", "b.onnx"};
  FlagReader flags("run", args);
  std::optional<std::string> model;
  ASSERT_TRUE(flags.Next());
  flags.Positional("MODEL", model);
  ASSERT_TRUE(flags.Next());
  EXPECT_THROW(flags.Positional("MODEL", model), UsageError);
  EXPECT_FALSE(flags.Next());
}

TEST(FlagReader, UsageErrorIsAnInvalidArgumentError) {
  // Callers that catch loom's errors as a family still see usage mistakes.
  EXPECT_THROW(throw UsageError("x"), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::cli
