#include "output_files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
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

void CheckWritable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) throw RuntimeError("cannot write '" + path + "': it is a folder");
    if (access(path.c_str(), W_OK) != 0) {
      throw RuntimeError("cannot write '" + path + "': " + std::strerror(errno));
    }
    return;
  }
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, error)) {
    throw RuntimeError("cannot write '" + path + "': no folder '" + folder.string() + "'");
  }
  if (access(folder.c_str(), W_OK | X_OK) != 0) {
    throw RuntimeError("cannot write '" + path + "': folder '" + folder.string() +
                       "': " + std::strerror(errno));
  }
}

void CreateOutputFolder(const std::string& dir, const std::string& what) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw RuntimeError(what + ": cannot create folder '" + dir +
                       "': " + (error ? error.message() : "a file of that name exists"));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw RuntimeError(what + ": cannot write in folder '" + dir + "': " + std::strerror(errno));
  }
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw RuntimeError("cannot write '" + path + "': " + std::strerror(errno));
  file << text;
  file.close();  // flushes: a full disk shows here, not before
  if (!file) throw RuntimeError("cannot write '" + path + "': " + std::strerror(errno));
}

bool FlushStdout(std::string* error) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int reason = errno;
  if (flushed && !std::ferror(stdout)) return true;
  *error = reason != 0 ? std::strerror(reason) : "a write failed";
  return false;
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
  CreateOutputFolder(dir, "--save-outputs");
  std::vector<std::string> paths;
  for (size_t i = 0; i < names.size() && i < tensors.size(); ++i) {
    paths.push_back((std::filesystem::path(dir) / (SafeFileStem(names[i]) + ".npy")).string());
    io::WriteNpy(paths.back(), tensors[i]);
  }
  return paths;
}

}  // namespace loom::cli
