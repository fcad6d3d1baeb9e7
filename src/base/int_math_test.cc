#include "base/int_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace loom::base {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(IntMath, CeilDivRoundsUp) {
  EXPECT_EQ(CeilDiv(0, 8), 0);
  EXPECT_EQ(CeilDiv(1, 8), 1);
  EXPECT_EQ(CeilDiv(8, 8), 1);
  EXPECT_EQ(CeilDiv(9, 8), 2);
}

TEST(IntMath, ProductKeepsTheElementType) {
  EXPECT_EQ(Product(std::vector<int64_t>{}), 1);
  EXPECT_EQ(Product(std::vector<int64_t>{2, 3, 7}), 42);
  // A size estimate past int64 stays a finite double.
  const std::vector<double> huge = {1e10, 1e10, 1e10};
  EXPECT_DOUBLE_EQ(Product(huge), 1e30);
}

TEST(IntMath, CheckedProductReportsOverflowAndLetsAZeroWin) {
  EXPECT_EQ(CheckedProduct(std::vector<int64_t>{}), 1);
  EXPECT_EQ(CheckedProduct(std::vector<int64_t>{3, 5}), 15);
  EXPECT_EQ(CheckedProduct(std::vector<int64_t>{kMax, 1}), kMax);
  EXPECT_EQ(CheckedProduct(std::vector<int64_t>{kMax, 2}), std::nullopt);
  EXPECT_EQ(CheckedProduct(std::vector<int64_t>{int64_t{1} << 32, int64_t{1} << 31}), std::nullopt);
  // An empty dim makes the plane empty however large the others are.
  EXPECT_EQ(CheckedProduct(std::vector<int64_t>{kMax, kMax, 0}), 0);
}

}  // namespace
}  // namespace loom::base
