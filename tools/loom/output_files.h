// The files `loom` writes: `run --save-outputs DIR` (each output as
// DIR/<name>.npy; output names come from the model file, so they are made
// safe to use as file names), the trace, tune's results. Every write is
// checked to the end — a full disk is an error naming the path, not a
// truncated file and exit status 0 — and commands check their output paths
// before long work, so a typo costs nothing.
#pragma once

#include <string>
#include <vector>

#include "loom/tensor.h"

namespace loom::cli {

// `name` with every character other than [A-Za-z0-9._-] replaced by '_',
// so no name can leave DIR ("../x" → ".._x") or hide ("" and names made of
// dots become "_" + name).
std::string SafeFileStem(const std::string& name);

// Throws loom::RuntimeError naming `path` and why, unless a file can be
// written there now: an existing file that is writable, or a new name in a
// writable folder that exists. Creates nothing. (Permission bits are checked
// with access(2): root passes them.)
void CheckWritable(const std::string& path);

// Creates `dir` and its parents if needed. Throws loom::RuntimeError
// naming `what` ("--save-outputs") and `dir` when it cannot, or when `dir`
// is not a writable folder.
void CreateOutputFolder(const std::string& dir, const std::string& what);

// Writes `text` to `path`, creating or truncating it. Throws
// loom::RuntimeError naming the path and the reason when the file cannot be
// opened or any part of it written (the stream is checked after closing).
void WriteTextFile(const std::string& path, const std::string& text);

// Flushes stdout. False, with the reason in `*error`, when that or any
// earlier write to stdout failed (`loom run > /dev/full`).
bool FlushStdout(std::string* error);

// Creates `dir` (and its parents) and writes tensors[i] to
// dir/SafeFileStem(names[i]).npy. Returns the paths written. Throws
// loom::InvalidArgumentError when two names map to one file, and
// loom::RuntimeError naming the path when the folder or a file cannot be
// written (CreateOutputFolder, io::WriteNpy).
std::vector<std::string> SaveOutputs(const std::string& dir, const std::vector<std::string>& names,
                                     const std::vector<Tensor>& tensors);

}  // namespace loom::cli
