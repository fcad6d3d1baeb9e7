// The command line as a whole: `--version`, each command's own `--help`, and
// the exit-status rule — 0 ok, 1 a failure while doing the work, 2 a usage
// error — checked for every flag every command's help lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.h"

namespace loom {
namespace {

using testing::ProcessResult;
using testing::RunLoom;
using testing::RunProcess;

const std::vector<std::string> kCommands = {"run",     "trace",       "tune",    "threads",
                                            "kernels", "conformance", "version", "export-demo"};

// The flags a help text lists: the first word of each name on a line that
// starts with two spaces and '-' ("  -o, --output FILE   ..." gives -o and
// --output), -h/--help left out.
std::vector<std::string> FlagsInHelp(const std::string& help) {
  std::vector<std::string> flags;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::string names = line.substr(2, line.find("  ", 2) - 2);
    std::istringstream parts(names);
    for (std::string part; std::getline(parts, part, ',');) {
      part.erase(0, part.find_first_not_of(' '));
      const std::string flag = part.substr(0, part.find(' '));
      if (flag != "-h" && flag != "--help") flags.push_back(flag);
    }
  }
  return flags;
}

TEST(CliUsage, VersionPrintsTheProjectVersion) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--version"}, {"version"}}) {
    const ProcessResult r = RunLoom(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string("loom ") + LOOM_PROJECT_VERSION + "\n");
    EXPECT_EQ(r.err, "");
  }
  EXPECT_EQ(RunLoom({"version", "--json"}).exit_code, 2);
}

TEST(CliUsage, EachCommandHasItsOwnHelpOnStdout) {
  const ProcessResult overview = RunLoom({"--help"});
  ASSERT_EQ(overview.exit_code, 0) << overview.err;
  for (const std::string& command : kCommands) {
    EXPECT_NE(overview.out.find("\n  " + command + " "), std::string::npos) << command;
  }
  EXPECT_NE(overview.out.find("exit status: 0 ok, 1 failure, 2 usage error"), std::string::npos);
  EXPECT_EQ(RunLoom({"help"}).out, overview.out);

  std::set<std::string> texts;
  for (const std::string& command : kCommands) {
    for (const char* help : {"--help", "-h"}) {
      const ProcessResult r = RunLoom({command, help});
      EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
      EXPECT_EQ(r.err, "") << command;
      EXPECT_EQ(r.out.rfind("usage: loom " + command, 0), 0u) << r.out;
      EXPECT_NE(r.out.find("exit status: 0 ok, 1 failure, 2 usage error"), std::string::npos)
          << r.out;
      texts.insert(r.out);
    }
    EXPECT_EQ(RunLoom({"help", command}).out, RunLoom({command, "--help"}).out) << command;
  }
  EXPECT_EQ(texts.size(), kCommands.size()) << "each command's help is its own";
  // --help anywhere among a command's arguments; plain `loom` flags are run's.
  EXPECT_EQ(RunLoom({"run", "--intra", "2", "--help"}).out, RunLoom({"run", "--help"}).out);
  EXPECT_EQ(RunLoom({"--json", "--help"}).out, RunLoom({"run", "--help"}).out);
  EXPECT_EQ(RunLoom({"help", "frobnicate"}).exit_code, 2);
}

// One malformed value for every flag of every command: `value` is what to
// give it (nullopt for a flag that takes no value: it gets "=1").
struct BadFlag {
  std::string command;
  std::string flag;
  std::optional<std::string> value;
};

