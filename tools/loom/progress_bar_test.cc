#include "progress_bar.h"

#include <gtest/gtest.h>

namespace loom::cli {
namespace {

TEST(ProgressBar, RendersFillCountAndTimeLeft) {
  // Half done after 2 s: 12 of 24 marks, 2 s left.
  EXPECT_EQ(ProgressBar::Render("run", 10, 20, 2.0),
            "run  [############............]  10/20  2.0 s left");
  EXPECT_EQ(ProgressBar::Render("tune", 0, 4, 0.0), "tune  [........................]  0/4");
  EXPECT_EQ(ProgressBar::Render("tune", 4, 4, 9.0), "tune  [########################]  4/4");
}

TEST(ProgressBar, ClampsOutOfRangeCounts) {
  EXPECT_EQ(ProgressBar::Render("x", 9, 4, 1.0), ProgressBar::Render("x", 4, 4, 1.0));
  EXPECT_EQ(ProgressBar::Render("x", -1, 0, 1.0), "x  [........................]  0/1");
}

TEST(ProgressBar, DisabledBarIsANoOp) {
  ProgressBar bar("quiet", 10, false);
  testing::internal::CaptureStderr();
  bar.Update(5);
  bar.Update(10, 10);
  bar.Finish();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace loom::cli
