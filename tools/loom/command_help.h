// What `loom --help` and `loom COMMAND --help` print: an overview of the
// commands, and for each command its usage line and every flag it takes,
// one line each. The integration tests read the flag lines back (a line
// starting with two spaces and '-') to check every flag's usage errors, so
// a flag added to a command must be listed here.
#pragma once

#include <string>

namespace loom::cli {

// `loom --help`: the commands, one line each.
std::string OverviewHelp();

// `loom COMMAND --help`; empty for a command that does not exist.
std::string CommandHelp(const std::string& command);

// "loom X.Y.Z": `loom --version` (the version of project() in CMakeLists.txt).
std::string VersionLine();

}  // namespace loom::cli
