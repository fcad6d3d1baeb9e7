// For tests and benchmarks: an iterator whose asynchronous stages run on a
// given pool instead of the global data pool, so pool sizes can vary within
// one process. The pool must outlive the iterator.
#pragma once

#include "loom/data.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::data::internal {

Iterator MakeIteratorOnPool(const Dataset& dataset, threading::ThreadPool* pool);

}  // namespace loom::data::internal
