#include "base/testing/json.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace loom::testing {
namespace {

const nlohmann::json& Null() {
  static const nlohmann::json null;
  return null;
}

template <typename T>
T Get(const nlohmann::json& node, const char* type) {
  try {
    return node.get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("JSON value is not ") + type + ": " + node.dump() + " (" +
                             e.what() + ")");
  }
}

}  // namespace

Json::Json() : node_(nullptr) {}

Json::Json(std::shared_ptr<const nlohmann::json> document, const nlohmann::json* node)
    : document_(std::move(document)), node_(node) {}

Json Json::Root(std::shared_ptr<const nlohmann::json> document) {
  const nlohmann::json* root = document.get();
  return Json(std::move(document), root);
}

Json Json::parse(std::string_view text) {
  try {
    return Root(std::make_shared<const nlohmann::json>(nlohmann::json::parse(text)));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(std::string("not JSON: ") + e.what());
  }
}

Json Json::array(std::initializer_list<int64_t> values) {
  return Root(std::make_shared<const nlohmann::json>(nlohmann::json(std::vector(values))));
}

Json Json::array(std::initializer_list<std::string_view> values) {
  auto document = std::make_shared<nlohmann::json>(nlohmann::json::array());
  for (std::string_view value : values) document->push_back(std::string(value));
  return Root(std::move(document));
}

Json Json::operator[](std::string_view key) const {
  if (node_ == nullptr || !node_->is_object()) return Json(document_, nullptr);
  auto it = node_->find(key);
  return Json(document_, it == node_->end() ? nullptr : &*it);
}

Json Json::operator[](size_t index) const {
  if (node_ == nullptr || !node_->is_array() || index >= node_->size()) {
    return Json(document_, nullptr);
  }
  return Json(document_, &(*node_)[index]);
}

Json Json::at(std::string_view key) const {
  if (!contains(key)) {
    throw std::out_of_range("JSON has no key '" + std::string(key) + "': " + dump());
  }
  return (*this)[key];
}

Json Json::at(size_t index) const {
  if (!is_array() || index >= size()) {
    throw std::out_of_range("JSON has no element " + std::to_string(index) + ": " + dump());
  }
  return (*this)[index];
}

bool Json::contains(std::string_view key) const {
  return node_ != nullptr && node_->is_object() && node_->find(key) != node_->end();
}

size_t Json::size() const { return node_ == nullptr ? 0 : node_->size(); }
bool Json::is_null() const { return node_ == nullptr || node_->is_null(); }
bool Json::is_array() const { return node_ != nullptr && node_->is_array(); }
bool Json::is_object() const { return node_ != nullptr && node_->is_object(); }
bool Json::is_number() const { return node_ != nullptr && node_->is_number(); }
bool Json::is_string() const { return node_ != nullptr && node_->is_string(); }
bool Json::is_boolean() const { return node_ != nullptr && node_->is_boolean(); }

const std::vector<Json>& Json::Children() const {
  if (children_ == nullptr) {
    auto children = std::make_shared<std::vector<Json>>();
    if (node_ != nullptr && (node_->is_array() || node_->is_object())) {
      for (const nlohmann::json& child : *node_) children->push_back(Json(document_, &child));
    }
    children_ = std::move(children);
  }
  return *children_;
}

std::vector<Json>::const_iterator Json::begin() const { return Children().begin(); }
std::vector<Json>::const_iterator Json::end() const { return Children().end(); }

std::vector<std::string> Json::keys() const {
  std::vector<std::string> keys;
  if (is_object()) {
    for (const auto& [key, value] : node_->items()) keys.push_back(key);
  }
  return keys;
}

std::string Json::dump(int indent) const { return (node_ ? *node_ : Null()).dump(indent); }

bool operator==(const Json& a, const Json& b) {
  return (a.node_ ? *a.node_ : Null()) == (b.node_ ? *b.node_ : Null());
}
bool operator==(const Json& a, std::string_view b) {
  return a.is_string() && a.node_->get_ref<const std::string&>() == b;
}
bool Json::EqualsBoolean(bool b) const { return is_boolean() && node_->get<bool>() == b; }
bool Json::EqualsNumber(double b) const { return is_number() && *node_ == b; }
bool Json::EqualsInteger(int64_t b) const { return is_number() && *node_ == b; }
bool Json::EqualsUnsigned(uint64_t b) const { return is_number() && *node_ == b; }

#define LOOM_JSON_GET(T)                        \
  template <>                                   \
  T Json::get<T>() const {                      \
    return Get<T>(node_ ? *node_ : Null(), #T); \
  }
LOOM_JSON_GET(int)
LOOM_JSON_GET(int64_t)
LOOM_JSON_GET(size_t)
LOOM_JSON_GET(double)
LOOM_JSON_GET(bool)
LOOM_JSON_GET(std::string)
LOOM_JSON_GET(std::vector<int64_t>)
LOOM_JSON_GET(std::vector<double>)
LOOM_JSON_GET(std::vector<std::string>)
#undef LOOM_JSON_GET

}  // namespace loom::testing
