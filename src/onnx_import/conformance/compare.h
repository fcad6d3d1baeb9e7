// Comparing a produced output with the suite's expected one, as the ONNX
// backend test runner does (onnx/backend/test/runner, assert_similar_outputs):
//  - dtypes and shapes must be equal;
//  - floating point: numpy.testing.assert_allclose(actual, expected, rtol,
//    atol), i.e. |actual - expected| <= atol + rtol * |expected| per element,
//    NaN equal to NaN, an infinity equal only to the same infinity;
//  - integers and bools: exact (compared as integers, never through double).
// The runner's defaults are rtol = 1e-3, atol = 1e-7.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loom/tensor.h"
#include "loom/value.h"

namespace loom::conformance {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

// Empty when `actual` matches `expected`; otherwise one line saying how it
// differs: the dtype or shape, or the first differing element (flat index
// and coordinates, expected vs actual, the allowed difference) and how many
// elements differ in all.
std::optional<std::string> CompareTensors(const Tensor& expected, const Tensor& actual,
                                          const Tolerance& tolerance = {});

// Whether one floating-point element is within tolerance (the rule above).
bool CloseEnough(double expected, double actual, const Tolerance& tolerance);

// CompareTensors for values (loom/value.h): the kinds must match (tensor,
// sequence, empty optional), sequences must have the same length, and each
// element compares as a tensor ("element 2: ..." on a mismatch).
std::optional<std::string> CompareValues(const Value& expected, const Value& actual,
                                         const Tolerance& tolerance = {});

}  // namespace loom::conformance
