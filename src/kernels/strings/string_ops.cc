#include "kernels/strings/string_ops.h"

#include <locale.h>
#include <re2/re2.h>
#include <wctype.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_set>

#include "kernels/dtype_visit.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

// ---- broadcasting --------------------------------------------------------

// For each element of `out` (row-major), the offset of the element of a
// tensor of shape `in` that broadcasting reads there.
std::vector<int64_t> BroadcastOffsets(const Shape& in, const Shape& out) {
  const int rank = out.rank();
  const int shift = rank - in.rank();
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int axis = in.rank() - 1; axis >= 0; --axis) {
    const int64_t extent = in.dims()[static_cast<size_t>(axis)];
    strides[static_cast<size_t>(axis + shift)] = extent == 1 ? 0 : stride;
    stride *= extent;
  }
  std::vector<int64_t> offsets(static_cast<size_t>(out.num_elements()));
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    offsets[static_cast<size_t>(i)] = offset;
    for (int axis = rank - 1; axis >= 0; --axis) {
      const auto a = static_cast<size_t>(axis);
      if (++index[a] < out.dims()[a]) {
        offset += strides[a];
        break;
      }
      offset -= strides[a] * (index[a] - 1);
      index[a] = 0;
    }
  }
  return offsets;
}

const Tensor& StringInput(std::string_view op, KernelInputs inputs, size_t index,
                          std::string_view name) {
  const Tensor& tensor = RequiredInput(op, inputs, index, name);
  CheckDType(op, name, tensor, {DType::kString});
  return tensor;
}

// ---- UTF-8 and case mapping ------------------------------------------------

// Decodes `text` into code points; false for invalid UTF-8 (overlong forms,
// surrogates, values above U+10FFFF, truncated sequences).
bool DecodeUtf8(std::string_view text, std::u32string& out) {
  out.clear();
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    int length = 0;
    char32_t code = 0;
    if (byte < 0x80) {
      length = 1;
      code = byte;
    } else if ((byte & 0xE0) == 0xC0) {
      length = 2;
      code = byte & 0x1F;
    } else if ((byte & 0xF0) == 0xE0) {
      length = 3;
      code = byte & 0x0F;
    } else if ((byte & 0xF8) == 0xF0) {
      length = 4;
      code = byte & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<size_t>(length) > text.size()) return false;
    for (int k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<size_t>(k)]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    constexpr char32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    out.push_back(code);
    i += static_cast<size_t>(length);
  }
  return true;
}

void EncodeUtf8(char32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// glibc's C.UTF-8 locale (built into glibc 2.35+, so present wherever Loom
// builds): its towlower/towupper tables are Unicode's simple case mappings.
// Used through the *_l functions, so the process locale is never touched.
locale_t Utf8Locale() {
  static const locale_t locale = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    return l;
  }();
  if (locale == static_cast<locale_t>(nullptr)) {
    throw RuntimeError("StringNormalizer: the C.UTF-8 locale is not available on this system");
  }
  return locale;
}

enum class CaseChange { kNone, kLower, kUpper };

