// The process-wide memory cap (loom/memory.h): counted by every tensor that
// owns its bytes, refused before allocating, LOOM_MAX_MEMORY read once.
#include "tensor/memory_cap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "loom/errors.h"
#include "loom/memory.h"
#include "loom/tensor.h"
#include "platform/testing/fresh_process.h"

namespace loom {
namespace {

using platform::testing::ExpectInFreshProcess;

constexpr int64_t kMiB = int64_t{1} << 20;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(MemoryCap, OwnedTensorsAreCountedWhileTheyLive) {
  const int64_t before = tensor_bytes_in_use();
  {
    Tensor a(DType::kFloat32, {1000});  // 4000 bytes, rounded up to 64
    EXPECT_EQ(tensor_bytes_in_use() - before, 4032);
    Tensor b = Tensor::uninitialized(DType::kInt64, {kMiB / 8});
    EXPECT_EQ(tensor_bytes_in_use() - before, 4032 + kMiB);
    Tensor shared = a;  // the same storage: not counted twice
    EXPECT_EQ(tensor_bytes_in_use() - before, 4032 + kMiB);
  }
  EXPECT_EQ(tensor_bytes_in_use(), before);
}

TEST(MemoryCap, BorrowedMemoryIsNotCounted) {
  const int64_t before = tensor_bytes_in_use();
  auto owner = std::make_shared<std::vector<float>>(kMiB);
  Tensor view = Tensor::from_external(DType::kFloat32, {kMiB}, owner->data(), owner);
  EXPECT_EQ(tensor_bytes_in_use(), before);
}

TEST(MemoryCap, AnAllocationPastTheCapFailsBeforeAllocating) {
  const int64_t before = tensor_bytes_in_use();
  detail::ScopedMemoryCapForTesting cap(before + 3 * kMiB);
  EXPECT_EQ(memory_cap().bytes, before + 3 * kMiB);
  EXPECT_EQ(memory_cap().source, "test cap");
  Tensor two(DType::kUInt8, {2 * kMiB});
  const std::string error = ErrorOf([] { Tensor(DType::kUInt8, {2 * kMiB}); });
  EXPECT_TRUE(Contains(error,
                       "cannot allocate a tensor of 2.0 MiB: the process's tensors would "
                       "hold "))
      << error;
  EXPECT_TRUE(Contains(error, "above the memory cap of ")) << error;
  EXPECT_TRUE(Contains(error, "(test cap; set LOOM_MAX_MEMORY to change it)")) << error;
  EXPECT_THROW(Tensor::uninitialized(DType::kFloat32, {kMiB}), RuntimeError);
  // Nothing was counted for the refused ones; what is left fits.
  EXPECT_EQ(tensor_bytes_in_use(), before + 2 * kMiB);
  Tensor one(DType::kUInt8, {kMiB});
  EXPECT_EQ(tensor_bytes_in_use(), before + 3 * kMiB);
  // Freed memory can be allocated again.
  two = Tensor();
  EXPECT_NO_THROW(Tensor(DType::kUInt8, {2 * kMiB}));
}

TEST(MemoryCap, AutomaticCapIsTheMachinesMemory) {
  ExpectInFreshProcess([] {
    unsetenv("LOOM_MAX_MEMORY");
    const MemoryCap cap = memory_cap();
    EXPECT_GT(cap.bytes, 64 * kMiB);
    EXPECT_TRUE(Contains(cap.source, "physical memory") || Contains(cap.source, "cgroup limit"))
        << cap.source;
  });
}

TEST(MemoryCap, LoomMaxMemorySetsIt) {
  ExpectInFreshProcess([] {
    setenv("LOOM_MAX_MEMORY", "2M", 1);
    EXPECT_EQ(memory_cap().bytes, 2 * kMiB);
    EXPECT_EQ(memory_cap().source, "LOOM_MAX_MEMORY=2M");
    Tensor fits(DType::kUInt8, {kMiB});
    const std::string error = ErrorOf([] { Tensor(DType::kUInt8, {2 * kMiB}); });
    EXPECT_TRUE(Contains(error,
                         "cannot allocate a tensor of 2.0 MiB: the process's tensors would "
                         "hold 3.0 MiB, above the memory cap of 2.0 MiB (LOOM_MAX_MEMORY=2M; "
                         "set LOOM_MAX_MEMORY to change it)"))
        << error;
    // Read once: a later change does nothing.
    setenv("LOOM_MAX_MEMORY", "1G", 1);
    EXPECT_EQ(memory_cap().bytes, 2 * kMiB);
  });
}

TEST(MemoryCap, GarbageInLoomMaxMemoryIsAClearErrorOnEveryAllocation) {
  ExpectInFreshProcess([] {
    for (const char* value : {"lots", "-5", "1.5G", "8X", ""}) {
      setenv("LOOM_MAX_MEMORY", value, 1);
      const std::string error = ErrorOf([] { Tensor(DType::kFloat32, {4}); });
      EXPECT_TRUE(
          Contains(error, "LOOM_MAX_MEMORY='" + std::string(value) + "' is not a memory size"))
          << error;
    }
    // Fixed, it takes effect (the bad value was not kept).
    setenv("LOOM_MAX_MEMORY", "0", 1);
    EXPECT_NO_THROW(Tensor(DType::kFloat32, {4}));
    EXPECT_GT(memory_cap().bytes, 64 * kMiB);
  });
}

}  // namespace
}  // namespace loom
