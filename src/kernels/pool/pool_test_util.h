// Shared by the pooling tests: random window geometries and a loop over
// every supported ISA and thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/op_kernel.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/attributes.h"
#include "threading/thread_pool.h"

namespace loom::kernels::testing {

// A pooling problem: X's shape and the geometry attributes.
struct PoolCase {
  std::vector<int64_t> shape;  // N, C, spatial...
  Attributes attrs;
  std::string description;
};

// Spatial sizes that hit vector remainders (8 floats per AVX2 vector),
// primes and 1. Zero-sized spatial axes are tested separately.
inline PoolCase RandomPoolCase(std::mt19937& rng, int spatial_rank, bool allow_dilations) {
  static constexpr int64_t kSizes[] = {1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 31, 33, 40};
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  PoolCase c;
  c.shape = {pick(1, 2), pick(1, 3)};
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  for (int i = 0; i < spatial_rank; ++i) {
    // Rank 3 stays small so the reference is quick.
    c.shape.push_back(spatial_rank == 3 ? pick(1, 9) : kSizes[pick(0, std::size(kSizes) - 1)]);
    kernel.push_back(pick(1, 4));
    strides.push_back(pick(1, 3));
    dilations.push_back(allow_dilations ? pick(1, 2) : 1);
    pads_begin.push_back(pick(0, kernel.back() - 1));
    pads_end.push_back(pick(0, kernel.back() - 1));
  }
  std::vector<int64_t> pads = pads_begin;
  pads.insert(pads.end(), pads_end.begin(), pads_end.end());
  c.attrs.set("kernel_shape", kernel).set("strides", strides);
  if (allow_dilations) c.attrs.set("dilations", dilations);
  const int64_t mode = pick(0, 9);
  const char* auto_pad = mode == 0   ? "SAME_UPPER"
                         : mode == 1 ? "SAME_LOWER"
                         : mode == 2 ? "VALID"
                                     : "NOTSET";
  c.attrs.set("auto_pad", std::string(auto_pad));
  if (mode > 2) c.attrs.set("pads", pads).set("ceil_mode", pick(0, 1));
  c.description = "shape " + Shape(c.shape).to_string() + " auto_pad " + auto_pad;
  for (const auto& [name, value] : c.attrs) {
    if (const auto* list = std::get_if<std::vector<int64_t>>(&value)) {
      c.description += " " + name + " " + Shape(*list).to_string();
    } else if (const auto* one = std::get_if<int64_t>(&value)) {
      c.description += " " + name + " " + std::to_string(*one);
    }
  }
  return c;
}

// Calls fn(ctx, label) for every supported ISA at every thread count.
inline void ForEachIsaAndThreadCount(
    const std::function<void(const KernelContext&, const std::string&)>& fn) {
  for (int threads : kThreadCounts) {
    std::unique_ptr<threading::ThreadPool> pool = PoolWithThreads(threads);
    for (Isa isa : SupportedIsas()) {
      fn(KernelContext{pool.get(), isa},
         std::string(IsaName(isa)) + " threads=" + std::to_string(threads));
    }
  }
}

}  // namespace loom::kernels::testing