std::string ChangeCase(std::string_view op, std::string_view text, CaseChange change,
                       std::u32string& scratch) {
  if (!DecodeUtf8(text, scratch)) {
    ThrowKernelError(op, "element \"" + std::string(text) + "\" is not valid UTF-8");
  }
  const locale_t locale = Utf8Locale();
  std::string out;
  out.reserve(text.size());
  for (char32_t code : scratch) {
    const auto wide = static_cast<wint_t>(code);
    const wint_t mapped =
        change == CaseChange::kLower ? towlower_l(wide, locale) : towupper_l(wide, locale);
    EncodeUtf8(static_cast<char32_t>(mapped), out);
  }
  return out;
}

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Python's str.split(sep, maxsplit) (sep empty: whitespace runs).
std::vector<std::string_view> Split(std::string_view text, std::string_view delimiter,
                                    int64_t maxsplit) {
  std::vector<std::string_view> pieces;
  if (delimiter.empty()) {
    size_t i = 0;
    while (true) {
      while (i < text.size() && IsAsciiSpace(text[i])) ++i;
      if (i == text.size()) break;
      if (maxsplit >= 0 && static_cast<int64_t>(pieces.size()) == maxsplit) {
        pieces.push_back(text.substr(i));  // trailing whitespace kept, as Python keeps it
        break;
      }
      size_t end = i;
      while (end < text.size() && !IsAsciiSpace(text[end])) ++end;
      pieces.push_back(text.substr(i, end - i));
      i = end;
    }
    return pieces;
  }
  size_t start = 0;
  while (maxsplit < 0 || static_cast<int64_t>(pieces.size()) < maxsplit) {
    const size_t at = text.find(delimiter, start);
    if (at == std::string_view::npos) break;
    pieces.push_back(text.substr(start, at - start));
    start = at + delimiter.size();
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// ---- number formatting and parsing ----------------------------------------

// Python's repr of a double (what NumPy's astype(str) prints for floats).
std::string PythonRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  // Shortest round-trip digits, in scientific form: "d.ddde±XX".
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string sci(buffer, result.ptr);
  const size_t e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string sign;
  std::string mantissa = sci.substr(0, e);
  if (mantissa[0] == '-') {
    sign = "-";
    mantissa.erase(0, 1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  if (exponent < -4 || exponent >= 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int magnitude = exponent < 0 ? -exponent : exponent;
    out += exponent < 0 ? "e-" : "e+";
    if (magnitude < 10) out += "0";
    out += std::to_string(magnitude);
    return out;
  }
  std::string out = sign;
  if (exponent < 0) {
    out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else {
    const auto point = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= point) {
      out += digits + std::string(point - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, point) + "." + digits.substr(point);
    }
  }
  return out;
}

// A narrower float prints its own shortest digits, not its double's ("0.1"
// for float32 0.1, not "0.10000000149011612"): the fewest significant digits
// that read back (rounded to T) as the same value, as NumPy prints them.
// Those digits, read as a double, have that double's repr.
template <typename T>
std::string FormatNarrowFloat(T value) {
  const float wide = static_cast<float>(value);
  if (std::isnan(wide) || std::isinf(wide)) return PythonRepr(wide);
  char buffer[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", digits - 1, static_cast<double>(wide));
    double decimal = 0;
    std::from_chars(buffer, buffer + std::strlen(buffer), decimal);
    const T back = T(static_cast<float>(decimal));
    if (static_cast<float>(back) == wide) return PythonRepr(decimal);
  }
  return PythonRepr(static_cast<double>(wide));  // 9 digits always round-trip float32
}

std::string_view TrimAscii(std::string_view text) {
  while (!text.empty() && IsAsciiSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsAsciiSpace(text.back())) text.remove_suffix(1);
  return text;
}

bool EqualsIgnoringAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (std::tolower(x) != std::tolower(y)) return false;
  }
  return true;
}

[[noreturn]] void NotANumber(std::string_view text, DType to) {
  throw InvalidArgumentError("Cast: the string \"" + std::string(text) + "\" is not a " +
                             std::string(dtype_name(to)) + " value");
}

// The whole element as a number of type F (float or double), rounded once.
template <typename F>
F ParseReal(std::string_view original, DType to) {
  const std::string_view text = TrimAscii(original);
  std::string_view body = text;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsIgnoringAsciiCase(body, "inf") || EqualsIgnoringAsciiCase(body, "infinity")) {
    return negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  }
  if (EqualsIgnoringAsciiCase(body, "nan")) return std::numeric_limits<F>::quiet_NaN();
  // from_chars takes no '+' and no hex prefix; both are left as errors.
  if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.')) {
    NotANumber(original, to);
  }
  F value = 0;
  const auto result = std::from_chars(body.data(), body.data() + body.size(), value);
  if (result.ptr != body.data() + body.size() ||
      (result.ec != std::errc() && result.ec != std::errc::result_out_of_range)) {
    NotANumber(original, to);
  }
  if (result.ec == std::errc::result_out_of_range) {
    // Too large or too small: strtod's rounding (to infinity, to zero or a
    // denormal). It reads the C locale's '.', which Loom never changes.
    const std::string copy(body);
    if constexpr (std::is_same_v<F, float>) {
      value = std::strtof(copy.c_str(), nullptr);
    } else {
      value = std::strtod(copy.c_str(), nullptr);
    }
  }
  return negative ? -value : value;
}

