#include <gtest/gtest.h>

#include "loom/errors.h"
#include "loom/tensor.h"

namespace loom {
namespace {

std::string MessageOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "(no InvalidArgumentError)";
}

TEST(Shape, CountsElements) {
  EXPECT_EQ(Shape({2, 3, 4}).num_elements(), 24);
  EXPECT_EQ(Shape().num_elements(), 1);  // scalar
  EXPECT_EQ(Shape().rank(), 0);
  EXPECT_EQ(Shape({5, 0, 7}).num_elements(), 0);
}

TEST(Shape, NegativeDimensionIsAnErrorNamingTheAxis) {
  std::string message = MessageOf([] { Shape({2, -1}); });
  EXPECT_NE(message.find("[2, -1]"), std::string::npos) << message;
  EXPECT_NE(message.find("dimension 1"), std::string::npos) << message;
}

TEST(Shape, ElementCountOverflowIsAnError) {
  const int64_t big = int64_t{1} << 40;
  std::string message = MessageOf([&] { Shape({big, big}); });
  EXPECT_NE(message.find("overflows"), std::string::npos) << message;
  // Even next to a zero: the other dimensions could not be used anyway.
  EXPECT_THROW(Shape({0, big, big}), InvalidArgumentError);
  EXPECT_EQ(Shape({big, 1 << 20}).num_elements(), int64_t{1} << 60);
}

TEST(Shape, DimAcceptsNegativeAxesAndRejectsOutOfRange) {
  Shape s({2, 3, 4});
  EXPECT_EQ(s.dim(0), 2);
  EXPECT_EQ(s.dim(-1), 4);
  EXPECT_EQ(s.dim(-3), 2);
  EXPECT_THROW(s.dim(3), InvalidArgumentError);
  EXPECT_THROW(s.dim(-4), InvalidArgumentError);
}

TEST(Shape, PrintsLikeAList) {
  EXPECT_EQ(Shape({1, 224, 224}).to_string(), "[1, 224, 224]");
  EXPECT_EQ(Shape().to_string(), "[]");
}

TEST(Broadcast, FollowsNumpyRules) {
  EXPECT_EQ(broadcast_shapes(Shape({2, 3}), Shape({3})), Shape({2, 3}));
  EXPECT_EQ(broadcast_shapes(Shape({4, 1, 5}), Shape({3, 1})), Shape({4, 3, 5}));
  EXPECT_EQ(broadcast_shapes(Shape(), Shape({2, 2})), Shape({2, 2}));
  EXPECT_EQ(broadcast_shapes(Shape({1}), Shape({0})), Shape({0}));
  EXPECT_EQ(broadcast_shapes(Shape({8, 1, 6, 1}), Shape({7, 1, 5})), Shape({8, 7, 6, 5}));
}

TEST(Broadcast, IncompatibleShapesNameBothAndTheAxis) {
  std::string message = MessageOf([] { broadcast_shapes(Shape({2, 3}), Shape({4, 3})); });
  EXPECT_NE(message.find("[2, 3]"), std::string::npos) << message;
  EXPECT_NE(message.find("[4, 3]"), std::string::npos) << message;
  EXPECT_NE(message.find("axis 0"), std::string::npos) << message;
  EXPECT_THROW(broadcast_shapes(Shape({3}), Shape({0})), InvalidArgumentError);
}

}  // namespace
}  // namespace loom
