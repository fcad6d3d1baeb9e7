#include "kernels/testing/kernel_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>

#include "kernels/reference/element_access.h"
#include "loom/errors.h"

namespace loom::kernels::testing {

std::unique_ptr<threading::ThreadPool> PoolWithThreads(int threads) {
  threading::ThreadPoolOptions options;
  options.name = "kerneltest";
  options.num_threads = threads - 1;  // the caller is the last thread
  options.spin_wait_us = 20;
  return std::make_unique<threading::ThreadPool>(options);
}

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (IsaSupported(isa)) isas.push_back(isa);
  }
  return isas;
}

namespace {
template <typename T>
void FillReal(Tensor& t, std::mt19937& rng, double low, double high) {
  std::uniform_real_distribution<double> dist(low, high);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = static_cast<T>(dist(rng));
}
template <typename T>
void FillInt(Tensor& t, std::mt19937& rng, double low, double high) {
  std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(std::ceil(low)),
                                              static_cast<int64_t>(std::floor(high)));
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = static_cast<T>(dist(rng));
}
template <typename Half>
void FillHalf(Tensor& t, std::mt19937& rng, double low, double high) {
  std::uniform_real_distribution<float> dist(static_cast<float>(low), static_cast<float>(high));
  Half* p = t.data<Half>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = Half(dist(rng));
}
}  // namespace

Tensor RandomTensor(DType dtype, Shape shape, uint32_t seed, double low, double high) {
  Tensor t(dtype, std::move(shape));
  std::mt19937 rng(seed);
  switch (dtype) {
    case DType::kFloat32:
      FillReal<float>(t, rng, low, high);
      break;
    case DType::kFloat64:
      FillReal<double>(t, rng, low, high);
      break;
    case DType::kFloat16:
      FillHalf<Float16>(t, rng, low, high);
      break;
    case DType::kBFloat16:
      FillHalf<BFloat16>(t, rng, low, high);
      break;
    case DType::kInt8:
      FillInt<int8_t>(t, rng, low, high);
      break;
    case DType::kUInt8:
      FillInt<uint8_t>(t, rng, std::max(low, 0.0), high);
      break;
    case DType::kInt32:
      FillInt<int32_t>(t, rng, low, high);
      break;
    case DType::kInt64:
      FillInt<int64_t>(t, rng, low, high);
      break;
    case DType::kInt16:
      FillInt<int16_t>(t, rng, low, high);
      break;
    case DType::kUInt16:
      FillInt<uint16_t>(t, rng, std::max(low, 0.0), high);
      break;
    case DType::kUInt32:
      FillInt<uint32_t>(t, rng, std::max(low, 0.0), high);
      break;
    case DType::kUInt64:
      FillInt<uint64_t>(t, rng, std::max(low, 0.0), high);
      break;
    case DType::kBool: {
      bool* p = t.data<bool>();
      for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = (rng() & 1) != 0;
      break;
    }
    case DType::kString: {
      // Short lowercase words, repeats likely (so Equal and Unique see some).
      std::string* p = t.data<std::string>();
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        p[i].assign(rng() % 4, 'a');
        for (char& c : p[i]) c = static_cast<char>('a' + rng() % 3);
      }
      break;
    }
  }
  return t;
}

double ElementAsDouble(const Tensor& tensor, int64_t i) { return ReadElementAsDouble(tensor, i); }

std::string CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  std::ostringstream out;
  if (actual.dtype() != expected.dtype()) {
    out << "dtype " << dtype_name(actual.dtype()) << " != expected "
        << dtype_name(expected.dtype());
    return out.str();
  }
  if (!(actual.shape() == expected.shape())) {
    out << "shape " << actual.shape().to_string() << " != expected "
        << expected.shape().to_string();
    return out.str();
  }
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    const double a = ElementAsDouble(actual, i);
    const double e = ElementAsDouble(expected, i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (std::isinf(e) || std::isinf(a)) {
      if (a == e) continue;
    } else if (std::fabs(a - e) <= atol + rtol * std::fabs(e)) {
      continue;
    }
    out << "element " << i << " of shape " << actual.shape().to_string() << ": got " << a
        << ", expected " << e << " (rtol " << rtol << ", atol " << atol << ")";
    return out.str();
  }
  return "";
}

Tensor CallSingleOutput(KernelFn fn, std::initializer_list<const Tensor*> inputs,
                        const Attributes& attrs, threading::ThreadPool* pool, Isa isa) {
  std::vector<Tensor> out = CallKernel(fn, {pool, isa}, attrs, inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

std::string ErrorMessageOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

std::string KernelErrorOf(KernelFn fn, std::initializer_list<const Tensor*> inputs,
                          const Attributes& attrs) {
  return ErrorMessageOf([&] { CallKernel(fn, {}, attrs, inputs); });
}

bool BitwiseEqual(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::kString && b.dtype() == DType::kString) {
    return a.shape() == b.shape() &&
           std::equal(a.data<std::string>(), a.data<std::string>() + a.num_elements(),
                      b.data<std::string>());
  }
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0);
}

}  // namespace loom::kernels::testing
