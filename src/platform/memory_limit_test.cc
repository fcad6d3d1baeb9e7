#include "platform/memory_limit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/testing/fake_system_probe.h"

namespace loom::platform {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

constexpr char kV2MountInfo[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate\n";

// 16 GiB of RAM, in the v2 cgroup /app/job with no memory.max of its own.
FakeSystemProbe V2Host() {
  FakeSystemProbe probe;
  probe.files["/proc/meminfo"] =
      "MemTotal:       16777216 kB\nMemFree:         1234567 kB\nMemAvailable:   9999999 kB\n";
  probe.files["/proc/self/cgroup"] = "0::/app/job\n";
  probe.files["/proc/self/mountinfo"] = kV2MountInfo;
  probe.files["/sys/fs/cgroup/app/job/memory.max"] = "max\n";
  return probe;
}

bool AnyContains(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& note : notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ParseMemorySize, BytesAndBinarySuffixes) {
  EXPECT_EQ(ParseMemorySize("1073741824"), kGiB);
  EXPECT_EQ(ParseMemorySize("1"), 1);
  EXPECT_EQ(ParseMemorySize("100B"), 100);
  EXPECT_EQ(ParseMemorySize("4K"), 4096);
  EXPECT_EQ(ParseMemorySize("512M"), 512 * (int64_t{1} << 20));
  EXPECT_EQ(ParseMemorySize("8G"), 8 * kGiB);
  EXPECT_EQ(ParseMemorySize("8g"), 8 * kGiB);
  EXPECT_EQ(ParseMemorySize("8GB"), 8 * kGiB);
  EXPECT_EQ(ParseMemorySize("8GiB"), 8 * kGiB);
  EXPECT_EQ(ParseMemorySize("2T"), 2 * 1024 * kGiB);
}

TEST(ParseMemorySize, RefusesAnythingElse) {
  for (const char* text : {"",
                           " ",
                           "0",
                           "0G",
                           "-1",
                           "-1G",
                           "1.5G",
                           "G",
                           "8 G",
                           " 8G",
                           "8G ",
                           "8X",
                           "8GiBs",
                           "8iB",
                           "8KG",
                           "0x10",
                           "1e9",
                           "abc",
                           "8P",
                           "99999999999999999999",
                           "9223372036854775808",
                           "8388608T"}) {
    EXPECT_EQ(ParseMemorySize(text), std::nullopt) << "'" << text << "'";
  }
  // The largest that fits.
  EXPECT_EQ(ParseMemorySize("8388607T"), int64_t{8388607} << 40);
}

TEST(DetectMemoryLimit, PhysicalMemoryWithoutACgroupLimit) {
  FakeSystemProbe probe = V2Host();
  std::vector<std::string> notes;
  auto limit = DetectMemoryLimit(probe, notes);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, 16 * kGiB);
  EXPECT_EQ(limit->source, "physical memory (/proc/meminfo)");
  EXPECT_TRUE(notes.empty());
}

TEST(DetectMemoryLimit, TheTightestCgroupLevelBinds) {
  FakeSystemProbe probe = V2Host();
  probe.files["/sys/fs/cgroup/app/memory.max"] = "4294967296\n";  // the parent: 4 GiB
  probe.files["/sys/fs/cgroup/app/job/memory.max"] = "8589934592\n";
  std::vector<std::string> notes;
  auto limit = DetectMemoryLimit(probe, notes);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, 4 * kGiB);
  EXPECT_EQ(limit->source, "cgroup limit /sys/fs/cgroup/app/memory.max");
}

TEST(DetectMemoryLimit, ACgroupLimitAboveTheMachineDoesNotBind) {
  FakeSystemProbe probe = V2Host();
  probe.files["/sys/fs/cgroup/app/job/memory.max"] = std::to_string(64 * kGiB) + "\n";
  std::vector<std::string> notes;
  EXPECT_EQ(DetectMemoryLimit(probe, notes)->bytes, 16 * kGiB);
}

TEST(DetectMemoryLimit, CgroupV1LimitAndItsUnlimitedValue) {
  FakeSystemProbe probe;
  probe.files["/proc/meminfo"] = "MemTotal:       16777216 kB\n";
  probe.files["/proc/self/cgroup"] = "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n";
  probe.files["/proc/self/mountinfo"] =
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "33 22 0:29 / /sys/fs/cgroup/memory rw shared:7 - cgroup cgroup rw,memory\n";
  probe.files["/sys/fs/cgroup/memory/memory.limit_in_bytes"] = "9223372036854771712\n";
  probe.files["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "2147483648\n";
  std::vector<std::string> notes;
  auto limit = DetectMemoryLimit(probe, notes);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, 2 * kGiB);
  EXPECT_EQ(limit->source, "cgroup limit /sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes");
  // "No limit" in v1 is a huge number.
  probe.files["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "9223372036854771712\n";
  EXPECT_EQ(DetectMemoryLimit(probe, notes)->bytes, 16 * kGiB);
}

TEST(DetectMemoryLimit, MalformedFilesAreNotedAndSkipped) {
  FakeSystemProbe probe = V2Host();
  probe.files["/sys/fs/cgroup/app/job/memory.max"] = "lots\n";
  std::vector<std::string> notes;
  EXPECT_EQ(DetectMemoryLimit(probe, notes)->bytes, 16 * kGiB);
  EXPECT_TRUE(AnyContains(notes, "ignoring malformed /sys/fs/cgroup/app/job/memory.max"));

  probe.files["/proc/meminfo"] = "MemTotal: many\n";
  notes.clear();
  EXPECT_EQ(DetectMemoryLimit(probe, notes), std::nullopt);
  EXPECT_TRUE(AnyContains(notes, "MemTotal"));

  probe.files.erase("/proc/meminfo");
  probe.files["/sys/fs/cgroup/app/job/memory.max"] = "1073741824\n";
  notes.clear();
  auto limit = DetectMemoryLimit(probe, notes);
  ASSERT_TRUE(limit.has_value());  // the cgroup alone still binds
  EXPECT_EQ(limit->bytes, kGiB);
  EXPECT_TRUE(AnyContains(notes, "cannot read /proc/meminfo"));
}

TEST(DetectMemoryLimit, ThisMachineHasOne) {
  std::vector<std::string> notes;
  auto limit = DetectMemoryLimit(RealSystemProbe(), notes);
  ASSERT_TRUE(limit.has_value());
  EXPECT_GT(limit->bytes, 64 * (int64_t{1} << 20));
}

}  // namespace
}  // namespace loom::platform