double ParseDouble(std::string_view original, DType to) { return ParseReal<double>(original, to); }

template <typename T>
T ParseInteger(std::string_view original, DType to) {
  const std::string_view text = TrimAscii(original);
  std::string_view body = text;
  if (!body.empty() && body[0] == '+') body.remove_prefix(1);
  // Integer text first: exact for every int64 and uint64.
  T value{};
  const auto result = std::from_chars(body.data(), body.data() + body.size(), value);
  if (result.ec == std::errc() && result.ptr == body.data() + body.size()) return value;
  if (result.ec == std::errc::result_out_of_range) {
    throw InvalidArgumentError("Cast: the string \"" + std::string(original) +
                               "\" is outside the range of " + std::string(dtype_name(to)));
  }
  const double real = std::trunc(ParseDouble(original, to));
  if (std::isnan(real) || real < static_cast<double>(std::numeric_limits<T>::lowest()) ||
      real >= std::ldexp(1.0, std::numeric_limits<T>::digits)) {
    throw InvalidArgumentError("Cast: the string \"" + std::string(original) +
                               "\" is outside the range of " + std::string(dtype_name(to)));
  }
  return static_cast<T>(real);
}

}  // namespace

// ---- the text operators -----------------------------------------------------

std::vector<Tensor> StringConcatKernel(const KernelContext&, const Attributes&,
                                       KernelInputs inputs) {
  constexpr std::string_view kOp = "StringConcat";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = StringInput(kOp, inputs, 0, "X");
  const Tensor& y = StringInput(kOp, inputs, 1, "Y");
  const Shape shape = broadcast_shapes(x.shape(), y.shape());
  const std::vector<int64_t> from_x = BroadcastOffsets(x.shape(), shape);
  const std::vector<int64_t> from_y = BroadcastOffsets(y.shape(), shape);
  Tensor out = Tensor::uninitialized(DType::kString, shape);
  const std::string* xs = x.data<std::string>();
  const std::string* ys = y.data<std::string>();
  std::string* z = out.data<std::string>();
  for (size_t i = 0; i < from_x.size(); ++i) {
    const std::string& a = xs[from_x[i]];
    const std::string& b = ys[from_y[i]];
    z[i].reserve(a.size() + b.size());
    z[i] = a;
    z[i] += b;
  }
  return {std::move(out)};
}

std::vector<Tensor> StringSplitKernel(const KernelContext&, const Attributes& attrs,
                                      KernelInputs inputs) {
  constexpr std::string_view kOp = "StringSplit";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = StringInput(kOp, inputs, 0, "X");
  const std::string delimiter = attrs.get_string("delimiter", "");
  int64_t maxsplit = -1;
  if (attrs.contains("maxsplit")) {
    maxsplit = attrs.get_int("maxsplit");
    if (maxsplit < 0) {
      ThrowKernelError(kOp, "maxsplit is " + std::to_string(maxsplit) + "; it must be >= 0");
    }
  }
  const std::string* xs = x.data<std::string>();
  std::vector<std::vector<std::string_view>> pieces(static_cast<size_t>(x.num_elements()));
  int64_t widest = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    pieces[i] = Split(xs[i], delimiter, maxsplit);
    widest = std::max(widest, static_cast<int64_t>(pieces[i].size()));
  }
  std::vector<int64_t> dims = x.shape().dims();
  dims.push_back(widest);
  Tensor y(DType::kString, Shape(dims));  // "" where an element has fewer pieces
  Tensor z = Tensor::uninitialized(DType::kInt64, x.shape());
  std::string* ys = y.data<std::string>();
  int64_t* counts = z.data<int64_t>();
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (size_t k = 0; k < pieces[i].size(); ++k) {
      ys[static_cast<int64_t>(i) * widest + static_cast<int64_t>(k)] = pieces[i][k];
    }
    counts[i] = static_cast<int64_t>(pieces[i].size());
  }
  return {std::move(y), std::move(z)};
}

