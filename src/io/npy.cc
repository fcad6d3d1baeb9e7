// The .npy format (numpy.lib.format): "\x93NUMPY", a major and minor
// version byte, the header length (uint16 in 1.0, uint32 in 2.0 and 3.0,
// little-endian), then the header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a final '\n', then the raw elements in C order.
#include "io/npy.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "loom/errors.h"

namespace loom::io {
namespace {

static_assert(std::endian::native == std::endian::little,
              "npy data is copied as is: a big-endian host would need byte swaps");

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy's own reader refuses headers above 10,000 bytes unless told
// otherwise; 1 MiB leaves room for any honest shape and bounds a bad one.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

[[noreturn]] void Fail(const std::string& label, const std::string& detail) {
  throw InvalidArgumentError(label + ": not a valid .npy file: " + detail);
}

// One value of the header dict.
struct HeaderValue {
  enum class Kind { kString, kBool, kTuple } kind = Kind::kString;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

// A recursive-descent reader for the small subset of Python literals numpy
// writes: quoted strings, True/False, tuples of non-negative integers.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& label) : text_(text), label_(label) {}

  std::map<std::string, HeaderValue> ParseDict() {
    std::map<std::string, HeaderValue> dict;
    Expect('{');
    while (true) {
      SkipSpace();
      if (Peek() == '}') break;
      const std::string key = ParseString();
      Expect(':');
      HeaderValue value = ParseValue();
      if (!dict.emplace(key, std::move(value)).second)
        Fail(label_, "header repeats key '" + key + "'");
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() != '}') Fail(label_, "header dict: expected ',' or '}' at offset " + Where());
    }
    Expect('}');
    SkipSpace();
    if (pos_ != text_.size()) Fail(label_, "header has text after the dict at offset " + Where());
    return dict;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  std::string Where() const { return std::to_string(pos_); }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void Expect(char c) {
    SkipSpace();
    if (Peek() != c) {
      Fail(label_, std::string("header: expected '") + c + "' at offset " + Where());
    }
    ++pos_;
  }

  std::string ParseString() {
    SkipSpace();
    const char quote = Peek();
    if (quote != '\'' && quote != '"')
      Fail(label_, "header: expected a quoted string at offset " + Where());
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) Fail(label_, "header: unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }

  int64_t ParseInt() {
    SkipSpace();
    const size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        Fail(label_, "header: shape dimension overflows int64");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    // Python 2 era writers appended 'L' to long integers.
    if (pos_ > start && Peek() == 'L') ++pos_;
    if (pos_ == start) Fail(label_, "header: expected a non-negative integer at offset " + Where());
    return value;
  }

  HeaderValue ParseValue() {
    SkipSpace();
    HeaderValue value;
    const char c = Peek();
    if (c == '\'' || c == '"') {
      value.kind = HeaderValue::Kind::kString;
      value.text = ParseString();
    } else if (text_.substr(pos_, 4) == "True") {
      value.kind = HeaderValue::Kind::kBool;
      value.flag = true;
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "False") {
      value.kind = HeaderValue::Kind::kBool;
      pos_ += 5;
    } else if (c == '(' || c == '[') {
      value.kind = HeaderValue::Kind::kTuple;
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      while (true) {
        SkipSpace();
        if (Peek() == close) break;
        value.ints.push_back(ParseInt());
        SkipSpace();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (Peek() != close) Fail(label_, "header: malformed shape tuple at offset " + Where());
      }
      ++pos_;
    } else {
      Fail(label_, "header: unexpected value at offset " + Where());
    }
    return value;
  }

  std::string_view text_;
  const std::string& label_;
  size_t pos_ = 0;
};

struct DescrInfo {
  DType dtype;
  size_t size;
};

// Type codes without the byte-order character; the size is part of the code.
std::optional<DescrInfo> FindDescr(std::string_view code) {
  static const std::map<std::string_view, DescrInfo> kCodes = {
      {"f4", {DType::kFloat32, 4}}, {"f8", {DType::kFloat64, 8}}, {"f2", {DType::kFloat16, 2}},
      {"i1", {DType::kInt8, 1}},    {"u1", {DType::kUInt8, 1}},   {"i2", {DType::kInt16, 2}},
      {"u2", {DType::kUInt16, 2}},  {"i4", {DType::kInt32, 4}},   {"u4", {DType::kUInt32, 4}},
      {"i8", {DType::kInt64, 8}},   {"u8", {DType::kUInt64, 8}},  {"b1", {DType::kBool, 1}},
  };
  auto it = kCodes.find(code);
  if (it == kCodes.end()) return std::nullopt;
  return it->second;
}

[[noreturn]] void FailDescr(const std::string& label, const std::string& descr,
                            const std::string& why) {
  Fail(label, "dtype '" + descr + "' " + why +
                  " (supported: <f4 <f8 <f2 <i2 <u2 <i4 <u4 <i8 <u8 |i1 |u1 |b1, '=' for native "
                  "order)");
}

DType ParseDescr(const std::string& descr, const std::string& label) {
  if (descr.size() < 2) FailDescr(label, descr, "is not supported");
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '=' && order != '|') {
    FailDescr(label, descr, "has no byte-order character");
  }
  const std::optional<DescrInfo> info = FindDescr(std::string_view(descr).substr(1));
  if (!info) FailDescr(label, descr, "is not supported");
  // Byte order means nothing for one-byte types; numpy writes '|' for them.
  if (info->size > 1) {
    if (order == '>') FailDescr(label, descr, "is big-endian");
    if (order == '|') FailDescr(label, descr, "has no byte order for a multi-byte type");
  }
  return info->dtype;
}

std::string DescrOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat64:
      return "<f8";
    case DType::kFloat16:
      return "<f2";
    case DType::kInt8:
      return "|i1";
    case DType::kUInt8:
      return "|u1";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kBool:
      return "|b1";
    case DType::kUInt16:
      return "<u2";
    case DType::kUInt32:
      return "<u4";
    case DType::kUInt64:
      return "<u8";
    case DType::kInt16:
      return "<i2";
    case DType::kBFloat16:
      break;  // numpy has no bfloat16 type code
    case DType::kString:
      throw InvalidArgumentError(
          "cannot write a string tensor as .npy: NumPy keeps text as object arrays, which .npy "
          "stores as Python pickles (Loom neither writes nor reads pickles)");
  }
  throw InvalidArgumentError("cannot write a " + std::string(dtype_name(dtype)) +
                             " tensor as .npy: numpy has no such dtype (Cast it to float32 first)");
}

}  // namespace

