// Test helpers shared by the shape_ops tests: building small tensors, running
// a kernel at every thread count and ISA level, and checking error messages.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/op_kernel.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"
#include "threading/thread_pool.h"

namespace loom::kernels::testing {

inline constexpr DType kAllDTypes[] = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
    DType::kUInt8,   DType::kInt16,   DType::kUInt16,  DType::kInt32,    DType::kUInt32,
    DType::kInt64,   DType::kUInt64,  DType::kBool};

inline Tensor Int64s(const std::vector<int64_t>& values) {
  return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
}

inline Tensor Floats(Shape shape, const std::vector<float>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

// Runs a one-output kernel on the calling thread.
inline Tensor RunOne(KernelFn fn, const Attributes& attrs,
                     std::initializer_list<const Tensor*> inputs) {
  std::vector<Tensor> out = CallKernel(fn, {}, attrs, inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? Tensor() : out[0];
}

// Runs `fn` once per (ISA, thread count) and expects every output to be
// bit-for-bit equal to `expected`.
inline void ExpectEverywhere(KernelFn fn, const Attributes& attrs,
                             std::initializer_list<const Tensor*> inputs,
                             const std::vector<Tensor>& expected) {
  for (Isa isa : SupportedIsas()) {
    for (int threads : kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      const std::vector<Tensor> actual = CallKernel(fn, {pool.get(), isa}, attrs, inputs);
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t i = 0; i < actual.size(); ++i) {
        EXPECT_TRUE(BitwiseEqual(actual[i], expected[i]))
            << "output " << i << " isa " << IsaName(isa) << " threads " << threads << ": "
            << CompareTensors(actual[i], expected[i], 0, 0) << " (shape "
            << actual[i].shape().to_string() << " vs " << expected[i].shape().to_string() << ")";
      }
    }
  }
}

// Expects InvalidArgumentError starting with "<op>:" and containing each of
// `parts`.
inline void ExpectError(KernelFn fn, const Attributes& attrs,
                        std::initializer_list<const Tensor*> inputs, const std::string& op,
                        std::initializer_list<std::string> parts) {
  try {
    CallKernel(fn, {}, attrs, inputs);
    ADD_FAILURE() << "expected an InvalidArgumentError from " << op;
  } catch (const InvalidArgumentError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(op + ": ", 0), 0u) << message;
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

// A tensor of `shape` holding `values` (the element type deduced).
template <typename T>
Tensor Of(Shape shape, const std::vector<T>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

}  // namespace loom::kernels::testing
