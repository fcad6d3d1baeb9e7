// Helpers shared by the loom::data tests: reading int64 scalars out of
// elements, draining iterators, a local pool, and catching errors.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "data/iterator_on_pool.h"
#include "loom/data.h"
#include "threading/thread_pool.h"

namespace loom::data::testing {

// The value of a one-component int64 scalar element (what range yields).
inline int64_t ScalarOf(const Element& element) {
  EXPECT_EQ(element.size(), 1u);
  EXPECT_EQ(element.at(0).dtype(), DType::kInt64);
  EXPECT_EQ(element.at(0).num_elements(), 1);
  return *element.at(0).data<int64_t>();
}

inline Element Scalar(int64_t value) { return {Tensor::from_vector<int64_t>(Shape(), {value})}; }

// Every remaining element of `it` as int64 scalars, in order.
inline std::vector<int64_t> Drain(Iterator& it) {
  std::vector<int64_t> values;
  while (std::optional<Element> element = it.next()) values.push_back(ScalarOf(*element));
  return values;
}

// A whole pass over `dataset` on the global data pool.
inline std::vector<int64_t> Drain(const Dataset& dataset) {
  Iterator it = dataset.make_iterator();
  return Drain(it);
}

// The bytes of a 1-D uint8 element (read_files, read_lines).
inline std::string BytesOf(const Element& element) {
  EXPECT_EQ(element.size(), 1u);
  const Tensor& t = element.at(0);
  EXPECT_EQ(t.dtype(), DType::kUInt8);
  EXPECT_EQ(t.shape().rank(), 1);
  const auto* p = static_cast<const char*>(t.raw_data());
  return p == nullptr ? std::string() : std::string(p, static_cast<size_t>(t.num_elements()));
}

inline std::vector<int64_t> Iota(int64_t start, int64_t stop) {
  std::vector<int64_t> values;
  for (int64_t v = start; v < stop; ++v) values.push_back(v);
  return values;
}

// A private pool, so each test picks its own size within one process.
inline threading::ThreadPoolOptions PoolOptions(int threads) {
  threading::ThreadPoolOptions options;
  options.name = "dtest";
  options.num_threads = threads;
  options.spin_wait_us = 0;  // a blocked worker costs nothing on a busy CI box
  return options;
}

// A map function that adds nothing but records how many calls ran at once.
class ConcurrencyProbe {
 public:
  void Enter() {
    const int now = running_.fetch_add(1) + 1;
    int seen = max_.load();
    while (now > seen && !max_.compare_exchange_weak(seen, now)) {
    }
    calls_.fetch_add(1);
  }
  void Leave() { running_.fetch_sub(1); }
  int max() const { return max_.load(); }
  int64_t calls() const { return calls_.load(); }

 private:
  std::atomic<int> running_{0};
  std::atomic<int> max_{0};
  std::atomic<int64_t> calls_{0};
};

// Aborts the process, naming `what`, if it is still alive after `limit`:
// a deadlock then fails its test instead of hanging the whole run. The
// test body runs on the test's own thread, so ASSERTs work as usual.
class Watchdog {
 public:
  Watchdog(std::string what, std::chrono::milliseconds limit)
      : thread_([this, what = std::move(what), limit] {
          std::unique_lock lock(mutex_);
          if (!done_cv_.wait_for(lock, limit, [&] { return done_; })) {
            std::fprintf(stderr, "Watchdog: '%s' did not finish within %lld ms (deadlock?)\n",
                         what.c_str(), static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

// The exception `call` throws, or "(no exception)".
inline std::string MessageOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace loom::data::testing
