// Helpers shared by the kernel tests: pools of a given size, the ISA levels
// this CPU runs, random tensors and tolerant comparison.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "kernels/isa.h"
#include "kernels/op_kernel.h"
#include "loom/tensor.h"
#include "threading/thread_pool.h"

namespace loom::kernels::testing {

// The intra-op thread counts every kernel is tested at.
inline constexpr int kThreadCounts[] = {1, 2, 3, 7};

// A pool giving `threads` threads in ParallelFor (threads - 1 workers plus
// the caller). threads == 1 returns a pool with no workers.
std::unique_ptr<threading::ThreadPool> PoolWithThreads(int threads);

// The ISA levels this CPU supports, portable first.
std::vector<Isa> SupportedIsas();

// Uniform values in [low, high) for float dtypes, integers in
// [low, high] for integer dtypes (low clamped to 0 for unsigned ones), and
// random 0/1 for bool. Integer bounds must fit int64.
Tensor RandomTensor(DType dtype, Shape shape, uint32_t seed, double low = -1.0, double high = 1.0);

// Element `i` of any dtype as a double (bool: 0/1, float16 and bfloat16
// converted).
double ElementAsDouble(const Tensor& tensor, int64_t i);

// Empty when equal within |a - e| <= atol + rtol * |e| (NaN equals NaN,
// infinities must match exactly); otherwise a message naming the first
// mismatch. Dtypes and shapes must be equal.
std::string CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol);

// Calls a kernel that has one output and returns it (a test failure if it
// returns another number of outputs).
Tensor CallSingleOutput(KernelFn fn, std::initializer_list<const Tensor*> inputs,
                        const Attributes& attrs = {}, threading::ThreadPool* pool = nullptr,
                        Isa isa = Isa::kPortable);

// The elements of a tensor of C++ type T, in order.
template <typename T>
std::vector<T> TensorValues(const Tensor& t) {
  const T* p = t.data<T>();
  return std::vector<T>(p, p + t.num_elements());
}

// The message of the InvalidArgumentError `fn` throws, or "no error".
std::string ErrorMessageOf(const std::function<void()>& fn);

// The message of the InvalidArgumentError the kernel throws on these
// inputs (portable ISA, no pool), or "no error".
std::string KernelErrorOf(KernelFn fn, std::initializer_list<const Tensor*> inputs,
                          const Attributes& attrs = {});

// Bit-for-bit equality of dtype, shape and bytes.
bool BitwiseEqual(const Tensor& a, const Tensor& b);

}  // namespace loom::kernels::testing

// EXPECT_TENSORS_NEAR(actual, expected, rtol, atol)
#define EXPECT_TENSORS_NEAR(actual, expected, rtol, atol)                               \
  do {                                                                                  \
    const std::string loom_mismatch =                                                   \
        ::loom::kernels::testing::CompareTensors((actual), (expected), (rtol), (atol)); \
    EXPECT_TRUE(loom_mismatch.empty()) << loom_mismatch;                                \
  } while (0)
