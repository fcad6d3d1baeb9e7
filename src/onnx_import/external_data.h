// Tensor bytes stored outside the model file (TensorProto.data_location =
// EXTERNAL, with "location", "offset" and "length" entries).
//
// A model file comes from outside; its locations are untrusted paths. The
// rules, each a clear InvalidArgumentError naming the tensor:
//  - the model must have a folder (a model parsed from memory has none);
//  - location: relative, not empty, no ".." component, no NUL byte;
//  - its real path (symbolic links resolved) must lie inside the model's
//    folder's real path: a link leaving the folder is refused;
//  - it must be a regular file (a FIFO or device could block or never end);
//  - offset and length: decimal, non-negative, inside the file, and the
//    length must equal the tensor's byte size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "loom_onnx/onnx.pb.h"

namespace loom::onnx_import {

// An opened, validated external-data range. Opening checks everything
// before the caller allocates the destination, so a lying length or offset
// costs no memory.
class ExternalDataFile {
 public:
  // Throws loom::InvalidArgumentError naming `what` when any rule above is
  // broken or when the range does not hold exactly `expected_bytes`.
  ExternalDataFile(const onnx::TensorProto& proto, const std::string& model_dir,
                   const std::string& what, size_t expected_bytes);
  ~ExternalDataFile();
  ExternalDataFile(const ExternalDataFile&) = delete;
  ExternalDataFile& operator=(const ExternalDataFile&) = delete;

  // Reads the range into `dest` (expected_bytes long). Throws
  // loom::InvalidArgumentError if the file shrank or a read fails.
  void ReadInto(void* dest) const;

  const std::string& path() const { return path_; }

 private:
  std::string what_;
  std::string path_;  // the resolved real path
  int fd_ = -1;
  int64_t offset_ = 0;
  size_t length_ = 0;
};

}  // namespace loom::onnx_import
