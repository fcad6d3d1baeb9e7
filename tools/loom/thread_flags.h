// Thread settings given as `loom` flags. They reach the threading
// configuration as requests labelled with the flag, not as public API calls,
// so `loom run` / `loom threads` report the source as "flag --intra" and an
// environment variable that outranks one warns "--intra 2 has no effect: ..."
// rather than naming a function the user never called.
#pragma once

#include <string>

#include "threading/threading_config.h"

namespace loom::cli {

// {"flag " + flag, flag + " " + value}.
threading::Requester FlagRequester(const std::string& flag, const std::string& value);

// The requester for an integer flag's value.
threading::Requester FlagRequester(const std::string& flag, int value);

}  // namespace loom::cli
