// What a pipeline shows the outside: the "loom-data-*" threads of the global
// runtime, live iterators in describe() and its JSON, and the intra-op cap
// inside user functions. These use the global runtime; each passes whether
// it runs alone or after the others in one process.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/testing/json.h"
#include "data/testing/data_test_util.h"
#include "loom/runtime.h"
#include "platform/testing/fresh_process.h"
#include "platform/thread_identity.h"
#include "threading/parallel_for.h"

namespace loom::data {
namespace {

namespace cfg = config::threading;
using testing::ScalarOf;

std::vector<cfg::ThreadDescription> DataThreads(const cfg::Description& d) {
  std::vector<cfg::ThreadDescription> data;
  for (const cfg::ThreadDescription& t : d.threads) {
    if (t.pool == "data") data.push_back(t);
  }
  return data;
}

std::map<int, std::string> OsThreadNames() {
  std::map<int, std::string> names;
  for (const platform::OsThread& t : platform::ListProcessThreads()) names[t.tid] = t.name;
  return names;
}

const cfg::PipelineDescription* FindPipeline(const cfg::Description& d, int64_t id) {
  for (const cfg::PipelineDescription& p : d.data_pipelines) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

TEST(DataThreads, NoneBeforeTheFirstIterator) {
  platform::testing::ExpectInFreshProcess([] {
    ASSERT_TRUE(DataThreads(cfg::describe()).empty());
    for (const auto& [tid, name] : OsThreadNames()) {
      EXPECT_NE(name.rfind("loom-data-", 0), 0u) << "thread " << tid << " is " << name;
    }
    Iterator it = Dataset::range(3).make_iterator();
    EXPECT_TRUE(loom::runtime_started());
    EXPECT_EQ(DataThreads(cfg::describe()).size(),
              static_cast<size_t>(cfg::get_data_pipeline_threads()));
  });
}

TEST(DataThreads, DescribeAndProcListTheConfiguredNumber) {
  Iterator it = Dataset::range(3).map([](Element e) { return e; }, 2).make_iterator();
  const int expected = cfg::get_data_pipeline_threads();
  ASSERT_GE(expected, 1);
  const cfg::Description d = cfg::describe();
  EXPECT_TRUE(d.runtime_started);
  EXPECT_EQ(d.data_pipeline_threads.value, expected);
  const std::vector<cfg::ThreadDescription> data = DataThreads(d);
  ASSERT_EQ(data.size(), static_cast<size_t>(expected));
  std::set<std::string> names, want;
  for (int i = 0; i < expected; ++i) want.insert("loom-data-" + std::to_string(i));
  const std::map<int, std::string> os = OsThreadNames();
  for (const cfg::ThreadDescription& t : data) {
    names.insert(t.name);
    auto listed = os.find(t.tid);
    ASSERT_NE(listed, os.end()) << t.name << " (tid " << t.tid << ") not in /proc/self/task";
    EXPECT_EQ(listed->second, t.name.substr(0, 15));  // the kernel keeps 15 bytes
  }
  EXPECT_EQ(names, want);
  int named_data = 0;
  for (const auto& [tid, name] : os) named_data += name.rfind("loom-data-", 0) == 0 ? 1 : 0;
  EXPECT_EQ(named_data, expected);  // exactly one pool, created once
  EXPECT_EQ(testing::Drain(it), testing::Iota(0, 3));
}

TEST(DataPipelines, LiveIteratorIsDescribedUntilDestroyed) {
  int64_t id = 0;
  {
    Iterator it = Dataset::range(100)
                      .map([](Element e) { return e; }, 2)
                      .batch(5)
                      .prefetch(3)
                      .with_options({.max_intra_op_parallelism = 2})
                      .make_iterator();
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(it.next().has_value());
    id = it.stats().id;
    const cfg::Description d = cfg::describe();
    const cfg::PipelineDescription* p = FindPipeline(d, id);
    ASSERT_NE(p, nullptr) << "iterator " << id << " missing from describe()";
    EXPECT_EQ(p->cpu_budget, cfg::get_data_pipeline_threads());  // 0 → the pool's size
    EXPECT_EQ(p->max_intra_op_parallelism, 2);
    ASSERT_EQ(p->stages.size(), 2u);
    EXPECT_EQ(p->stages[0].name, "map#1");
    EXPECT_EQ(p->stages[0].parallelism, 2);
    EXPECT_FALSE(p->stages[0].autotuned);
    EXPECT_EQ(p->stages[1].name, "prefetch#3");
    EXPECT_EQ(p->stages[1].buffer_size, 3);
    EXPECT_EQ(p->stages[1].produced, 4);  // one per batch the consumer took
    EXPECT_GE(p->stages[0].produced, 20);
  }
  EXPECT_EQ(FindPipeline(cfg::describe(), id), nullptr);
}

TEST(DataPipelines, AutotunedStageShowsItsCeiling) {
  Iterator it = Dataset::range(10)
                    .map([](Element e) { return e; }, kAutotune)
                    .with_options({.cpu_budget = 1})
                    .make_iterator();
  const cfg::PipelineDescription stats = it.stats();
  ASSERT_EQ(stats.stages.size(), 1u);
  EXPECT_TRUE(stats.stages[0].autotuned);
  EXPECT_EQ(stats.stages[0].parallelism, 1);
  EXPECT_EQ(stats.stages[0].max_parallelism, 1);  // the budget, below the pool
  EXPECT_EQ(stats.cpu_budget, 1);
}

TEST(DataPipelines, JsonHasThreadsAndLivePipelines) {
  Iterator it = Dataset::range(10).prefetch(2).make_iterator();
  const int64_t id = it.stats().id;
  const loom::testing::Json j = loom::testing::Json::parse(cfg::describe().to_json());
  EXPECT_EQ(j.at("data_pipeline_threads").at("value").get<int>(), cfg::get_data_pipeline_threads());
  bool found = false;
  for (const loom::testing::Json& p : j.at("data_pipelines")) {
    if (p.at("id").get<int64_t>() != id) continue;
    found = true;
    ASSERT_EQ(p.at("stages").size(), 1u);
    EXPECT_EQ(p.at("stages")[0].at("name").get<std::string>(), "prefetch#1");
    EXPECT_EQ(p.at("stages")[0].at("buffer_size").get<int>(), 2);
  }
  EXPECT_TRUE(found);
  int data_threads = 0;
  for (const loom::testing::Json& t : j.at("threads"))
    data_threads += t.at("pool") == "data" ? 1 : 0;
  EXPECT_EQ(data_threads, cfg::get_data_pipeline_threads());
}

// ---- max_intra_op_parallelism inside user functions ----

// MaxParallelism over a 3-worker pool (4 threads uncapped), as seen by the
// map function of each element, for sequential and parallel maps.
std::vector<int> SeenInsideMap(const Options& options, int num_parallel_calls) {
  threading::ThreadPool intra(testing::PoolOptions(3));
  threading::ThreadPool data_pool(testing::PoolOptions(2));
  std::mutex mutex;
  std::vector<int> seen;
  Dataset ds = Dataset::range(20)
                   .map(
                       [&](Element e) {
                         std::lock_guard lock(mutex);
                         seen.push_back(threading::MaxParallelism(&intra));
                         return e;
                       },
                       num_parallel_calls)
                   .with_options(options);
  Iterator it = internal::MakeIteratorOnPool(ds, &data_pool);
  EXPECT_EQ(testing::Drain(it).size(), 20u);
  // The cap applies inside the function only, not to the consumer after.
  EXPECT_EQ(threading::MaxParallelism(&intra), 4);
  return seen;
}

TEST(IntraOpCap, DefaultIsOneThread) {
  for (int parallel : {0, 2}) {
    EXPECT_EQ(SeenInsideMap(Options{}, parallel), std::vector<int>(20, 1)) << parallel;
  }
}

TEST(IntraOpCap, SetValueCapsAndZeroMeansUncapped) {
  for (int parallel : {0, 2}) {
    EXPECT_EQ(SeenInsideMap({.max_intra_op_parallelism = 2}, parallel), std::vector<int>(20, 2));
    EXPECT_EQ(SeenInsideMap({.max_intra_op_parallelism = 0}, parallel), std::vector<int>(20, 4));
    EXPECT_EQ(SeenInsideMap({.max_intra_op_parallelism = 9}, parallel), std::vector<int>(20, 4));
  }
}

TEST(IntraOpCap, AppliesToFiltersAndGenerators) {
  threading::ThreadPool intra(testing::PoolOptions(3));
  std::vector<int> seen;
  Dataset ds = Dataset::from_generator([&]() -> Dataset::Generator {
                 seen.push_back(threading::MaxParallelism(&intra));
                 auto left = std::make_shared<int>(3);
                 return [&, left]() -> std::optional<Element> {
                   seen.push_back(threading::MaxParallelism(&intra));
                   if ((*left)-- == 0) return std::nullopt;
                   return testing::Scalar(*left);
                 };
               })
                   .filter([&](const Element&) {
                     seen.push_back(threading::MaxParallelism(&intra));
                     return true;
                   })
                   .with_options({.max_intra_op_parallelism = 3});
  EXPECT_EQ(testing::Drain(ds), (std::vector<int64_t>{2, 1, 0}));
  // make + 4 generator calls (the last one ends) + 3 predicate calls.
  EXPECT_EQ(seen, std::vector<int>(8, 3));
}

}  // namespace
}  // namespace loom::data
