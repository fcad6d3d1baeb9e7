#include "latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loom::cli {

std::vector<HistogramBucket> LatencyHistogram(const std::vector<double>& latencies_ms,
                                              int max_buckets) {
  if (latencies_ms.empty()) return {};
  const auto [min_it, max_it] = std::minmax_element(latencies_ms.begin(), latencies_ms.end());
  const double lo = *min_it, hi = *max_it;
  int count = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(latencies_ms.size()))));
  count = std::clamp(count, 1, std::max(max_buckets, 1));
  if (!(hi > lo) || lo <= 0) count = 1;
  const double ratio = count > 1 ? std::pow(hi / lo, 1.0 / count) : 1;
  std::vector<HistogramBucket> buckets(static_cast<size_t>(count));
  for (int b = 0; b < count; ++b) {
    buckets[b].lo_ms = b == 0 ? lo : buckets[b - 1].hi_ms;
    buckets[b].hi_ms = b + 1 == count ? hi : lo * std::pow(ratio, b + 1);
  }
  for (double value : latencies_ms) {
    int b = count > 1 ? static_cast<int>(std::floor(std::log(value / lo) / std::log(ratio))) : 0;
    b = std::clamp(b, 0, count - 1);  // the largest value (and rounding) into the last
    ++buckets[b].count;
  }
  return buckets;
}

std::vector<std::string> HistogramLines(const std::vector<HistogramBucket>& buckets,
                                        int bar_width) {
  int most = 0;
  size_t range_width = 0, count_width = 0;
  std::vector<std::string> ranges;
  for (const HistogramBucket& bucket : buckets) {
    char range[64];
    std::snprintf(range, sizeof(range), "%.3f-%.3f ms", bucket.lo_ms, bucket.hi_ms);
    ranges.emplace_back(range);
    range_width = std::max(range_width, ranges.back().size());
    count_width = std::max(count_width, std::to_string(bucket.count).size());
    most = std::max(most, bucket.count);
  }
  std::vector<std::string> lines;
  for (size_t i = 0; i < buckets.size(); ++i) {
    const int count = buckets[i].count;
    int bar =
        most > 0 ? static_cast<int>(std::lround(static_cast<double>(count) * bar_width / most)) : 0;
    if (count > 0) bar = std::max(bar, 1);
    const std::string count_text = std::to_string(count);
    lines.push_back(ranges[i] + std::string(range_width - ranges[i].size() + 2, ' ') +
                    std::string(static_cast<size_t>(bar), '#') +
                    std::string(static_cast<size_t>(bar_width - bar) + 2, ' ') +
                    std::string(count_width - count_text.size(), ' ') + count_text);
  }
  return lines;
}

}  // namespace loom::cli
