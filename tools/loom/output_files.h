// `loom run --save-outputs DIR`: each output as DIR/<name>.npy. Output names
// come from the model file, so they are made safe to use as file names.
#pragma once

#include <string>
#include <vector>

#include "loom/tensor.h"

namespace loom::cli {

// `name` with every character other than [A-Za-z0-9._-] replaced by '_',
// so no name can leave DIR ("../x" → ".._x") or hide ("" and names made of
// dots become "_" + name).
std::string SafeFileStem(const std::string& name);

// Creates `dir` (and its parents) and writes tensors[i] to
// dir/SafeFileStem(names[i]).npy. Returns the paths written. Throws
// loom::InvalidArgumentError when two names map to one file, and
// loom::RuntimeError naming the path when the folder or a file cannot be
// written.
std::vector<std::string> SaveOutputs(const std::string& dir, const std::vector<std::string>& names,
                                     const std::vector<Tensor>& tensors);

}  // namespace loom::cli
