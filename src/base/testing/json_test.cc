#include "base/testing/json.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace loom::testing {
namespace {

const char kDocument[] = R"({
  "model": "demo", "batch": 2, "ratio": 0.5, "ok": true, "none": null,
  "shape": [2, 10], "names": ["a", "b"],
  "threads": {"intra_op": 1, "inter_op": 0}
})";

TEST(TestJson, ReadsEveryKindOfValue) {
  const Json j = Json::parse(kDocument);
  EXPECT_TRUE(j.is_object());
  EXPECT_EQ(j.size(), 8u);
  EXPECT_EQ(j["model"].get<std::string>(), "demo");
  EXPECT_EQ(j["batch"].get<int>(), 2);
  EXPECT_EQ(j["batch"].get<size_t>(), 2u);
  EXPECT_EQ(j["batch"].get<double>(), 2.0);
  EXPECT_EQ(j["ratio"].get<double>(), 0.5);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["none"].is_null());
  EXPECT_EQ(j["shape"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 10}));
  EXPECT_EQ(j["names"].get<std::vector<std::string>>(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(j["threads"]["intra_op"].get<int>(), 1);
  EXPECT_EQ(j.keys(), (std::vector<std::string>{"batch", "model", "names", "none", "ok", "ratio",
                                                "shape", "threads"}));
}

TEST(TestJson, ComparesWithValuesOfEachKind) {
  const Json j = Json::parse(kDocument);
  EXPECT_EQ(j["model"], "demo");
  EXPECT_NE(j["model"], "other");
  EXPECT_EQ(j["batch"], 2);
  EXPECT_EQ(j["batch"], 2u);
  EXPECT_EQ(j["batch"], 2.0);
  EXPECT_NE(j["batch"], 3);
  EXPECT_NE(j["model"], 2);  // a string is no number
  EXPECT_EQ(j["ok"], true);
  EXPECT_NE(j["batch"], true);  // nor a number a boolean
  EXPECT_EQ(j["shape"], Json::array({2, 10}));
  EXPECT_NE(j["shape"], Json::array({10, 2}));
  EXPECT_EQ(j["names"], Json::array({"a", "b"}));
  EXPECT_EQ(Json::parse(R"({"x": [2, 10]})")["x"], j["shape"]);  // across documents
}

TEST(TestJson, MissingValuesAreNullAndAtThrows) {
  const Json j = Json::parse(kDocument);
  EXPECT_TRUE(j["absent"].is_null());
  EXPECT_TRUE(j["absent"]["deeper"][3].is_null());
  EXPECT_TRUE(j["shape"][2].is_null());
  EXPECT_TRUE(j["model"]["x"].is_null());
  EXPECT_FALSE(j.contains("absent"));
  EXPECT_TRUE(j.contains("none"));
  EXPECT_EQ(j["absent"].size(), 0u);
  EXPECT_THROW(j.at("absent"), std::out_of_range);
  EXPECT_THROW(j["shape"].at(2), std::out_of_range);
  EXPECT_EQ(j["shape"].at(1), 10);
  EXPECT_THROW(j["model"].get<int>(), std::runtime_error);
  EXPECT_THROW(j["absent"].get<std::string>(), std::runtime_error);
}

TEST(TestJson, IteratesAnArrayInOrder) {
  const Json j = Json::parse(R"([{"n": 1}, {"n": 2}, {"n": 3}])");
  std::vector<int> seen;
  for (const Json& element : j) seen.push_back(element["n"].get<int>());
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  int count = 0;
  for (const Json& element : Json::parse("[]")) count += element.is_null() ? 1 : 2;
  EXPECT_EQ(count, 0);
}

TEST(TestJson, ParseErrorsAndDump) {
  EXPECT_THROW(Json::parse("{\"a\": "), std::invalid_argument);
  EXPECT_THROW(Json::parse(""), std::invalid_argument);
  EXPECT_EQ(Json::parse(R"({"b": [1, 2], "a": "x"})").dump(), R"({"a":"x","b":[1,2]})");
  EXPECT_EQ(Json().dump(), "null");
}

}  // namespace
}  // namespace loom::testing
