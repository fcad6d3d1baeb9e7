// Real cgroup limits, not fake ones: `loom threads` run inside a child cgroup
// with a CPU quota (the automatic values must follow it) or a task limit
// (thread creation fails: a clear error, not a crash). Needs root and a
// writable cgroup filesystem with the controller; skips otherwise.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "base/testing/json.h"
#include "subprocess.h"

namespace loom {
namespace {

struct QuotaFiles {
  std::string root;  // where to create the child cgroup
  bool v2 = false;
};

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

std::optional<QuotaFiles> FindCpuController() {
  for (const char* v1 : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
    if (Exists(std::string(v1) + "/cpu.cfs_quota_us")) return QuotaFiles{v1, false};
  }
  std::ifstream controllers("/sys/fs/cgroup/cgroup.controllers");
  std::string list;
  std::getline(controllers, list);
  if ((" " + list + " ").find(" cpu ") != std::string::npos)
    return QuotaFiles{"/sys/fs/cgroup", true};
  return std::nullopt;
}

bool Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

class CgroupQuota : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create a cgroup";
    auto found = FindCpuController();
    if (!found) GTEST_SKIP() << "no cgroup cpu controller found under /sys/fs/cgroup";
    files_ = *found;
    dir_ = files_.root + "/loom-test-" + std::to_string(getpid());
    if (mkdir(dir_.c_str(), 0755) != 0) {
      GTEST_SKIP() << "cannot create " << dir_ << ": " << std::strerror(errno)
                   << " (cgroup filesystem not writable here)";
    }
    created_ = true;
  }
  void TearDown() override {
    if (created_) rmdir(dir_.c_str());  // empty again once the child exited
  }

  // Sets the quota in CPUs (as quota/period with a 100 ms period).
  bool SetQuota(int quota_us) {
    if (files_.v2) return Write(dir_ + "/cpu.max", std::to_string(quota_us) + " 100000");
    return Write(dir_ + "/cpu.cfs_period_us", "100000") &&
           Write(dir_ + "/cpu.cfs_quota_us", std::to_string(quota_us));
  }

  loom::testing::Json ThreadsInside(const std::string& env = "") {
    const std::string script = "echo $$ > " + dir_ + "/cgroup.procs && exec env " + env + " " +
                               LOOM_BINARY + " threads --json";
    testing::ProcessResult r = testing::RunProcess({"/bin/sh", "-c", script});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return loom::testing::Json::parse(r.out);
  }

  QuotaFiles files_;
  std::string dir_;
  bool created_ = false;
};

TEST_F(CgroupQuota, HalfACpuQuotaMakesAutomaticIntraOne) {
  if (!SetQuota(50000)) GTEST_SKIP() << "cannot write a quota in " << dir_;
  loom::testing::Json j = ThreadsInside();
  EXPECT_DOUBLE_EQ(j["cpu"]["cgroup_quota"].get<double>(), 0.5);
  EXPECT_EQ(j["cpu"]["usable"], 1);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], 1);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["source"], "auto");
  // The CPU budget's "usable CPUs" (0) follows the quota too.
  loom::testing::Json budget = ThreadsInside("LOOM_CPU_BUDGET=0");
  EXPECT_EQ(budget["cpu_budget"]["value"], 1);
  EXPECT_EQ(budget["cpu_budget"]["source"], "env:LOOM_CPU_BUDGET");
}

TEST_F(CgroupQuota, FractionalQuotaRoundsUp) {
  if (!SetQuota(150000)) GTEST_SKIP() << "cannot write a quota in " << dir_;
  loom::testing::Json j = ThreadsInside();
  EXPECT_DOUBLE_EQ(j["cpu"]["cgroup_quota"].get<double>(), 1.5);
  const int cores = j["cpu"]["physical_cores"].get<int>();
  EXPECT_EQ(j["cpu"]["usable"], std::min(cores, 2));
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], std::min(cores, 2));
  loom::testing::Json budget = ThreadsInside("LOOM_CPU_BUDGET=0");
  EXPECT_EQ(budget["cpu_budget"]["value"], std::min(cores, 2));
}

// The pids controller: v1 hierarchy or v2 root with "pids" enabled.
std::optional<std::string> FindPidsController() {
  if (Exists("/sys/fs/cgroup/pids/pids.max") || Exists("/sys/fs/cgroup/pids/cgroup.procs")) {
    return "/sys/fs/cgroup/pids";
  }
  std::ifstream controllers("/sys/fs/cgroup/cgroup.controllers");
  std::string list;
  std::getline(controllers, list);
  if ((" " + list + " ").find(" pids ") != std::string::npos) return "/sys/fs/cgroup";
  return std::nullopt;
}

TEST(CgroupPids, ThreadLimitIsAClearErrorNotACrash) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create a cgroup";
  auto root = FindPidsController();
  if (!root) GTEST_SKIP() << "no cgroup pids controller found under /sys/fs/cgroup";
  const std::string dir = *root + "/loom-pids-test-" + std::to_string(getpid());
  if (mkdir(dir.c_str(), 0755) != 0) {
    GTEST_SKIP() << "cannot create " << dir << ": " << std::strerror(errno);
  }
  // Four tasks: the process and three threads, far fewer than asked for.
  if (!Write(dir + "/pids.max", "4")) {
    rmdir(dir.c_str());
    GTEST_SKIP() << "cannot write pids.max in " << dir;
  }
  const std::string script =
      "echo $$ > " + dir + "/cgroup.procs && exec " + LOOM_BINARY + " threads --intra 16";
  testing::ProcessResult r = testing::RunProcess({"/bin/sh", "-c", script});
  rmdir(dir.c_str());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // One error line (an oversubscription warning may precede it).
  const std::string error_line = "loom: error: thread pool 'intra': cannot create thread";
  EXPECT_NE(r.err.find(error_line), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("loom: error:"), r.err.rfind("loom: error:")) << r.err;
  EXPECT_TRUE(r.err.ends_with("\n") && r.err.find('\n', r.err.find(error_line)) == r.err.size() - 1)
      << r.err;
}

}  // namespace
}  // namespace loom
