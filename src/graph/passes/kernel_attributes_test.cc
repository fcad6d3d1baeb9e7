#include "graph/passes/kernel_attributes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loom/errors.h"

namespace loom::graph {
namespace {

TEST(KernelAttributes, EveryKindKeepsItsValue) {
  const Tensor value = Tensor::from_vector<float>(Shape({2}), {1.5f, -2.0f});
  const Attributes attributes{{"axis", int64_t{-1}},
                              {"alpha", 0.25f},
                              {"mode", std::string("tanh")},
                              {"pads", std::vector<int64_t>{1, 2, 3, 4}},
                              {"scales", std::vector<float>{0.5f, 2.0f}},
                              {"names", std::vector<std::string>{"a", "b"}},
                              {"value", value}};
  const kernels::Attributes converted = ToKernelAttributes(attributes);
  EXPECT_EQ(converted.all().size(), 7u);
  EXPECT_EQ(converted.get_int("axis"), -1);
  EXPECT_EQ(converted.get_float("alpha"), 0.25f);
  EXPECT_EQ(converted.get_string("mode"), "tanh");
  EXPECT_EQ(converted.get_ints("pads"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(converted.get_floats("scales"), (std::vector<float>{0.5f, 2.0f}));
  EXPECT_EQ(converted.get_strings("names"), (std::vector<std::string>{"a", "b"}));
  // Tensors are handles: the converted attribute shares the storage.
  EXPECT_TRUE(converted.get_tensor("value").shares_storage_with(value));
}

TEST(KernelAttributes, KindsAreNotConverted) {
  // An int stays an int: the kernel, not the conversion, rejects a wrong kind.
  const kernels::Attributes converted = ToKernelAttributes({{"alpha", int64_t{1}}});
  EXPECT_THROW(converted.get_float("alpha"), InvalidArgumentError);
}

TEST(KernelAttributes, RoundTripsThroughKernelAttributes) {
  kernels::Attributes written;
  written.set("activation", std::string("LeakyRelu"))
      .set("activation_params", std::vector<float>{0.1f});
  const Attributes back = FromKernelAttributes(written);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(std::get<std::string>(back.at("activation")), "LeakyRelu");
  EXPECT_EQ(std::get<std::vector<float>>(back.at("activation_params")), std::vector<float>{0.1f});
}

}  // namespace
}  // namespace loom::graph
