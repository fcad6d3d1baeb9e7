#include "platform/cpu_facts.h"

#include <gtest/gtest.h>

#include <map>

#include "platform/cpu_list.h"
#include "platform/testing/fake_system_probe.h"

namespace loom::platform {
namespace {

using Cpus = std::vector<int>;

constexpr char kV2MountInfo[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate\n";

// Lines for a v1 cpu hierarchy mounted at /sys/fs/cgroup/cpu,cpuacct, next to
// cpuset and cpuacct-only hierarchies that must not be mistaken for it.
std::string V1MountInfo(const std::string& root) {
  return "31 22 0:27 / /sys/fs/cgroup/cpuset rw shared:5 - cgroup cgroup rw,cpuset\n"
         "32 22 0:28 / /sys/fs/cgroup/cpuacct rw shared:6 - cgroup cgroup rw,cpuacct\n"
         "33 22 0:29 " +
         root + " /sys/fs/cgroup/cpu,cpuacct rw shared:7 - cgroup cgroup rw,cpu,cpuacct\n";
}

std::string Siblings(int cpu) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list";
}

// A host of `cpus` CPUs, one core each, all in the affinity mask, in the v2
// cgroup /app with no quota anywhere.
FakeSystemProbe V2Host(int cpus) {
  FakeSystemProbe probe;
  probe.online = cpus;
  probe.affinity = Cpus{};
  for (int cpu = 0; cpu < cpus; ++cpu) {
    probe.affinity->push_back(cpu);
    probe.files[Siblings(cpu)] = std::to_string(cpu) + "\n";
  }
  probe.files["/proc/self/cgroup"] = "0::/app\n";
  probe.files["/proc/self/mountinfo"] = kV2MountInfo;
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "max 100000\n";
  return probe;
}

bool AnyNoteContains(const CpuFacts& facts, const std::string& text) {
  for (const std::string& note : facts.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(CpuFacts, CgroupV2QuotaCapsUsable) {
  FakeSystemProbe probe = V2Host(64);
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "300000 100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.logical, 64);
  EXPECT_EQ(facts.affinity_cpus.size(), 64u);
  EXPECT_EQ(facts.physical_cores, 64);
  EXPECT_EQ(facts.cgroup_quota_cpus, 3.0);
  EXPECT_EQ(facts.cgroup_quota_file, "/sys/fs/cgroup/app/cpu.max");
  EXPECT_EQ(facts.usable, 3);
  EXPECT_TRUE(facts.notes.empty()) << facts.notes.front();
}

TEST(CpuFacts, UnlimitedQuotaLeavesCoresUsable) {
  CpuFacts facts = DetectCpuFacts(V2Host(8));
  EXPECT_EQ(facts.cgroup_quota_cpus, std::nullopt);
  EXPECT_EQ(facts.cgroup_quota_file, "");
  EXPECT_EQ(facts.usable, 8);
  EXPECT_TRUE(facts.notes.empty());
}

TEST(CpuFacts, SparseCpusetCountsMembers) {
  FakeSystemProbe probe = V2Host(8);
  probe.affinity = Cpus{0, 5, 7};
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.logical, 8);
  EXPECT_EQ(facts.affinity_cpus, (Cpus{0, 5, 7}));
  EXPECT_EQ(facts.physical_cores, 3);
  EXPECT_EQ(facts.usable, 3);
}

TEST(CpuFacts, SmtSiblingsCountOnce) {
  // 4 cores with 2 hyperthreads each, numbered like Intel: cpuN and cpuN+4.
  FakeSystemProbe probe = V2Host(8);
  for (int cpu = 0; cpu < 8; ++cpu) {
    probe.files[Siblings(cpu)] = FormatCpuList({cpu % 4, cpu % 4 + 4}) + "\n";
  }
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.logical, 8);
  EXPECT_EQ(facts.physical_cores, 4);
  EXPECT_EQ(facts.usable, 4);

  // Siblings outside the mask do not add cores: {0, 4} share one, {1} is another.
  probe.affinity = Cpus{0, 1, 4};
  EXPECT_EQ(DetectCpuFacts(probe).physical_cores, 2);
}

TEST(CpuFacts, MissingSysCountsEachCpuAsCore) {
  FakeSystemProbe probe;  // a container with neither /proc nor /sys
  probe.online = 6;
  probe.affinity = Cpus{0, 1, 2, 3, 4, 5};
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.physical_cores, 6);
  EXPECT_EQ(facts.usable, 6);
  EXPECT_EQ(facts.cgroup_quota_cpus, std::nullopt);
  EXPECT_FALSE(facts.notes.empty());
  EXPECT_TRUE(AnyNoteContains(facts, "thread_siblings_list"));
}

TEST(CpuFacts, MissingAffinityAssumesAllOnlineCpus) {
  FakeSystemProbe probe = V2Host(4);
  probe.affinity = std::nullopt;
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.affinity_cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(facts.usable, 4);
  EXPECT_TRUE(AnyNoteContains(facts, "affinity"));
}

TEST(CpuFacts, MalformedQuotaIsIgnoredWithNote) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "abc 100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, std::nullopt);
  EXPECT_EQ(facts.usable, 8);
  EXPECT_TRUE(AnyNoteContains(facts, "/sys/fs/cgroup/app/cpu.max"));
  EXPECT_TRUE(AnyNoteContains(facts, "abc 100000"));
}

