#include "thread_flags.h"

namespace loom::cli {

threading::Requester FlagRequester(const std::string& flag, const std::string& value) {
  return {"flag " + flag, flag + " " + value};
}

threading::Requester FlagRequester(const std::string& flag, int value) {
  return FlagRequester(flag, std::to_string(value));
}

}  // namespace loom::cli
