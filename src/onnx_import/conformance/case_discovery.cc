#include "onnx_import/conformance/case_discovery.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>

#include "base/parse_number.h"
#include "loom/errors.h"

namespace loom::conformance {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDataSetPrefix = "test_data_set_";

// N when `name` is "<prefix><N><suffix>" with N a plain non-negative number.
std::optional<int64_t> NumberBetween(std::string_view name, std::string_view prefix,
                                     std::string_view suffix) {
  if (name.size() <= prefix.size() + suffix.size()) return std::nullopt;
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  // ParseInt64 alone would accept a sign.
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return base::ParseInt64(digits);
}

bool IsDirectory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool IsFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// Subfolders of `dir`, sorted by name; unreadable entries are skipped.
std::vector<fs::path> SubFolders(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsDirectory(it->path())) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

ConformanceCase MakeCase(const std::string& suite, const fs::path& dir) {
  ConformanceCase c;
  c.suite = suite;
  c.name = dir.filename().string();
  c.dir = dir.string();
  std::map<int64_t, std::string> sets;
  for (const fs::path& sub : SubFolders(dir)) {
    if (auto n = NumberBetween(sub.filename().string(), kDataSetPrefix, "")) {
      sets[*n] = sub.string();
    }
  }
  for (auto& [n, path] : sets) c.data_sets.push_back(std::move(path));
  return c;
}

void AddSuite(const std::string& suite, const fs::path& dir, CaseList& list) {
  for (const fs::path& sub : SubFolders(dir)) {
    if (IsFile(sub / "model.onnx")) {
      list.cases.push_back(MakeCase(suite, sub));
    } else {
      list.without_model.push_back(suite + "/" + sub.filename().string());
    }
  }
}

}  // namespace

CaseList FindCases(const std::string& root) {
  const fs::path path = fs::path(root).lexically_normal();
  if (!IsDirectory(path)) {
    throw InvalidArgumentError("conformance: '" + root + "' is not a folder");
  }
  // lexically_normal keeps a trailing separator as an empty filename.
  const fs::path folder = path.has_filename() ? path : path.parent_path();
  CaseList list;
  if (IsFile(folder / "model.onnx")) {
    list.cases.push_back(MakeCase(folder.parent_path().filename().string(), folder));
    return list;
  }
  bool found_suite = false;
  for (std::string_view suite : kSuites) {
    if (!IsDirectory(folder / suite)) continue;
    found_suite = true;
    AddSuite(std::string(suite), folder / suite, list);
  }
  if (!found_suite) AddSuite(folder.filename().string(), folder, list);
  return list;
}

std::vector<std::string> DataFiles(const std::string& data_set_dir, std::string_view prefix) {
  std::map<int64_t, std::string> files;
  const std::string full_prefix = std::string(prefix) + "_";
  std::error_code ec;
  for (fs::directory_iterator it(data_set_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto n = NumberBetween(it->path().filename().string(), full_prefix, ".pb")) {
      files[*n] = it->path().string();
    }
  }
  std::vector<std::string> out;
  for (auto& [n, path] : files) {
    if (n != static_cast<int64_t>(out.size())) {
      throw InvalidArgumentError("conformance: " + data_set_dir + ": " + full_prefix +
                                 std::to_string(out.size()) + ".pb is missing (found " +
                                 full_prefix + std::to_string(n) + ".pb)");
    }
    out.push_back(std::move(path));
  }
  return out;
}

}  // namespace loom::conformance
