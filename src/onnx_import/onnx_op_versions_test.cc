// The generated version table against facts from ONNX's operator changelog
// (docs/Changelog.md of onnx), and the lookup of a node's version.
#include "onnx_import/onnx_op_versions.h"

#include <gtest/gtest.h>

namespace loom::onnx_import {
namespace {

TEST(OnnxOpVersions, KnowsOpsetTwentyFour) { EXPECT_EQ(kNewestOnnxOpset, 24); }

TEST(OnnxOpVersions, TableIsSortedWithAscendingVersions) {
  const std::span<const OnnxOpVersions> ops = OnnxOps();
  ASSERT_GT(ops.size(), 150u);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(ops[i - 1].op, ops[i].op);
    }
    ASSERT_GE(ops[i].count, 1) << ops[i].op;
    ASSERT_LE(ops[i].count, kMaxOpVersions) << ops[i].op;
    for (int k = 1; k < ops[i].count; ++k) EXPECT_LT(ops[i].since[k - 1], ops[i].since[k]);
    EXPECT_LE(ops[i].since[ops[i].count - 1], kNewestOnnxOpset) << ops[i].op;
  }
}

TEST(OnnxOpVersions, VersionInEffectAtAnOpset) {
  // Add: 1, 6, 7, 13, 14 (changelog).
  EXPECT_EQ(OpVersionAtOpset("Add", 1), 1);
  EXPECT_EQ(OpVersionAtOpset("Add", 6), 6);
  EXPECT_EQ(OpVersionAtOpset("Add", 12), 7);
  EXPECT_EQ(OpVersionAtOpset("Add", 13), 13);
  EXPECT_EQ(OpVersionAtOpset("Add", 24), 14);
  // ReduceMean's axes became an input at 18; Split's num_outputs too.
  EXPECT_EQ(OpVersionAtOpset("ReduceMean", 17), 13);
  EXPECT_EQ(OpVersionAtOpset("ReduceMean", 18), 18);
  EXPECT_EQ(OpVersionAtOpset("Split", 18), 18);
  // Gelu appeared at 20; before it there is no such op.
  EXPECT_EQ(OpVersionAtOpset("Gelu", 19), std::nullopt);
  EXPECT_EQ(OpVersionAtOpset("Gelu", 20), 20);
  EXPECT_EQ(OpVersionAtOpset("NoSuchOp", 13), std::nullopt);
  EXPECT_EQ(FindOnnxOp("Silu"), nullptr);  // Loom's op, not ONNX's
  EXPECT_NE(FindOnnxOp("Swish"), nullptr);
}

}  // namespace
}  // namespace loom::onnx_import
