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

// The usage-error message of parsing `args` as run's flags (--intra takes
// an integer, --name a string, --json nothing); "" when they parse.
std::string ParseError(const std::vector<std::string>& args) {
  try {
    FlagReader flags("run", args);
    std::optional<std::string> model;
    while (flags.Next()) {
      if (flags.Is("--intra")) {
        flags.IntValue(0, 8);
      } else if (flags.Is("--name")) {
        flags.StringValue();
      } else if (flags.Is("--json")) {
      } else if (flags.IsPositional()) {
        flags.Positional("MODEL", model);
      } else {
        flags.Unknown();
      }
    }
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(FlagReader, EqualsFormReadsLikeASeparateValue) {
  const std::vector<std::string> args = {"--intra=3", "--name=a=b", "--input", "x=y.npy"};
  FlagReader flags("run", args);
  ASSERT_TRUE(flags.Next());
  EXPECT_TRUE(flags.Is("--intra"));
  EXPECT_EQ(flags.current(), "--intra");
  EXPECT_EQ(flags.IntValue(0, 8), 3);
  ASSERT_TRUE(flags.Next());
  EXPECT_EQ(flags.StringValue(), "a=b") << "split at the first '='";
  ASSERT_TRUE(flags.Next());
  EXPECT_EQ(flags.StringValue(), "x=y.npy") << "a separate value keeps its '='";
  EXPECT_FALSE(flags.Next());

  EXPECT_EQ(ParseError({"--intra=3", "m.onnx", "--json"}), "");
  EXPECT_NE(ParseError({"--intra=x"}).find("--intra expects"), std::string::npos);
  EXPECT_NE(ParseError({"--name="}).find("--name needs a value"), std::string::npos);
  EXPECT_NE(ParseError({"--frob=1"}).find("unknown flag '--frob'"), std::string::npos);
}

TEST(FlagReader, ValueGivenToAFlagThatTakesNoneIsAUsageErrorNamingIt) {
  EXPECT_NE(ParseError({"--json=1"}).find("--json takes no value"), std::string::npos);
  EXPECT_NE(ParseError({"--json=1", "--intra", "2"}).find("--json"), std::string::npos)
      << "also when more flags follow";
}

TEST(FlagReader, CpuListValueAcceptsRangesAndRefusesTheRest) {
  auto cpus = [](const std::string& text) {
    const std::vector<std::string> args = {"--intra-cpus", text};
    FlagReader flags("threads", args);
    flags.Next();
    return flags.CpuListValue();
  };
  EXPECT_EQ(cpus("0-2,5"), (std::vector<int>{0, 1, 2, 5}));
  for (const char* bad : {"abc", "3-1", ","}) {
    try {
      cpus(bad);
      FAIL() << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--intra-cpus"), std::string::npos) << e.what();
    }
  }
}

TEST(FlagReader, UsageErrorIsAnInvalidArgumentError) {
  // Callers that catch loom's errors as a family still see usage mistakes.
  EXPECT_THROW(throw UsageError("x"), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::cli