std::vector<Tensor> StringNormalizerKernel(const KernelContext&, const Attributes& attrs,
                                           KernelInputs inputs) {
  constexpr std::string_view kOp = "StringNormalizer";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = StringInput(kOp, inputs, 0, "X");
  const std::vector<int64_t>& dims = x.shape().dims();
  const bool two_d = dims.size() == 2;
  if (!(dims.size() == 1 || (two_d && dims[0] == 1))) {
    ThrowKernelError(kOp, "X has shape " + x.shape().to_string() + "; it must be [C] or [1, C]");
  }
  const std::string action = attrs.get_string("case_change_action", "NONE");
  CaseChange change = CaseChange::kNone;
  if (action == "LOWER") {
    change = CaseChange::kLower;
  } else if (action == "UPPER") {
    change = CaseChange::kUpper;
  } else if (action != "NONE") {
    ThrowKernelError(kOp, "case_change_action is \"" + action +
                              "\"; it must be \"NONE\", \"LOWER\" or \"UPPER\"");
  }
  const bool case_sensitive = attrs.get_int("is_case_sensitive", 0) != 0;
  const std::string locale = attrs.get_string("locale", "");
  if (locale.starts_with("tr") || locale.starts_with("az")) {
    ThrowKernelError(kOp, "locale \"" + locale +
                              "\" has its own dotted/dotless i rules, which Loom does not "
                              "implement (it applies Unicode's default case mapping)");
  }
  std::u32string scratch;
  std::unordered_set<std::string> stopwords;
  if (attrs.contains("stopwords")) {
    for (const std::string& word : attrs.get_strings("stopwords")) {
      stopwords.insert(case_sensitive ? word : ChangeCase(kOp, word, CaseChange::kLower, scratch));
    }
  }
  const std::string* xs = x.data<std::string>();
  std::vector<std::string> kept;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const std::string& word = xs[i];
    if (!stopwords.empty()) {
      const std::string key =
          case_sensitive ? word : ChangeCase(kOp, word, CaseChange::kLower, scratch);
      if (stopwords.contains(key)) continue;
    }
    kept.push_back(change == CaseChange::kNone ? word : ChangeCase(kOp, word, change, scratch));
  }
  if (kept.empty()) kept.emplace_back();  // ONNX: one empty string
  const auto count = static_cast<int64_t>(kept.size());
  Tensor out = Tensor::uninitialized(DType::kString, two_d ? Shape({1, count}) : Shape({count}));
  std::move(kept.begin(), kept.end(), out.data<std::string>());
  return {std::move(out)};
}

std::vector<Tensor> RegexFullMatchKernel(const KernelContext&, const Attributes& attrs,
                                         KernelInputs inputs) {
  constexpr std::string_view kOp = "RegexFullMatch";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = StringInput(kOp, inputs, 0, "X");
  const std::string pattern = attrs.get_string("pattern");
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 regex(pattern, options);
  if (!regex.ok()) {
    ThrowKernelError(kOp, "pattern \"" + pattern + "\" is not valid RE2 syntax: " + regex.error());
  }
  Tensor out = Tensor::uninitialized(DType::kBool, x.shape());
  const std::string* xs = x.data<std::string>();
  bool* matches = out.data<bool>();
  for (int64_t i = 0; i < x.num_elements(); ++i) matches[i] = RE2::FullMatch(xs[i], regex);
  return {std::move(out)};
}

// ---- generic operators on string codes ---------------------------------------

bool AnyStringInput(KernelInputs inputs) {
  for (const Tensor* input : inputs) {
    if (input != nullptr && input->dtype() == DType::kString) return true;
  }
  return false;
}

