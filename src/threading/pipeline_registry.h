// PipelineRegistry: the live loom::data iterators, so describe() and
// `loom threads` can show what their AUTOTUNE chose.
//
// The data layer sits above threading, so it registers a callback per
// iterator instead of threading knowing about datasets. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "loom/config.h"

namespace loom::threading {

using config::threading::PipelineDescription;

// Registers `report` and returns its id (unique, increasing). `report` must
// stay callable until UnregisterPipeline(id) returns; it is called with the
// registry's lock held, so it must not call back into the registry.
int64_t RegisterPipeline(std::function<PipelineDescription()> report);
void UnregisterPipeline(int64_t id);

// The reports of every registered pipeline, in registration order.
std::vector<PipelineDescription> DescribeLivePipelines();

}  // namespace loom::threading
