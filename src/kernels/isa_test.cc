#include "kernels/isa.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace loom::kernels
