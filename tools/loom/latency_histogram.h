// The latency histogram in `loom run`'s report: log-spaced buckets between
// the fastest and the slowest run, so a tail a few times the median gets
// buckets of its own instead of squashing every other run into one.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

struct HistogramBucket {
  double lo_ms = 0, hi_ms = 0;  // [lo, hi); the last bucket includes hi
  int count = 0;
};

// Buckets from the smallest to the largest of `latencies_ms` (all > 0), each
// spanning the same ratio hi / lo: ceil(sqrt(n)) of them, at most
// `max_buckets` (more would leave most of them empty). One bucket when all
// values are equal; none for no values.
std::vector<HistogramBucket> LatencyHistogram(const std::vector<double>& latencies_ms,
                                              int max_buckets = 8);

// One line a bucket, "0.950-0.962 ms  ##########  9", the fullest bucket's
// bar `bar_width` characters long and the others in proportion (a bucket
// with any runs gets at least one '#').
std::vector<std::string> HistogramLines(const std::vector<HistogramBucket>& buckets,
                                        int bar_width = 30);

}  // namespace loom::cli
