// Starting Loom's runtime explicitly.
#pragma once

namespace loom {

// Starts the global runtime: resolves and freezes the threading
// configuration and creates the intra-op and inter-op pools. Idempotent.
// Throws loom::InvalidArgumentError when an environment variable is invalid
// (the runtime then stays stopped and a later call retries).
void start_runtime();

// Whether start_runtime (or anything that implies it) has succeeded.
bool runtime_started();

}  // namespace loom
