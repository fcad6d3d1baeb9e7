#include "output_files.h"

#include <filesystem>
#include <map>
#include <system_error>

#include "io/npy.h"
#include "loom/errors.h"

namespace loom::cli {

std::string SafeFileStem(const std::string& name) {
  std::string stem;
  bool only_dots = true;
  for (char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    stem += safe ? c : '_';
    only_dots = only_dots && c == '.';
  }
  // "", "." and ".." would name the folder itself or its parent; a leading
  // '-' would read as a flag to the shell tools people use next.
  if (only_dots || stem.front() == '-') stem = "_" + stem;
  return stem;
}

std::vector<std::string> SaveOutputs(const std::string& dir, const std::vector<std::string>& names,
                                     const std::vector<Tensor>& tensors) {
  std::map<std::string, std::string> stems;  // stem → output name
  for (const std::string& name : names) {
    auto [it, inserted] = stems.emplace(SafeFileStem(name), name);
    if (!inserted) {
      throw InvalidArgumentError("--save-outputs: outputs '" + it->second + "' and '" + name +
                                 "' would both be written to " + it->first + ".npy");
    }
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw RuntimeError("--save-outputs: cannot create folder '" + dir +
                       "': " + (error ? error.message() : "a file of that name exists"));
  }
  std::vector<std::string> paths;
  for (size_t i = 0; i < names.size() && i < tensors.size(); ++i) {
    paths.push_back((std::filesystem::path(dir) / (SafeFileStem(names[i]) + ".npy")).string());
    io::WriteNpy(paths.back(), tensors[i]);
  }
  return paths;
}

}  // namespace loom::cli
