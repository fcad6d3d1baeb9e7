// Loom's warnings (an environment variable overriding an API call, more
// threads than usable CPUs) are written to stderr as "loom: warning: ...".
// A language binding that wants to raise them in its own way (Python's
// warnings.warn) collects the ones raised on its thread during a call:
//
//   loom::WarningCapture capture;
//   loom::config::threading::set_intra_op_parallelism_threads(4);
//   for (const std::string& w : capture.take()) { ... }
//
// Only warnings raised on the thread that created the capture, while it
// lives, are collected (without the "loom: warning: " prefix); warnings on
// other threads still go to stderr. Captures nest: the innermost collects.
#pragma once

#include <string>
#include <vector>

namespace loom {

class WarningCapture {
 public:
  WarningCapture();
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

  // The warnings collected so far, in order; clears them.
  std::vector<std::string> take();

 private:
  std::vector<std::string> warnings_;
  std::vector<std::string>* previous_;  // the enclosing capture's list
};

}  // namespace loom
