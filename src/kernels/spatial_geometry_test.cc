#include "kernels/spatial_geometry.h"

#include <gtest/gtest.h>

#include "loom/errors.h"

namespace loom::kernels {
namespace {

using Ints = std::vector<int64_t>;

SpatialGeometry Resolve(const Attributes& attrs, Ints input, Ints kernel,
                        SpatialGeometryOptions options = {}) {
  return ResolveSpatialGeometry("Conv", attrs, input, kernel, options);
}

TEST(SpatialGeometry, ExplicitPadsUseFloorFormula) {
  Attributes attrs;
  attrs.set("strides", Ints{2, 1}).set("pads", Ints{1, 0, 1, 0});
  SpatialGeometry g = Resolve(attrs, {7, 5}, {3, 3});
  EXPECT_EQ(g.output, (Ints{4, 3}));  // (7+2-3)/2+1, (5-3)/1+1
  EXPECT_EQ(g.pad_begin, (Ints{1, 0}));
  EXPECT_EQ(g.pad_end, (Ints{1, 0}));
  EXPECT_TRUE(g.has_padding());
}

TEST(SpatialGeometry, SameUpperAndLowerPutTheOddPadOnOppositeSides) {
  Attributes upper;
  upper.set("auto_pad", std::string("SAME_UPPER")).set("strides", Ints{2});
  SpatialGeometry g = Resolve(upper, {6}, {3});
  EXPECT_EQ(g.output, (Ints{3}));  // ceil(6/2); total pad (3-1)*2+3-6 = 1
  EXPECT_EQ(g.pad_begin, (Ints{0}));
  EXPECT_EQ(g.pad_end, (Ints{1}));
  Attributes lower;
  lower.set("auto_pad", std::string("SAME_LOWER")).set("strides", Ints{2});
  g = Resolve(lower, {6}, {3});
  EXPECT_EQ(g.pad_begin, (Ints{1}));
  EXPECT_EQ(g.pad_end, (Ints{0}));
}

TEST(SpatialGeometry, ValidAndDilation) {
  Attributes valid;
  valid.set("auto_pad", std::string("VALID")).set("strides", Ints{2});
  EXPECT_EQ(Resolve(valid, {7}, {3}).output, (Ints{3}));
  Attributes dilated;
  dilated.set("dilations", Ints{2});
  SpatialGeometry g = Resolve(dilated, {7}, {3});  // extent 5
  EXPECT_EQ(g.output, (Ints{3}));
  EXPECT_FALSE(g.has_padding());
}

TEST(SpatialGeometry, CeilModeDropsAWindowStartingInThePadding) {
  SpatialGeometryOptions pooling{.allow_ceil_mode = true};
  Attributes attrs;
  attrs.set("kernel_shape", Ints{3}).set("strides", Ints{2}).set("ceil_mode", int64_t{1});
  EXPECT_EQ(ResolveSpatialGeometry("MaxPool", attrs, Ints{6}, {}, pooling).output, (Ints{3}));
  Attributes padded;
  padded.set("kernel_shape", Ints{2}).set("strides", Ints{2}).set("ceil_mode", int64_t{1});
  padded.set("pads", Ints{1, 1});
  // ceil((5+2-2)/2)+1 = 4, but window 3 would start at 6-1 = 5 = past the input.
  EXPECT_EQ(ResolveSpatialGeometry("MaxPool", padded, Ints{5}, {}, pooling).output, (Ints{3}));
}

TEST(SpatialGeometry, BadAttributesAreClearErrors) {
  Attributes too_big;
  try {
    Resolve(too_big, {3}, {5});
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(e.what(),
                 "Conv: window extent 5 on spatial axis 0 exceeds the padded input size 3 "
                 "(input [3])");
  }
  Attributes zero_stride;
  zero_stride.set("strides", Ints{0});
  EXPECT_THROW(Resolve(zero_stride, {3}, {1}), InvalidArgumentError);
  Attributes short_pads;
  short_pads.set("pads", Ints{1});
  EXPECT_THROW(Resolve(short_pads, {3}, {1}), InvalidArgumentError);
  Attributes bad_mode;
  bad_mode.set("auto_pad", std::string("SAME"));
  EXPECT_THROW(Resolve(bad_mode, {3}, {1}), InvalidArgumentError);
  Attributes ceil;
  ceil.set("ceil_mode", int64_t{1});
  EXPECT_THROW(Resolve(ceil, {3}, {1}), InvalidArgumentError);  // Conv has no ceil_mode
  Attributes huge_pads;
  huge_pads.set("pads", Ints{int64_t{1} << 62, int64_t{1} << 62});
  EXPECT_THROW(Resolve(huge_pads, {3}, {1}), InvalidArgumentError);
  Attributes disagree;
  disagree.set("kernel_shape", Ints{2});
  EXPECT_THROW(Resolve(disagree, {3}, {3}), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::kernels