TEST(CpuFacts, EveryMalformedQuotaShapeIsIgnored) {
  for (const char* content :
       {"100000 0", "-5 100000", "0 100000", "100000", "", "max", "1 2 3", "max abc"}) {
    FakeSystemProbe probe = V2Host(8);
    probe.files["/sys/fs/cgroup/app/cpu.max"] = content;
    CpuFacts facts = DetectCpuFacts(probe);
    EXPECT_EQ(facts.cgroup_quota_cpus, std::nullopt) << content;
    EXPECT_EQ(facts.usable, 8) << content;
    EXPECT_TRUE(AnyNoteContains(facts, "cpu.max")) << content;
  }
}

TEST(CpuFacts, MalformedSiblingsListCountsEachCpuAsCoreWithOneNote) {
  FakeSystemProbe probe = V2Host(4);
  for (int cpu = 0; cpu < 4; ++cpu) probe.files[Siblings(cpu)] = "0-";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.physical_cores, 4);
  EXPECT_EQ(facts.usable, 4);
  ASSERT_EQ(facts.notes.size(), 1u);
  EXPECT_NE(facts.notes[0].find(Siblings(0)), std::string::npos) << facts.notes[0];
}

TEST(CpuFacts, QuotaRoundsUp) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "150000 100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 1.5);
  EXPECT_EQ(facts.usable, 2);
}

TEST(CpuFacts, TinyQuotaStillAllowsOneThread) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "1000 100000\n";
  EXPECT_EQ(DetectCpuFacts(probe).usable, 1);
}

TEST(CpuFacts, QuotaAboveCoreCountDoesNotRaiseUsable) {
  FakeSystemProbe probe = V2Host(2);
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "9223372036854775807 1\n";
  EXPECT_EQ(DetectCpuFacts(probe).usable, 2);
}

TEST(CpuFacts, TightestAncestorQuotaWins) {
  FakeSystemProbe probe = V2Host(16);
  probe.files["/proc/self/cgroup"] = "0::/parent/child\n";
  probe.files["/sys/fs/cgroup/parent/child/cpu.max"] = "400000 100000\n";
  probe.files["/sys/fs/cgroup/parent/cpu.max"] = "200000 100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 2.0);
  EXPECT_EQ(facts.cgroup_quota_file, "/sys/fs/cgroup/parent/cpu.max");
  EXPECT_EQ(facts.usable, 2);
}

TEST(CpuFacts, V1QuotaRead) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/proc/self/cgroup"] = "3:cpuset:/\n2:cpu,cpuacct:/batch\n1:name=systemd:/\n";
  probe.files["/proc/self/mountinfo"] = V1MountInfo("/");
  probe.files["/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us"] = "50000\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_period_us"] = "100000\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"] = "-1\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us"] = "100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 0.5);
  EXPECT_EQ(facts.cgroup_quota_file, "/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us");
  EXPECT_EQ(facts.usable, 1);
  EXPECT_TRUE(facts.notes.empty()) << facts.notes.front();
}