std::vector<Tensor> RunOnStringCodes(KernelFn fn, uint32_t t_inputs, uint32_t t_outputs,
                                     std::string_view op, const KernelContext& ctx,
                                     const Attributes& attrs, KernelInputs inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* input = inputs[i];
    if (input == nullptr) continue;
    const bool is_t = i < 32 && (t_inputs & (1u << i)) != 0;
    if (is_t != (input->dtype() == DType::kString)) {
      const std::string detail =
          "input " + std::to_string(i) + " has dtype " + std::string(dtype_name(input->dtype())) +
          (is_t ? ", but the op's other T inputs are strings" : "; strings are not accepted there");
      if (op.empty()) throw InvalidArgumentError(detail);  // RunKernel names the op
      ThrowKernelError(op, detail);
    }
  }
  // The distinct strings of every string input, sorted: a string's code is
  // its index here.
  std::vector<std::string_view> table;
  for (const Tensor* input : inputs) {
    if (input == nullptr || input->dtype() != DType::kString) continue;
    const std::string* values = input->data<std::string>();
    table.insert(table.end(), values, values + input->num_elements());
  }
  std::sort(table.begin(), table.end());
  table.erase(std::unique(table.begin(), table.end()), table.end());

  std::vector<Tensor> coded(inputs.size());
  std::vector<const Tensor*> pointers(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* input = inputs[i];
    if (input == nullptr || input->dtype() != DType::kString) {
      pointers[i] = input;
      continue;
    }
    coded[i] = Tensor::uninitialized(DType::kInt64, input->shape());
    const std::string* values = input->data<std::string>();
    int64_t* codes = coded[i].data<int64_t>();
    for (int64_t k = 0; k < input->num_elements(); ++k) {
      codes[k] =
          std::lower_bound(table.begin(), table.end(), std::string_view(values[k])) - table.begin();
    }
    pointers[i] = &coded[i];
  }
  std::vector<Tensor> outputs = fn(ctx, attrs, KernelInputs(pointers));
  for (size_t o = 0; o < outputs.size() && o < 32; ++o) {
    if ((t_outputs & (1u << o)) == 0) continue;
    const Tensor& codes = outputs[o];
    if (codes.dtype() != DType::kInt64) {
      throw InvalidArgumentError("string output " + std::to_string(o) + " came back as " +
                                 std::string(dtype_name(codes.dtype())) + ", not codes");
    }
    Tensor strings = Tensor::uninitialized(DType::kString, codes.shape());
    const int64_t* code = codes.data<int64_t>();
    std::string* out = strings.data<std::string>();
    for (int64_t k = 0; k < codes.num_elements(); ++k) {
      if (code[k] < 0 || static_cast<uint64_t>(code[k]) >= table.size()) {
        throw InvalidArgumentError("string output " + std::to_string(o) + " holds code " +
                                   std::to_string(code[k]) + ", which names no string");
      }
      out[k] = table[static_cast<size_t>(code[k])];
    }
    outputs[o] = std::move(strings);
  }
  return outputs;
}

Tensor CastStrings(const Tensor& input, DType to) {
  const int64_t count = input.num_elements();
  if (input.dtype() == DType::kString && to == DType::kString) return input;
  if (to == DType::kString) {
    Tensor out = Tensor::uninitialized(DType::kString, input.shape());
    std::string* strings = out.data<std::string>();
    VisitDType(input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* values = input.data<T>();
      for (int64_t i = 0; i < count; ++i) {
        if constexpr (std::is_same_v<T, bool>) {
          strings[i] = values[i] ? "True" : "False";
        } else if constexpr (std::is_same_v<T, double>) {
          strings[i] = PythonRepr(values[i]);
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Float16> ||
                             std::is_same_v<T, BFloat16>) {
          strings[i] = FormatNarrowFloat(values[i]);
        } else {
          strings[i] = std::to_string(values[i]);
        }
      }
    });
    return out;
  }
  if (input.dtype() != DType::kString) {
    throw InvalidArgumentError("CastStrings: neither side is a string");
  }
  Tensor out = Tensor::uninitialized(to, input.shape());
  const std::string* strings = input.data<std::string>();
  VisitDType(to, [&](auto tag) {
    using T = decltype(tag);
    T* values = out.data<T>();
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        const std::string_view text = TrimAscii(strings[i]);
        if (EqualsIgnoringAsciiCase(text, "true")) {
          values[i] = true;
        } else if (EqualsIgnoringAsciiCase(text, "false")) {
          values[i] = false;
        } else {
          values[i] = ParseDouble(strings[i], to) != 0.0;
        }
      } else if constexpr (std::is_integral_v<T>) {
        values[i] = ParseInteger<T>(strings[i], to);
      } else if constexpr (std::is_same_v<T, double>) {
        values[i] = ParseReal<double>(strings[i], to);
      } else {
        // float16 and bfloat16 round from float32's nearest value: twice
        // rounded, as ONNX Runtime's float16 cast from text is too.
        values[i] = T(ParseReal<float>(strings[i], to));
      }
    }
  });
  return out;
}

}  // namespace loom::kernels
