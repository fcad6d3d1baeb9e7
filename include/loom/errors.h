// Errors thrown by Loom's public API.
//
// Every error derives from loom::Error (itself a std::runtime_error), so
// callers can catch Loom's errors as a family or one kind at a time. Messages
// say what was wrong and where (the setting, the variable, the value given).
#pragma once

#include <stdexcept>
#include <string>

namespace loom {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A caller passed a value that can never be valid (a negative thread count, a
// CPU outside the affinity mask, an unparsable environment variable).
class InvalidArgumentError : public Error {
 public:
  using Error::Error;
};

// The call is valid in general but not in the runtime's current state (for
// example, changing a thread count after the runtime has started).
class RuntimeError : public Error {
 public:
  using Error::Error;
};

// A run stopped because its CancellationToken was cancelled (loom/session.h).
class CancelledError : public Error {
 public:
  using Error::Error;
};

// A run stopped because its deadline passed (loom/session.h).
class DeadlineExceededError : public Error {
 public:
  using Error::Error;
};

}  // namespace loom