const std::vector<BadFlag> kBadFlags = {
    {"run", "--intra", "abc"},
    {"run", "--inter", "-1"},
    {"run", "--batch", "0"},
    {"run", "--input", "no-equals-sign"},
    {"run", "--no-blocked-layout", std::nullopt},
    {"run", "--no-winograd", std::nullopt},
    {"run", "--iterations", "0"},
    {"run", "--warmup", "many"},
    {"run", "--save-outputs", ""},
    {"run", "--json", std::nullopt},
    {"trace", "--intra", "5000"},
    {"trace", "--inter", "2x"},
    {"trace", "--batch", "-3"},
    {"trace", "--input", "=x.npy"},
    {"trace", "--no-blocked-layout", std::nullopt},
    {"trace", "--no-winograd", std::nullopt},
    {"trace", "-o", ""},
    {"trace", "--output", ""},
    {"trace", "--graph", ""},
    {"tune", "--objective", "speed"},
    {"tune", "--max-threads", "0"},
    {"tune", "--iterations", "0"},
    {"tune", "--max-rounds", "0"},
    {"tune", "--batch", "zero"},
    {"tune", "--max-batch", "0"},
    {"tune", "--input", "x="},
    {"tune", "--no-blocked-layout", std::nullopt},
    {"tune", "--no-winograd", std::nullopt},
    {"tune", "--out", ""},
    {"threads", "--intra", "abc"},
    {"threads", "--inter", "5000"},
    {"threads", "--data", "-1"},
    {"threads", "--spin-us", "2000000"},
    {"threads", "--cpu-budget", "lots"},
    {"threads", "--intra-cpus", "abc"},
    {"threads", "--inter-cpus", "3-1"},
    {"threads", "--pipeline", std::nullopt},
    {"threads", "--json", std::nullopt},
    {"kernels", "--json", std::nullopt},
    {"conformance", "--filter", "("},
    {"conformance", "--known-failures", ""},
    {"conformance", "--list-failures", std::nullopt},
    {"conformance", "--verbose", std::nullopt},
    {"conformance", "--json", std::nullopt},
};

TEST(CliUsage, TheBadFlagTableCoversEveryFlagInEveryHelp) {
  std::set<std::pair<std::string, std::string>> listed, tested;
  for (const std::string& command : kCommands) {
    const ProcessResult r = RunLoom({command, "--help"});
    for (const std::string& flag : FlagsInHelp(r.out)) listed.insert({command, flag});
  }
  for (const BadFlag& bad : kBadFlags) tested.insert({bad.command, bad.flag});
  EXPECT_EQ(listed, tested);
  EXPECT_GT(listed.size(), 35u);
}

TEST(CliUsage, EveryFlagWithAMalformedValueExitsTwoNamingTheFlag) {
  for (const BadFlag& bad : kBadFlags) {
    std::vector<std::vector<std::string>> forms;
    if (!bad.value) {
      forms.push_back({bad.command, bad.flag + "=1"});
    } else {
      forms.push_back({bad.command, bad.flag, *bad.value});
      if (bad.flag.rfind("--", 0) == 0) forms.push_back({bad.command, bad.flag + "=" + *bad.value});
      if (bad.value->empty()) forms.push_back({bad.command, bad.flag});  // no value at all
    }
    for (const std::vector<std::string>& args : forms) {
      const ProcessResult r = RunLoom(args);
      std::string shown;
      for (const std::string& arg : args) shown += " '" + arg + "'";
      EXPECT_EQ(r.exit_code, 2) << "loom" << shown << ": " << r.err;
      EXPECT_NE(r.err.find(bad.flag), std::string::npos) << "loom" << shown << ": " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(r.out, "") << "loom" << shown;
    }
  }
}

TEST(CliUsage, FailuresWhileDoingTheWorkExitOne) {
  const std::vector<std::vector<std::string>> failures = {
      {"run", "/no/such/model.onnx"},
      {"run", "--input", "image=/no/such/file.npy"},
      {"run", "--input", "nosuch=/no/such/file.npy"},
      {"trace", "/no/such/model.onnx", "-o", "/no/such/folder/trace.json"},
      {"conformance", "/no/such/folder", "--known-failures", "/no/such/list.txt"},
  };
  for (const std::vector<std::string>& args : failures) {
    const ProcessResult r = RunLoom(args);
    EXPECT_EQ(r.exit_code, 1) << args[1] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("loom: error: ", 0), 0u) << r.err;
  }
}

TEST(CliUsage, OutputThatCannotBeWrittenIsAFailure) {
  if (!std::ifstream("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::string& args :
       {std::string("run --iterations 1 --warmup 0"), std::string("run --json --iterations 1"),
        std::string("--help"), std::string("version"), std::string("kernels")}) {
    const ProcessResult r = RunProcess(
        {"/bin/sh", "-c", std::string("exec ") + LOOM_BINARY + " " + args + " >/dev/full"});
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("loom: error: cannot write to standard output"), std::string::npos)
        << args << ": " << r.err;
  }
  const ProcessResult trace = RunLoom({"trace", "-o", "/dev/full"});
  EXPECT_EQ(trace.exit_code, 1) << trace.err;
  EXPECT_NE(trace.err.find("/dev/full"), std::string::npos) << trace.err;
}

}  // namespace
}  // namespace loom
