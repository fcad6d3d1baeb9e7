#include "kernels/isa.h"

#include <gtest/gtest.h>

#include "loom/errors.h"

namespace loom::kernels {
namespace {

TEST(Isa, NamesRoundTrip) {
  for (Isa isa : {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f}) {
    EXPECT_EQ(IsaFromName(IsaName(isa)), isa);
  }
  EXPECT_EQ(IsaFromName("sse9"), std::nullopt);
}

TEST(Isa, SelectionRespectsTheCapAndTheCpu) {
  EXPECT_EQ(SelectIsa(Isa::kPortable), Isa::kPortable);
  EXPECT_TRUE(IsaSupported(Isa::kPortable));
  const Isa best = SelectIsa();
  EXPECT_TRUE(IsaSupported(best));
  EXPECT_LE(static_cast<int>(SelectIsa(Isa::kAvx2Fma)), static_cast<int>(Isa::kAvx2Fma));
  if (IsaSupported(Isa::kAvx512f)) {
    EXPECT_EQ(best, Isa::kAvx512f);
  }
}

TEST(Isa, MaxIsaSettingCapsOrIsRejected) {
  EXPECT_EQ(SelectIsaFromSetting(std::nullopt), SelectIsa());
  EXPECT_EQ(SelectIsaFromSetting("portable"), Isa::kPortable);
  EXPECT_EQ(SelectIsaFromSetting("avx2_fma"), SelectIsa(Isa::kAvx2Fma));
  try {
    SelectIsaFromSetting("avx3");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(
        e.what(),
        "LOOM_MAX_ISA='avx3' is not an ISA level (expected portable, avx2_fma or avx512f)");
  }
}

}  // namespace
}  // namespace loom::kernels