TEST(CpuFacts, V1MalformedQuotaIsIgnoredWithNote) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/proc/self/cgroup"] = "2:cpu,cpuacct:/\n";
  probe.files["/proc/self/mountinfo"] = V1MountInfo("/");
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"] = "-2\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us"] = "100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, std::nullopt);
  EXPECT_TRUE(AnyNoteContains(facts, "cpu.cfs_quota_us: \"-2\""));
}

TEST(CpuFacts, ContainerMountRootIsStripped) {
  // Docker without a cgroup namespace: the host's /docker/abc subtree is
  // mounted at the usual place and /proc/self/cgroup shows the host path.
  FakeSystemProbe probe = V2Host(8);
  probe.files["/proc/self/cgroup"] = "2:cpu,cpuacct:/docker/abc\n";
  probe.files["/proc/self/mountinfo"] = V1MountInfo("/docker/abc");
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"] = "200000\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us"] = "100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 2.0);
  EXPECT_EQ(facts.cgroup_quota_file, "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us");
}

TEST(CpuFacts, TightestOfV1AndV2Wins) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/proc/self/cgroup"] = "2:cpu,cpuacct:/\n0::/app\n";
  probe.files["/proc/self/mountinfo"] = std::string(kV2MountInfo) + V1MountInfo("/");
  probe.files["/sys/fs/cgroup/app/cpu.max"] = "500000 100000\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"] = "300000\n";
  probe.files["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us"] = "100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 3.0);
  EXPECT_EQ(facts.usable, 3);
}

TEST(CpuFacts, MissingProcFallsBackToDefaultMounts) {
  FakeSystemProbe probe = V2Host(8);
  probe.files.erase("/proc/self/cgroup");
  probe.files.erase("/proc/self/mountinfo");
  probe.files["/sys/fs/cgroup/cpu.max"] = "200000 100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 2.0);
  EXPECT_EQ(facts.cgroup_quota_file, "/sys/fs/cgroup/cpu.max");
  EXPECT_TRUE(AnyNoteContains(facts, "/proc/self/cgroup"));

  probe.files.erase("/sys/fs/cgroup/cpu.max");
  probe.files["/sys/fs/cgroup/cpu/cpu.cfs_quota_us"] = "150000\n";
  probe.files["/sys/fs/cgroup/cpu/cpu.cfs_period_us"] = "100000\n";
  facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 1.5);
  EXPECT_EQ(facts.usable, 2);
}

TEST(CpuFacts, MountPathEscapesAreDecoded) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/proc/self/mountinfo"] =
      "30 22 0:26 / /mnt/my\\040cgroup rw shared:4 - cgroup2 cgroup2 rw\n";
  probe.files["/mnt/my cgroup/app/cpu.max"] = "100000 100000\n";
  EXPECT_EQ(DetectCpuFacts(probe).cgroup_quota_cpus, 1.0);
}

TEST(CpuFacts, CgroupMountedAtRootBuildsPlainPaths) {
  FakeSystemProbe probe = V2Host(8);
  probe.files["/proc/self/mountinfo"] = "30 22 0:26 / / rw shared:4 - cgroup2 cgroup2 rw\n";
  probe.files["/app/cpu.max"] = "200000 100000\n";
  CpuFacts facts = DetectCpuFacts(probe);
  EXPECT_EQ(facts.cgroup_quota_cpus, 2.0);
  EXPECT_EQ(facts.cgroup_quota_file, "/app/cpu.max");
}

TEST(CpuFacts, RealMachineIsConsistent) {
  CpuFacts facts = DetectCpuFacts(RealSystemProbe());
  EXPECT_GE(facts.logical, 1);
  ASSERT_FALSE(facts.affinity_cpus.empty());
  EXPECT_TRUE(std::is_sorted(facts.affinity_cpus.begin(), facts.affinity_cpus.end()));
  EXPECT_GE(facts.physical_cores, 1);
  EXPECT_LE(facts.physical_cores, static_cast<int>(facts.affinity_cpus.size()));
  EXPECT_GE(facts.usable, 1);
  EXPECT_LE(facts.usable, facts.physical_cores);
}

}  // namespace
}  // namespace loom::platform
