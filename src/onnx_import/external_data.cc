#include "onnx_import/external_data.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "base/parse_number.h"
#include "base/text.h"
#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

[[noreturn]] void Fail(const std::string& what, const std::string& detail) {
  throw InvalidArgumentError(what + ": external data " + detail);
}

// The real path of `path` (every link resolved), or nullopt with errno set.
std::optional<std::string> RealPath(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  if (resolved == nullptr) return std::nullopt;
  return std::string(resolved.get());
}

void CheckLocation(const std::string& what, const std::string& location) {
  if (location.empty()) Fail(what, "has an empty 'location'");
  if (location.find('\0') != std::string::npos) Fail(what, "location contains a NUL byte");
  if (location.front() == '/') {
    Fail(what, "location '" + location + "' is an absolute path; only paths relative to the " +
                   "model's folder are allowed");
  }
  for (std::string_view part : base::Split(location, '/')) {
    if (part == "..") {
      Fail(what,
           "location '" + location + "' contains '..'; it must stay inside the model's folder");
    }
  }
}

int64_t ParseNonNegative(const std::string& what, const std::string& key, const std::string& text) {
  const std::optional<int64_t> value = base::ParseInt64(text);
  if (!value || *value < 0) {
    Fail(what, "'" + key + "' is '" + text + "', expected a non-negative integer");
  }
  return *value;
}

}  // namespace

ExternalDataFile::ExternalDataFile(const onnx::TensorProto& proto, const std::string& model_dir,
                                   const std::string& what, size_t expected_bytes)
    : what_(what) {
  std::map<std::string, std::string> entries;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    if (!entries.emplace(entry.key(), entry.value()).second) {
      Fail(what, "entry '" + entry.key() + "' is given twice");
    }
  }
  if (entries.count("location") == 0) Fail(what, "has no 'location' entry");
  const std::string& location = entries["location"];
  CheckLocation(what, location);
  if (model_dir.empty()) {
    Fail(what, "'" + location + "' cannot be read: the model was not loaded from a file, so " +
                   "it has no folder");
  }

  const std::optional<std::string> root = RealPath(model_dir);
  if (!root) Fail(what, "folder '" + model_dir + "' cannot be resolved: " + std::strerror(errno));
  const std::string joined = *root + "/" + location;
  const std::optional<std::string> real = RealPath(joined);
  if (!real) Fail(what, "file '" + joined + "' cannot be opened: " + std::strerror(errno));
  const std::string inside = *root == "/" ? "/" : *root + "/";
  if (real->compare(0, inside.size(), inside) != 0) {
    Fail(what, "location '" + location + "' resolves to '" + *real +
                   "', outside the model's folder '" + *root +
                   "' (symbolic links may not leave it)");
  }
  path_ = *real;

  // O_NOFOLLOW: the path was just resolved, so a link here now means it was
  // swapped in since. O_NONBLOCK: opening a FIFO must not wait for a writer.
  fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd_ < 0) Fail(what, "file '" + path_ + "' cannot be opened: " + std::strerror(errno));
  struct stat info {};
  if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd_);
    fd_ = -1;
    Fail(what, "'" + path_ + "' is not a regular file");
  }
  const auto file_size = static_cast<int64_t>(info.st_size);

  try {
    offset_ = entries.count("offset") ? ParseNonNegative(what, "offset", entries["offset"]) : 0;
    if (offset_ > file_size) {
      Fail(what, "offset " + std::to_string(offset_) + " is past the end of '" + path_ + "' (" +
                     std::to_string(file_size) + " bytes)");
    }
    const int64_t available = file_size - offset_;
    int64_t length = available;
    if (entries.count("length")) {
      length = ParseNonNegative(what, "length", entries["length"]);
      if (length > available) {
        Fail(what, "range [" + std::to_string(offset_) + ", +" + std::to_string(length) +
                       ") runs past the end of '" + path_ + "' (" + std::to_string(file_size) +
                       " bytes)");
      }
    }
    if (static_cast<uint64_t>(length) != expected_bytes) {
      Fail(what, "in '" + path_ + "' holds " + std::to_string(length) +
                     " bytes, but the tensor's dims and type need " +
                     std::to_string(expected_bytes));
    }
    length_ = static_cast<size_t>(length);
  } catch (...) {
    close(fd_);
    fd_ = -1;
    throw;
  }
}

ExternalDataFile::~ExternalDataFile() {
  if (fd_ >= 0) close(fd_);
}

void ExternalDataFile::ReadInto(void* dest) const {
  char* out = static_cast<char*>(dest);
  size_t done = 0;
  while (done < length_) {
    // pread's count is capped well below SSIZE_MAX on Linux (~2 GiB).
    const size_t chunk = std::min<size_t>(length_ - done, size_t{1} << 30);
    const ssize_t got = pread(fd_, out + done, chunk, static_cast<off_t>(offset_ + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      Fail(what_, "read of '" + path_ + "' failed at byte " + std::to_string(offset_ + done) +
                      (got == 0 ? ": the file is shorter than when it was opened"
                                : std::string(": ") + std::strerror(errno)));
    }
    done += static_cast<size_t>(got);
  }
}

}  // namespace loom::onnx_import
