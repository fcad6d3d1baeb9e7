// A JSON document for tests that read what Loom writes (`loom run --json`,
// `loom threads --json`, run stats, conformance reports): parse, walk,
// compare. Test files include this instead of <nlohmann/json.hpp>: its
// templates cost every file that includes it ~17 s of compile time (the ten
// test files that parsed JSON were among the slowest of the build); here the
// parser is compiled once, in json.cc.
//
//   using json = loom::testing::Json;
//   const json j = json::parse(output);
//   EXPECT_EQ(j["threads"]["intra_op"], 2);
//   EXPECT_EQ(j["outputs"][0]["shape"], json::array({1, 10}));
//   for (const json& bucket : j["latency_histogram"]) ...
//
// operator[] never throws: a key an object lacks, an index past an array's
// end, or any key of a value that is not an object gives null (is_null()),
// so a failed expectation prints what was compared. at() throws
// std::out_of_range instead; get<T>() throws std::runtime_error when the
// value is not a T (numbers convert among int, int64_t, size_t, double).
// Values are immutable views sharing their document, cheap to copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom::testing {

class Json {
 public:
  Json();  // null

  // Throws std::invalid_argument with the parser's message (and position).
  static Json parse(std::string_view text);
  static Json array(std::initializer_list<int64_t> values);
  static Json array(std::initializer_list<std::string_view> values);

  Json operator[](std::string_view key) const;
  Json operator[](size_t index) const;
  Json at(std::string_view key) const;
  Json at(size_t index) const;
  bool contains(std::string_view key) const;

  // Elements of an array, members of an object, 0 for null, 1 otherwise.
  size_t size() const;
  bool empty() const { return size() == 0; }
  bool is_null() const;
  bool is_array() const;
  bool is_object() const;
  bool is_number() const;
  bool is_string() const;
  bool is_boolean() const;

  // int, int64_t, size_t, double, bool, std::string, and vectors of
  // int64_t, double and std::string.
  template <typename T>
  T get() const;

  // An array's elements in order (an object's values in key order).
  std::vector<Json>::const_iterator begin() const;
  std::vector<Json>::const_iterator end() const;
  std::vector<std::string> keys() const;  // an object's, sorted

  std::string dump(int indent = -1) const;

  friend bool operator==(const Json& a, const Json& b);
  friend bool operator==(const Json& a, std::string_view b);  // a string equal to b
  friend bool operator==(const Json& a, const char* b) { return a == std::string_view(b); }
  // Only a bool itself: a pointer or number must not convert to one.
  template <typename B>
  requires std::is_same_v<B, bool>
  friend bool operator==(const Json& a, B b) { return a.EqualsBoolean(b); }
  template <typename T>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) friend bool operator==(
      const Json& a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return a.EqualsNumber(static_cast<double>(b));
    } else if constexpr (std::is_signed_v<T>) {
      return a.EqualsInteger(static_cast<int64_t>(b));
    } else {
      return a.EqualsUnsigned(static_cast<uint64_t>(b));
    }
  }
  friend void PrintTo(const Json& value, std::ostream* os) { *os << value.dump(); }

 private:
  Json(std::shared_ptr<const nlohmann::json> document, const nlohmann::json* node);
  static Json Root(std::shared_ptr<const nlohmann::json> document);  // the whole document
  const std::vector<Json>& Children() const;
  bool EqualsBoolean(bool b) const;
  bool EqualsNumber(double b) const;
  bool EqualsInteger(int64_t b) const;
  bool EqualsUnsigned(uint64_t b) const;

  std::shared_ptr<const nlohmann::json> document_;
  const nlohmann::json* node_;  // into document_; null: a missing value
  mutable std::shared_ptr<const std::vector<Json>> children_;  // filled on first iteration
};

template <>
int Json::get<int>() const;
template <>
int64_t Json::get<int64_t>() const;
template <>
size_t Json::get<size_t>() const;
template <>
double Json::get<double>() const;
template <>
bool Json::get<bool>() const;
template <>
std::string Json::get<std::string>() const;
template <>
std::vector<int64_t> Json::get<std::vector<int64_t>>() const;
template <>
std::vector<double> Json::get<std::vector<double>>() const;
template <>
std::vector<std::string> Json::get<std::vector<std::string>>() const;

}  // namespace loom::testing
