// Minimal warning log. Loom logs rarely (configuration warnings, a task that
// threw); every line goes to one sink so tests can capture it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace loom::base {

using LogSink = std::function<void(std::string_view line)>;

// Writes "loom: warning: <message>" to the current sink (stderr by default).
// Thread-safe.
void LogWarning(std::string_view message);

// Replaces the sink and returns the previous one; an empty sink restores
// stderr. Thread-safe. Meant for tests.
LogSink SetLogSinkForTesting(LogSink sink);

}  // namespace loom::base
