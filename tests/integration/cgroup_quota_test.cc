// A real CPU quota, not a fake one: put `loom threads --json` into a child
// cgroup with a quota of half a CPU and check the automatic values. Needs root
// and a writable cgroup filesystem with the cpu controller; skips otherwise.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

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

  nlohmann::json ThreadsInside() {
    const std::string script =
        "echo $$ > " + dir_ + "/cgroup.procs && exec " + LOOM_BINARY + " threads --json";
    testing::ProcessResult r = testing::RunProcess({"/bin/sh", "-c", script});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  QuotaFiles files_;
  std::string dir_;
  bool created_ = false;
};

TEST_F(CgroupQuota, HalfACpuQuotaMakesAutomaticIntraOne) {
  if (!SetQuota(50000)) GTEST_SKIP() << "cannot write a quota in " << dir_;
  nlohmann::json j = ThreadsInside();
  EXPECT_DOUBLE_EQ(j["cpu"]["cgroup_quota"].get<double>(), 0.5);
  EXPECT_EQ(j["cpu"]["usable"], 1);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], 1);
  EXPECT_EQ(j["intra_op_parallelism_threads"]["source"], "auto");
}

TEST_F(CgroupQuota, FractionalQuotaRoundsUp) {
  if (!SetQuota(150000)) GTEST_SKIP() << "cannot write a quota in " << dir_;
  nlohmann::json j = ThreadsInside();
  EXPECT_DOUBLE_EQ(j["cpu"]["cgroup_quota"].get<double>(), 1.5);
  const int cores = j["cpu"]["physical_cores"].get<int>();
  EXPECT_EQ(j["cpu"]["usable"], std::min(cores, 2));
  EXPECT_EQ(j["intra_op_parallelism_threads"]["value"], std::min(cores, 2));
}

}  // namespace
}  // namespace loom
