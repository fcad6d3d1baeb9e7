// Synthetic graphs with a known shape of parallelism, for the executor's
// tests and benchmarks. Weights come from a fixed seed, so two calls build
// the same graph.
#pragma once

#include <cstdint>

#include "loom/graph.h"
#include "loom/session.h"

namespace loom::runtime::testing {

// Options for a session with its own pools of these sizes.
inline SessionOptions PrivatePools(int intra, int inter) {
  SessionOptions options;
  options.use_private_thread_pools = true;
  options.intra_op_threads = intra;
  options.inter_op_threads = inter;
  return options;
}

// x [rows, width] → two independent branches, each `depth` × (MatMul with a
// [width, width] weight → Abs), joined by Add → output "y". Node names are
// "a_matmul_<i>", "a_abs_<i>", "b_matmul_<i>", "b_abs_<i>", "join".
Graph TwoBranchGraph(int64_t rows, int64_t width, int depth);

// x [elements] → `length` unary nodes in a chain (Abs, Neg, Neg, Relu,
// repeated; for x = 1 every value is 1 except after each first Neg, -1) →
// output "y". Node i is "n<i>".
Graph ChainGraph(int length, int64_t elements);

// x [elements] → `width` independent Relu nodes → Sum of all → "y".
Graph FanOutGraph(int width, int64_t elements);

// A small conv net with a residual block and two heads: the kind of graph
// concurrency tests run many times. Input "x" [N, 3, 16, 16]; outputs
// "logits" [N, 10] and "features" [N, 8].
Graph SmallConvNet();

}  // namespace loom::runtime::testing