Tensor ParseNpy(std::string_view bytes, const std::string& label) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) {
    Fail(label, "the file does not start with the magic \"\\x93NUMPY\"");
  }
  const auto major = static_cast<uint8_t>(bytes[6]);
  const auto minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    Fail(label, "format version " + std::to_string(major) + "." + std::to_string(minor) +
                    " is not supported (1.0, 2.0, 3.0)");
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + length_bytes;
  if (bytes.size() < prefix) Fail(label, "the file ends inside the header length");
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    header_length |= size_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
  }
  if (header_length > kMaxHeaderBytes) {
    Fail(label, "header length " + std::to_string(header_length) + " exceeds the limit of " +
                    std::to_string(kMaxHeaderBytes) + " bytes");
  }
  if (bytes.size() - prefix < header_length) {
    Fail(label, "the file ends inside the header (" + std::to_string(header_length) +
                    " bytes announced, " + std::to_string(bytes.size() - prefix) + " present)");
  }
  const std::string_view header = bytes.substr(prefix, header_length);
  std::map<std::string, HeaderValue> dict = HeaderParser(header, label).ParseDict();
  if (dict.size() != 3 || !dict.count("descr") || !dict.count("fortran_order") ||
      !dict.count("shape")) {
    Fail(label, "the header must have exactly the keys 'descr', 'fortran_order' and 'shape'");
  }
  const HeaderValue& descr = dict["descr"];
  const HeaderValue& fortran = dict["fortran_order"];
  const HeaderValue& shape_value = dict["shape"];
  if (descr.kind != HeaderValue::Kind::kString) Fail(label, "'descr' is not a string");
  if (fortran.kind != HeaderValue::Kind::kBool) Fail(label, "'fortran_order' is not True/False");
  if (shape_value.kind != HeaderValue::Kind::kTuple) Fail(label, "'shape' is not a tuple");
  const DType dtype = ParseDescr(descr.text, label);
  if (fortran.flag && shape_value.ints.size() > 1) {
    Fail(label, "Fortran (column-major) order is not supported; save a C-ordered array");
  }

  Shape shape;
  try {
    shape = Shape(shape_value.ints);
  } catch (const InvalidArgumentError& e) {
    Fail(label, std::string("shape: ") + e.what());
  }
  const std::string_view data = bytes.substr(prefix + header_length);
  const size_t element_size = dtype_size(dtype);
  // Compare before multiplying: the element count alone may exceed the bytes.
  const auto count = static_cast<uint64_t>(shape.num_elements());
  if (count > data.size() / element_size || count * element_size != data.size()) {
    Fail(label, "shape " + shape.to_string() + " of " + std::string(dtype_name(dtype)) + " needs " +
                    (count > std::numeric_limits<uint64_t>::max() / element_size
                         ? std::string("more")
                         : std::to_string(count * element_size)) +
                    " data bytes, the file has " + std::to_string(data.size()));
  }
  Tensor tensor(dtype, shape);
  if (!data.empty()) std::memcpy(tensor.raw_data(), data.data(), data.size());
  if (dtype == DType::kBool) {
    // Loom's bools are 0 or 1; any other byte would be a bool outside both.
    uint8_t* p = static_cast<uint8_t*>(tensor.raw_data());
    for (size_t i = 0; i < data.size(); ++i) p[i] = p[i] != 0 ? 1 : 0;
  }
  return tensor;
}

Tensor ReadNpy(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw InvalidArgumentError(path + ": cannot open .npy file: " + std::strerror(errno));
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) throw InvalidArgumentError(path + ": error while reading .npy file");
  return ParseNpy(contents.str(), path);
}

std::string SerializeNpy(const Tensor& tensor) {
  std::string dims;
  for (int64_t d : tensor.shape().dims()) dims += std::to_string(d) + ", ";
  if (tensor.shape().rank() > 1) dims.resize(dims.size() - 2);  // "(2, 3)"; "(3,)" keeps its comma
  if (tensor.shape().rank() == 1) dims.resize(dims.size() - 1);
  std::string header = "{'descr': '" + DescrOf(tensor.dtype()) +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Version 1.0 holds a header up to 65535 bytes; the data starts at a
  // multiple of 64 so it can be memory-mapped aligned (numpy's rule).
  const bool v2 = header.size() + 1 + 10 + 64 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  const size_t padded = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(padded - prefix - header.size() - 1, ' ');
  header.push_back('\n');

  std::string out(kMagic);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  const size_t length_bytes = v2 ? 4 : 2;
  for (size_t i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  out += header;
  if (tensor.nbytes() > 0) {
    out.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  }
  return out;
}

void WriteNpy(const std::string& path, const Tensor& tensor) {
  const std::string bytes = SerializeNpy(tensor);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw RuntimeError(path + ": cannot create .npy file: " + std::strerror(errno));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) throw RuntimeError(path + ": error while writing .npy file");
}

}  // namespace loom::io
