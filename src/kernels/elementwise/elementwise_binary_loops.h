// The inner loops of broadcast elementwise ops: one run of a broadcast plan
// (elementwise_broadcast.h), where each input is either contiguous (stride
// 1) or one repeated value (stride 0). Splitting the four cases keeps every
// loop a plain contiguous loop the compiler vectorizes.
#pragma once

#include <cstdint>

#include "kernels/elementwise/elementwise_broadcast.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels::elementwise {

// for i < n: out[i] = op(a[i * sa], b[i * sb]), sa and sb in {0, 1}.
// out may be the same array as a or b (in place), nothing else.
template <typename In, typename Out, typename Op>
void BinaryRun(const In* a, int64_t sa, const In* b, int64_t sb, Out* out, int64_t n, Op op) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else if (sa == 1) {
    const In bv = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], bv);
  } else if (sb == 1) {
    const In av = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = op(av, b[i]);
  } else {
    const Out value = op(*a, *b);
    for (int64_t i = 0; i < n; ++i) out[i] = value;
  }
}

// out = op(a, b) over the whole plan, in parallel over output elements:
// the serial loop ForEachRun(plan, 0, n, BinaryRun...).
template <typename In, typename Out, typename Op>
void RunBinary(const KernelContext& ctx, const BroadcastPlan& plan, const In* a, const In* b,
               Out* out, double cost_ns, Op op) {
  const int64_t sa = plan.inner_stride(0), sb = plan.inner_stride(1);
  ParallelElements(ctx, plan.out_shape.num_elements(), cost_ns, [&](int64_t begin, int64_t end) {
    ForEachRun(plan, begin, end, [&](int64_t o, const InputOffsets& in, int64_t length) {
      BinaryRun(a + in[0], sa, b + in[1], sb, out + o, length, op);
    });
  });
}

}  // namespace loom::kernels::elementwise
