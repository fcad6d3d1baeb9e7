// Control flow end to end: ONNX If, Loop and Scan imported (captures as
// implicit inputs), typed, written back, and run by sessions. Expected
// values come from plain C++ loops in the tests, never from Loom.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"
#include "platform/testing/sanitizer_threads.h"
#include "platform/thread_identity.h"

namespace loom::onnx_import::testing {
namespace {

constexpr auto kFloat = onnx::TensorProto::FLOAT;
constexpr auto kInt64 = onnx::TensorProto::INT64;
constexpr auto kBool = onnx::TensorProto::BOOL;

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}
Tensor Int64(int64_t value) { return Tensor::from_vector(Shape(), std::vector<int64_t>{value}); }
Tensor Bool(bool value) { return Tensor::from_vector(Shape(), std::vector<bool>{value}); }

SessionOptions Threads(int intra) {
  SessionOptions options;
  options.use_private_thread_pools = true;
  options.intra_op_threads = intra;
  options.inter_op_threads = 1;
  return options;
}

std::vector<Tensor> RunModel(const std::string& bytes, const std::map<std::string, Tensor>& feeds,
                             int intra = 1, const RunOptions& run_options = {}) {
  Session session(load_onnx_model_from_bytes(bytes), Threads(intra));
  return session.run(feeds, {}, run_options);
}

// If(cond) then x + y (both captured) else x * w (w a captured initializer).
std::string IfModel() {
  TestModel m(13);
  m.Input("cond", kBool, {});
  m.Input("x", kFloat, {3});
  m.Input("y", kFloat, {3});
  m.Initializer(Floats({3}, {2, 3, 4}), "w");
  TestModel then_branch;
  then_branch.Node("Add", {"x", "y"}, {"t"});
  then_branch.Output("t", kFloat, {3});
  TestModel else_branch;
  else_branch.Node("Mul", {"x", "w"}, {"e"});
  else_branch.Output("e", kFloat, {3});
  onnx::NodeProto* node = m.Node("If", {"cond"}, {"z"}, "if");
  SetGraph(node, "then_branch", then_branch.graph());
  SetGraph(node, "else_branch", else_branch.graph());
  m.Output("z", kFloat, {3});
  return m.Serialize();
}

// Loop(M?, cond?, s) with body: s' = s + x (x captured), cond' from the
// body's `cond_rule`, scan output s'. cond_rule: "keep" passes cond on,
// "below" is iter + 1 < limit (limit a captured int64), "false" stops.
std::string LoopModel(bool with_m, bool with_cond, const std::string& cond_rule) {
  TestModel m(13);
  if (with_m) m.Input("M", kInt64, {});
  if (with_cond) m.Input("cond", kBool, {});
  m.Input("s0", kFloat, {2});
  m.Input("x", kFloat, {2});
  m.Input("limit", kInt64, {});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  body.Input("s", kFloat, {2});
  body.Node("Add", {"s", "x"}, {"s_next"});
  body.Node("Identity", {"s_next"}, {"scan"});
  if (cond_rule == "keep") {
    body.Node("Identity", {"c"}, {"c_next"});
  } else if (cond_rule == "below") {
    body.Initializer(Int64(1), "one");
    body.Node("Add", {"i", "one"}, {"i1"});
    body.Node("Less", {"i1", "limit"}, {"c_next"});
  } else {
    body.Initializer(Bool(false), "no");
    body.Node("Identity", {"no"}, {"c_next"});
  }
  body.Output("c_next", kBool, {});
  body.Output("s_next", kFloat, {2});
  body.Output("scan", kFloat, {2});
  onnx::NodeProto* node = m.Node("Loop", {with_m ? "M" : "", with_cond ? "cond" : "", "s0"},
                                 {"s_final", "scans"}, "loop");
  SetGraph(node, "body", body.graph());
  m.Output("s_final", kFloat, {2});
  m.UntypedOutput("scans");
  return m.Serialize();
}

struct LoopExpectation {
  std::vector<float> s_final;
  std::vector<std::vector<float>> scans;
};

// The reference: the same loop in C++.
LoopExpectation ReferenceLoop(std::optional<int64_t> m, std::optional<bool> cond,
                              const std::string& cond_rule, std::vector<float> s,
                              const std::vector<float>& x, int64_t limit) {
  LoopExpectation out;
  bool c = cond.value_or(true);
  for (int64_t i = 0; (!m || i < *m) && c; ++i) {
    for (size_t k = 0; k < s.size(); ++k) s[k] += x[k];
    out.scans.push_back(s);
    if (cond_rule == "below") c = i + 1 < limit;
    if (cond_rule == "false") c = false;
  }
  out.s_final = s;
  return out;
}

void ExpectLoop(const std::vector<Tensor>& got, const LoopExpectation& want) {
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(Values(got[0]), want.s_final);
  ASSERT_EQ(got[1].shape(), Shape({static_cast<int64_t>(want.scans.size()), 2}));
  std::vector<float> flat;
  for (const auto& row : want.scans) flat.insert(flat.end(), row.begin(), row.end());
  EXPECT_EQ(Values(got[1]), flat);
}

TEST(ControlFlowImport, IfCapturesBecomeImplicitInputs) {
  const Graph loaded = load_onnx_model_from_bytes(IfModel());
  ASSERT_EQ(loaded.nodes.size(), 1u);
  EXPECT_EQ(loaded.nodes[0].implicit_inputs, 3);
  EXPECT_EQ(loaded.nodes[0].inputs, (std::vector<std::string>{"cond", "x", "y", "w"}));
  // The session's graph is typed (loading only verifies); at level 0 the
  // captures stay as they are.
  SessionOptions unoptimized;
  unoptimized.optimization_level = 0;
  const Session session(load_onnx_model_from_bytes(IfModel()), unoptimized);
  const Node& node = session.graph().nodes[0];
  for (const char* branch : {"then_branch", "else_branch"}) {
    const GraphAttribute sub = node.attributes.get_graph(branch);
    ASSERT_EQ(sub->inputs.size(), 3u) << branch;
    EXPECT_EQ(sub->inputs[0].name, "x");
    EXPECT_EQ(sub->inputs[2].name, "w");
    EXPECT_EQ(sub->inputs[2].type.to_string(), "float32[3]") << branch;
  }
  // Optimized, the constant w moves into the branches as an initializer.
  const Session optimized(load_onnx_model_from_bytes(IfModel()));
  const Node& moved = optimized.graph().nodes[0];
  EXPECT_EQ(moved.inputs, (std::vector<std::string>{"cond", "x", "y"}));
  EXPECT_EQ(moved.implicit_inputs, 2);
  const GraphAttribute else_branch = moved.attributes.get_graph("else_branch");
  EXPECT_EQ(else_branch->inputs.size(), 2u);
  EXPECT_EQ(else_branch->initializers.count("w"), 1u);
}

TEST(ControlFlowImport, NestedSubgraphCapturesPropagateOutward) {
  // Loop body → If → then_branch reads "w", a graph input two levels out.
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("s0", kFloat, {2});
  m.Input("w", kFloat, {2});
  TestModel then_branch;
  then_branch.Node("Add", {"s", "w"}, {"t"});
  then_branch.Output("t", kFloat, {2});
  TestModel else_branch;
  else_branch.Node("Sub", {"s", "w"}, {"e"});
  else_branch.Output("e", kFloat, {2});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  body.Input("s", kFloat, {2});
  body.Initializer(Int64(2), "two");
  body.Node("Less", {"i", "two"}, {"early"});
  onnx::NodeProto* inner = body.Node("If", {"early"}, {"s_next"}, "inner_if");
  SetGraph(inner, "then_branch", then_branch.graph());
  SetGraph(inner, "else_branch", else_branch.graph());
  body.Node("Identity", {"c"}, {"c_next"});
  body.Output("c_next", kBool, {});
  body.Output("s_next", kFloat, {2});
  onnx::NodeProto* loop = m.Node("Loop", {"M", "", "s0"}, {"s_final"}, "loop");
  SetGraph(loop, "body", body.graph());
  m.Output("s_final", kFloat, {2});
  const std::string bytes = m.Serialize();

  const Graph g = load_onnx_model_from_bytes(bytes);
  const Node& node = g.nodes[0];
  EXPECT_EQ(node.implicit_inputs, 1);
  EXPECT_EQ(node.inputs.back(), "w");
  const GraphAttribute loop_body = node.attributes.get_graph("body");
  EXPECT_EQ(loop_body->inputs.back().name, "w");
  const Node* nested = loop_body->find_node("inner_if");
  ASSERT_NE(nested, nullptr);
  // The If reads s (a body input) and w (the body's capture).
  EXPECT_EQ(nested->implicit_inputs, 2);
  EXPECT_EQ(nested->inputs, (std::vector<std::string>{"early", "s", "w"}));

  // Run: iterations 0 and 1 add w, 2 and 3 subtract it.
  const std::vector<float> w = {0.5f, -1.5f};
  std::vector<float> s = {1, 2};
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 2; ++k) s[k] += i < 2 ? w[k] : -w[k];
  }
  for (int threads : {1, 2, 3, 7}) {
    const auto got = RunModel(
        bytes, {{"M", Int64(4)}, {"s0", Floats({2}, {1, 2})}, {"w", Floats({2}, w)}}, threads);
    EXPECT_EQ(Values(got[0]), s) << threads << " threads";
  }
}

TEST(ControlFlowImport, UndefinedOuterNameIsRefused) {
  TestModel m(13);
  m.Input("cond", kBool, {});
  TestModel branch;
  branch.Node("Neg", {"nowhere"}, {"t"});
  branch.Output("t", kFloat, {1});
  onnx::NodeProto* node = m.Node("If", {"cond"}, {"z"}, "the_if");
  SetGraph(node, "then_branch", branch.graph());
  SetGraph(node, "else_branch", branch.graph());
  m.Output("z", kFloat, {1});
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error, "the_if")) << error;
  EXPECT_TRUE(Contains(error, "'nowhere'")) << error;
}

TEST(ControlFlowRun, IfTakesEitherBranch) {
  const std::string bytes = IfModel();
  const Tensor x = Floats({3}, {1, 2, 3});
  const Tensor y = Floats({3}, {10, 20, 30});
  for (int threads : {1, 2, 3, 7}) {
    EXPECT_EQ(Values(RunModel(bytes, {{"cond", Bool(true)}, {"x", x}, {"y", y}}, threads)[0]),
              (std::vector<float>{11, 22, 33}));
    EXPECT_EQ(Values(RunModel(bytes, {{"cond", Bool(false)}, {"x", x}, {"y", y}}, threads)[0]),
              (std::vector<float>{2, 6, 12}));
  }
}

TEST(ControlFlowRun, IfConditionMustBeOneBool) {
  Session session(load_onnx_model_from_bytes(IfModel()));
  const Tensor two = Tensor::from_vector(Shape({2}), std::vector<bool>{true, false});
  try {
    session.run({{"cond", two}, {"x", Floats({3}, {1, 2, 3})}, {"y", Floats({3}, {1, 2, 3})}});
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "cond")) << e.what();
  }
}

TEST(ControlFlowRun, LoopForms) {
  const std::vector<float> s0 = {1, -1};
  const std::vector<float> x = {0.5f, 2};
  struct Case {
    bool with_m, with_cond;
    std::string rule;
    int64_t m;
    bool cond;
    int64_t limit;
  };
  const std::vector<Case> cases = {
      {true, false, "keep", 5, true, 0},    // M only
      {false, true, "below", 0, true, 4},   // cond only: a while loop
      {true, true, "below", 2, true, 4},    // both: M stops first
      {true, true, "below", 9, true, 3},    // both: cond stops first
      {false, false, "false", 0, true, 0},  // neither: the body's cond stops it
      {true, false, "keep", 0, true, 0},    // zero iterations
      {false, true, "keep", 0, false, 0},   // cond false from the start
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.with_m ? "M " : "") + (c.with_cond ? "cond " : "") + c.rule +
                 " m=" + std::to_string(c.m) + " limit=" + std::to_string(c.limit));
    const std::string bytes = LoopModel(c.with_m, c.with_cond, c.rule);
    std::map<std::string, Tensor> feeds = {
        {"s0", Floats({2}, s0)}, {"x", Floats({2}, x)}, {"limit", Int64(c.limit)}};
    if (c.with_m) feeds["M"] = Int64(c.m);
    if (c.with_cond) feeds["cond"] = Bool(c.cond);
    const LoopExpectation want = ReferenceLoop(
        c.with_m ? std::optional<int64_t>(c.m) : std::nullopt,
        c.with_cond ? std::optional<bool>(c.cond) : std::nullopt, c.rule, s0, x, c.limit);
    for (int threads : {1, 2}) ExpectLoop(RunModel(bytes, feeds, threads), want);
  }
}

TEST(ControlFlowRun, LoopResultsAreTheSameAtEveryThreadCount) {
  // h = Tanh(MatMul(h, W) + x) ten times, with W [256, 256] large enough
  // for the intra-op pool to split the MatMul.
  constexpr int kN = 256;
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("h0", kFloat, {16, kN});
  m.Input("x", kFloat, {16, kN});
  std::vector<float> w(kN * kN);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 37) % 101) / 1000.f - 0.05f;
  m.Initializer(Floats({kN, kN}, w), "W");
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  body.Input("h", kFloat, {16, kN});
  body.Node("MatMul", {"h", "W"}, {"hw"});
  body.Node("Add", {"hw", "x"}, {"pre"});
  body.Node("Tanh", {"pre"}, {"h_next"});
  body.Node("Identity", {"c"}, {"c_next"});
  body.Output("c_next", kBool, {});
  body.Output("h_next", kFloat, {16, kN});
  onnx::NodeProto* node = m.Node("Loop", {"M", "", "h0"}, {"h_final"}, "rnn");
  SetGraph(node, "body", body.graph());
  m.Output("h_final", kFloat, {16, kN});
  const std::string bytes = m.Serialize();
  std::vector<float> h0(16 * kN), x(16 * kN);
  for (size_t i = 0; i < h0.size(); ++i) {
    h0[i] = static_cast<float>(i % 13) / 13.f - 0.5f;
    x[i] = static_cast<float>(i % 7) / 7.f - 0.5f;
  }
  const std::map<std::string, Tensor> feeds = {
      {"M", Int64(10)}, {"h0", Floats({16, kN}, h0)}, {"x", Floats({16, kN}, x)}};
  // The reference: the same recurrence in double.
  std::vector<double> h(h0.begin(), h0.end());
  for (int step = 0; step < 10; ++step) {
    std::vector<double> next(h.size());
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < kN; ++c) {
        double sum = x[r * kN + c];
        for (int k = 0; k < kN; ++k) sum += h[r * kN + k] * w[k * kN + c];
        next[r * kN + c] = std::tanh(sum);
      }
    }
    h = next;
  }
  const std::vector<float> one_thread = Values(RunModel(bytes, feeds, 1)[0]);
  for (size_t i = 0; i < h.size(); ++i) ASSERT_NEAR(one_thread[i], h[i], 1e-4) << i;
  for (int threads : {2, 3, 7}) {
    EXPECT_EQ(Values(RunModel(bytes, feeds, threads)[0]), one_thread) << threads << " threads";
  }
}

TEST(ControlFlowRun, LoopCarriedValueMayGrow) {
  // s' = Concat(s, s + 1): the carried value doubles each iteration, so its
  // type is [?] after the first, not the declared [1].
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("s0", kFloat, {1});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  body.Input("s", kFloat, {1});
  body.Initializer(Floats({1}, {1}), "one");
  body.Node("Add", {"s", "one"}, {"s1"});
  SetInt(body.Node("Concat", {"s", "s1"}, {"s_next"}), "axis", 0);
  body.Node("Identity", {"c"}, {"c_next"});
  body.Output("c_next", kBool, {});
  body.Output("s_next", kFloat, {1});
  onnx::NodeProto* node = m.Node("Loop", {"M", "", "s0"}, {"s_final"}, "grow");
  SetGraph(node, "body", body.graph());
  m.UntypedOutput("s_final");
  std::vector<float> want = {0};
  for (int i = 0; i < 3; ++i) {
    const size_t n = want.size();
    for (size_t k = 0; k < n; ++k) want.push_back(want[k] + 1);
  }
  const auto got = RunModel(m.Serialize(), {{"M", Int64(3)}, {"s0", Floats({1}, {0})}});
  EXPECT_EQ(got[0].shape(), Shape({8}));
  EXPECT_EQ(Values(got[0]), want);
}

TEST(ControlFlowRun, LoopNegativeTripCountIsRefused) {
  Session session(load_onnx_model_from_bytes(LoopModel(true, false, "keep")));
  try {
    session.run({{"M", Int64(-1)},
                 {"s0", Floats({2}, {0, 0})},
                 {"x", Floats({2}, {1, 1})},
                 {"limit", Int64(0)}});
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "node 'loop'")) << e.what();
    EXPECT_TRUE(Contains(e.what(), "negative")) << e.what();
  }
}

TEST(ControlFlowRun, DeadlineAndCancellationStopALongLoop) {
  Session session(load_onnx_model_from_bytes(LoopModel(true, false, "keep")), Threads(2));
  const std::map<std::string, Tensor> feeds = {{"M", Int64(int64_t{1} << 40)},
                                               {"s0", Floats({2}, {0, 0})},
                                               {"x", Floats({2}, {1, 1})},
                                               {"limit", Int64(0)}};
  RunOptions deadline;
  deadline.timeout = std::chrono::milliseconds(50);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(session.run(feeds, {"s_final"}, deadline), DeadlineExceededError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  RunOptions cancel;
  cancel.cancellation = CancellationToken();
  std::thread canceller([token = *cancel.cancellation]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    token.cancel();
  });
  EXPECT_THROW(session.run(feeds, {"s_final"}, cancel), CancelledError);
  canceller.join();
}

TEST(ControlFlowRun, SubgraphValuesCountInTheRunsMemory) {
  // 1000 iterations keep 1000 scan elements of 256 floats (1 KiB each)
  // until they are stacked: about 2 MiB live at the peak (the elements and
  // the stacked output).
  const std::vector<float> zeros(256, 0), ones(256, 1);
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("s0", kFloat, {256});
  m.Input("x", kFloat, {256});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  body.Input("s", kFloat, {256});
  body.Node("Add", {"s", "x"}, {"s_next"});
  body.Node("Identity", {"c"}, {"c_next"});
  body.Node("Neg", {"s_next"}, {"scan"});
  body.Output("c_next", kBool, {});
  body.Output("s_next", kFloat, {256});
  body.Output("scan", kFloat, {256});
  onnx::NodeProto* node = m.Node("Loop", {"M", "", "s0"}, {"s_final", "scans"}, "loop");
  SetGraph(node, "body", body.graph());
  m.Output("s_final", kFloat, {256});
  m.UntypedOutput("scans");
  const std::map<std::string, Tensor> feeds = {
      {"M", Int64(1000)}, {"s0", Floats({256}, zeros)}, {"x", Floats({256}, ones)}};
  RunStats stats;
  Session(load_onnx_model_from_bytes(m.Serialize())).run(feeds, {}, {}, &stats);
  EXPECT_GE(stats.peak_bytes, 1000 * 256 * 4);
  SessionOptions capped;
  capped.max_memory_bytes = 512 * 1024;
  Session small(load_onnx_model_from_bytes(m.Serialize()), capped);
  try {
    small.run(feeds);
    FAIL() << "expected the memory cap to stop the run";
  } catch (const RuntimeError& e) {
    EXPECT_TRUE(Contains(e.what(), "node 'loop'")) << e.what();
  }
}

TEST(ControlFlowRun, RunsOnTheSessionsThreadsOnly) {
  Session session(load_onnx_model_from_bytes(LoopModel(true, false, "keep")), Threads(3));
  const std::map<std::string, Tensor> feeds = {{"M", Int64(200)},
                                               {"s0", Floats({2}, {0, 0})},
                                               {"x", Floats({2}, {1, 1})},
                                               {"limit", Int64(0)}};
  session.run(feeds);  // the pools exist from here on
  const size_t before = platform::ListProcessThreads().size();
  for (int i = 0; i < 5; ++i) session.run(feeds);
  EXPECT_TRUE(platform::ThreadCountMatches(platform::ListProcessThreads().size(), before));
}

// Scan computing running sums: state acc [2], scan input X [3, 2] (axis 0)
// or [2, 3] (axis 1); outputs the final sum and each step's sum.
std::string ScanModel(int64_t input_axis, int64_t input_direction, int64_t output_axis,
                      int64_t output_direction) {
  TestModel m(16);
  m.Input("acc0", kFloat, {2});
  m.Input("X", kFloat, input_axis == 0 ? std::vector<TestDim>{3, 2} : std::vector<TestDim>{2, 3});
  TestModel body;
  body.Input("acc", kFloat, {2});
  body.Input("x", kFloat, {2});
  body.Node("Add", {"acc", "x"}, {"acc_next"});
  body.Node("Identity", {"acc_next"}, {"step"});
  body.Output("acc_next", kFloat, {2});
  body.Output("step", kFloat, {2});
  onnx::NodeProto* node = m.Node("Scan", {"acc0", "X"}, {"acc_final", "steps"}, "scan");
  SetGraph(node, "body", body.graph());
  SetInt(node, "num_scan_inputs", 1);
  SetInts(node, "scan_input_axes", {input_axis});
  SetInts(node, "scan_input_directions", {input_direction});
  SetInts(node, "scan_output_axes", {output_axis});
  SetInts(node, "scan_output_directions", {output_direction});
  m.Output("acc_final", kFloat, {2});
  m.UntypedOutput("steps");
  return m.Serialize();
}

TEST(ControlFlowRun, ScanDirectionsAndAxes) {
  // X as rows x[t] = {t + 1, 10 * (t + 1)}.
  const float rows[3][2] = {{1, 10}, {2, 20}, {3, 30}};
  for (int64_t in_axis : {0, 1}) {
    for (int64_t in_dir : {0, 1}) {
      for (int64_t out_axis : {0, 1, -1}) {
        for (int64_t out_dir : {0, 1}) {
          SCOPED_TRACE("in axis " + std::to_string(in_axis) + " dir " + std::to_string(in_dir) +
                       ", out axis " + std::to_string(out_axis) + " dir " +
                       std::to_string(out_dir));
          std::vector<float> x;
          if (in_axis == 0) {
            for (auto& row : rows) x.insert(x.end(), row, row + 2);
          } else {
            for (int k = 0; k < 2; ++k) {
              for (int t = 0; t < 3; ++t) x.push_back(rows[t][k]);
            }
          }
          // Reference: steps[t] is the sum after iteration t.
          float acc[2] = {100, 200};
          float steps[3][2];
          for (int t = 0; t < 3; ++t) {
            const int row = in_dir == 1 ? 2 - t : t;
            for (int k = 0; k < 2; ++k) acc[k] += rows[row][k];
            const int slot = out_dir == 1 ? 2 - t : t;
            for (int k = 0; k < 2; ++k) steps[slot][k] = acc[k];
          }
          std::vector<float> want_steps;
          if (out_axis == 0) {
            for (auto& row : steps) want_steps.insert(want_steps.end(), row, row + 2);
          } else {
            for (int k = 0; k < 2; ++k) {
              for (int t = 0; t < 3; ++t) want_steps.push_back(steps[t][k]);
            }
          }
          const std::string bytes = ScanModel(in_axis, in_dir, out_axis, out_dir);
          const Tensor input = in_axis == 0 ? Floats({3, 2}, x) : Floats({2, 3}, x);
          for (int threads : {1, 3}) {
            const auto got =
                RunModel(bytes, {{"acc0", Floats({2}, {100, 200})}, {"X", input}}, threads);
            EXPECT_EQ(Values(got[0]), (std::vector<float>{acc[0], acc[1]}));
            EXPECT_EQ(got[1].shape(), out_axis == 0 ? Shape({3, 2}) : Shape({2, 3}));
            EXPECT_EQ(Values(got[1]), want_steps);
          }
        }
      }
    }
  }
}

TEST(ControlFlowTypes, OutputsTypedFromSubgraphs) {
  // Loop scan output: a leading dynamic dim; Scan: the scan length.
  const Session loop_session(load_onnx_model_from_bytes(LoopModel(true, false, "keep")));
  const Graph& loop = loop_session.graph();
  const TensorType& scans = loop.outputs[1].type;
  ASSERT_TRUE(scans.shape.has_value());
  ASSERT_EQ(scans.shape->size(), 2u);
  EXPECT_FALSE((*scans.shape)[0].is_known());
  EXPECT_EQ((*scans.shape)[1], Dim(2));
  const Session scan_session(load_onnx_model_from_bytes(ScanModel(1, 0, -1, 0)));
  const Graph& scan = scan_session.graph();
  EXPECT_EQ(scan.outputs[1].type.to_string(), "float32[2, 3]");
  // If: branches of [2, 3] and [2, 4] give [2, ?].
  TestModel m(13);
  m.Input("cond", kBool, {});
  m.Input("a", kFloat, {2, 3});
  m.Input("b", kFloat, {2, 4});
  TestModel then_branch;
  then_branch.Node("Identity", {"a"}, {"t"});
  then_branch.UntypedOutput("t");
  TestModel else_branch;
  else_branch.Node("Identity", {"b"}, {"e"});
  else_branch.UntypedOutput("e");
  onnx::NodeProto* node = m.Node("If", {"cond"}, {"z"}, "if");
  SetGraph(node, "then_branch", then_branch.graph());
  SetGraph(node, "else_branch", else_branch.graph());
  m.UntypedOutput("z");
  const Session session(load_onnx_model_from_bytes(m.Serialize()));
  const TensorType& z = session.graph().outputs[0].type;
  ASSERT_TRUE(z.shape.has_value());
  ASSERT_EQ(z.shape->size(), 2u);
  EXPECT_EQ((*z.shape)[0], Dim(2));
  EXPECT_FALSE((*z.shape)[1].is_known());
}

TEST(ControlFlowErrors, BranchesMustAgree) {
  auto if_model = [](bool two_outputs, bool int_output) {
    TestModel m(13);
    m.Input("cond", kBool, {});
    m.Input("x", kFloat, {1});
    m.Input("n", kInt64, {1});
    TestModel then_branch;
    then_branch.Node("Identity", {"x"}, {"t"});
    then_branch.UntypedOutput("t");
    TestModel else_branch;
    else_branch.Node("Identity", {int_output ? "n" : "x"}, {"e"});
    else_branch.UntypedOutput("e");
    if (two_outputs) {
      else_branch.Node("Identity", {"x"}, {"e2"});
      else_branch.UntypedOutput("e2");
    }
    onnx::NodeProto* node = m.Node("If", {"cond"}, {"z"}, "branchy");
    SetGraph(node, "then_branch", then_branch.graph());
    SetGraph(node, "else_branch", else_branch.graph());
    m.UntypedOutput("z");
    return m.Serialize();
  };
  const std::string counts = LoadError(if_model(true, false));
  EXPECT_TRUE(Contains(counts, "branchy")) << counts;
  EXPECT_TRUE(Contains(counts, "outputs")) << counts;
  const std::string dtypes = LoadError(if_model(false, true));
  EXPECT_TRUE(Contains(dtypes, "branchy")) << dtypes;
  EXPECT_TRUE(Contains(dtypes, "dtypes differ")) << dtypes;
}

TEST(ControlFlowErrors, LoopBodyWithWrongInputCount) {
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("s0", kFloat, {2});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("s", kFloat, {2});  // cond is missing
  body.Initializer(Bool(true), "yes");
  body.Node("Identity", {"s"}, {"s_next"});
  body.Output("yes", kBool, {});
  body.Output("s_next", kFloat, {2});
  onnx::NodeProto* node = m.Node("Loop", {"M", "", "s0"}, {"s_final"}, "bad_loop");
  SetGraph(node, "body", body.graph());
  m.Output("s_final", kFloat, {2});
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error, "bad_loop")) << error;
  EXPECT_TRUE(Contains(error, "inputs")) << error;
}

// Strings through Scan: the scan input is sliced and the scan output stacked
// as std::string objects. acc = acc + x[t] (StringConcat) over columns.
TEST(ControlFlowRun, ScanSlicesAndStacksStrings) {
  constexpr int32_t kString = onnx::TensorProto::STRING;
  TestModel m(20);
  m.Input("acc0", kString, {2});
  m.Input("X", kString, {2, 3});
  TestModel body(20);
  body.Input("acc", kString, {2});
  body.Input("x", kString, {2});
  body.Node("StringConcat", {"acc", "x"}, {"acc_next"});
  body.Node("Identity", {"acc_next"}, {"step"});
  body.Output("acc_next", kString, {2});
  body.Output("step", kString, {2});
  onnx::NodeProto* node = m.Node("Scan", {"acc0", "X"}, {"acc_final", "steps"}, "scan");
  SetGraph(node, "body", body.graph());
  SetInt(node, "num_scan_inputs", 1);
  SetInts(node, "scan_input_axes", {1});
  SetInts(node, "scan_output_axes", {1});
  m.Output("acc_final", kString, {2});
  m.UntypedOutput("steps");
  const Tensor x = Tensor::from_vector<std::string>({2, 3}, {"a", "b", "c", "x", "y", "z"});
  const Tensor acc0 = Tensor::from_vector<std::string>({2}, {">", std::string(40, '-')});
  for (int threads : {1, 3}) {
    const auto got = RunModel(m.Serialize(), {{"acc0", acc0}, {"X", x}}, threads);
    const std::string long_prefix(40, '-');
    const std::string* final_values = got[0].data<std::string>();
    EXPECT_EQ(final_values[0], ">abc");
    EXPECT_EQ(final_values[1], long_prefix + "xyz");
    ASSERT_EQ(got[1].shape(), Shape({2, 3}));
    const std::string* steps = got[1].data<std::string>();
    EXPECT_EQ(std::vector<std::string>(steps, steps + 6),
              (std::vector<std::string>{">a", ">ab", ">abc", long_prefix + "x", long_prefix + "xy",
                                        long_prefix + "xyz"}));
  }
}

TEST(ControlFlowErrors, ScanLengthsMustMatch) {
  TestModel m(16);
  m.Input("a", kFloat, {"N", 1});
  m.Input("b", kFloat, {"K", 1});
  TestModel body;
  body.Input("x", kFloat, {1});
  body.Input("y", kFloat, {1});
  body.Node("Add", {"x", "y"}, {"z"});
  body.Output("z", kFloat, {1});
  onnx::NodeProto* node = m.Node("Scan", {"a", "b"}, {"zs"}, "pair_scan");
  SetGraph(node, "body", body.graph());
  SetInt(node, "num_scan_inputs", 2);
  m.UntypedOutput("zs");
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  try {
    session.run({{"a", Floats({3, 1}, {1, 2, 3})}, {"b", Floats({2, 1}, {1, 2})}});
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "pair_scan")) << e.what();
    EXPECT_TRUE(Contains(e.what(), "iterations")) << e.what();
  }
}

// `levels` Ifs, each the then_branch of the one outside it.
std::string NestedIfs(int levels) {
  TestModel leaf;
  leaf.Node("Identity", {"x"}, {"y0"});
  leaf.Output("y0", kFloat, {1});
  onnx::GraphProto inner = leaf.graph();
  for (int level = 1; level <= levels; ++level) {
    TestModel wrapper;
    const std::string out = "y" + std::to_string(level);
    onnx::NodeProto* node = wrapper.Node("If", {"cond"}, {out}, "if" + std::to_string(level));
    SetGraph(node, "then_branch", inner);
    SetGraph(node, "else_branch", leaf.graph());
    wrapper.Output(out, kFloat, {1});
    inner = wrapper.graph();
  }
  TestModel m(13);
  m.Input("cond", kBool, {});
  m.Input("x", kFloat, {1});
  *m.graph().mutable_node() = inner.node();
  m.Output("y" + std::to_string(levels), kFloat, {1});
  return m.Serialize();
}

TEST(ControlFlowErrors, NestingIsBounded) {
  // 20 levels load and run.
  const auto got = RunModel(NestedIfs(20), {{"cond", Bool(true)}, {"x", Floats({1}, {7})}});
  EXPECT_EQ(Values(got[0]), std::vector<float>{7});
  // 40 levels: refused (by protobuf's nesting limit before the importer's
  // 32), with an error rather than a crash.
  EXPECT_FALSE(LoadError(NestedIfs(40)).empty());
}

// Graphs built in code meet the limit in type inference.
TEST(ControlFlowErrors, NestingDeeperThanTheLimitIsRefused) {
  auto leaf = std::make_shared<Graph>();
  leaf->inputs = {{"x", TensorType{DType::kFloat32, SymbolicShape{1}}}};
  leaf->nodes = {Node{"id", "Identity", {"x"}, {"y"}, {}}};
  leaf->outputs = {{"y", TensorType{DType::kFloat32, std::nullopt}}};
  GraphAttribute inner = leaf;
  for (int level = 1; level <= 40; ++level) {
    auto wrapper = std::make_shared<Graph>();
    wrapper->inputs = {{"x", TensorType{DType::kFloat32, SymbolicShape{1}}},
                       {"cond", TensorType{DType::kBool, SymbolicShape{}}}};
    Node node{"if", "If", {"cond", "x", "cond"}, {"y"}, {}};
    node.implicit_inputs = 2;
    node.attributes["then_branch"] = inner;
    node.attributes["else_branch"] = inner;
    // Each branch takes the captures x and cond.
    wrapper->nodes = {node};
    wrapper->outputs = {{"y", TensorType{DType::kFloat32, std::nullopt}}};
    inner = wrapper;
  }
  // The innermost leaf takes one input but is given two captures: make it
  // take both so only the depth is wrong.
  leaf->inputs.push_back({"cond", TensorType{DType::kBool, SymbolicShape{}}});
  try {
    verify_graph(*inner);
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "nested more than 32")) << e.what();
  }
}

TEST(ControlFlowErrors, LoopBodyTurningATensorIntoASequenceIsRefused) {
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("s0", kFloat, {2});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  body.Input("s", kFloat, {2});
  body.Node("Identity", {"c"}, {"c_next"});
  body.Node("SequenceConstruct", {"s"}, {"s_next"});
  body.Output("c_next", kBool, {});
  body.UntypedOutput("s_next");
  onnx::NodeProto* node = m.Node("Loop", {"M", "", "s0"}, {"s_final"}, "seq_loop");
  SetGraph(node, "body", body.graph());
  m.UntypedOutput("s_final");
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error, "seq_loop")) << error;
  EXPECT_TRUE(Contains(error, "seq(float32")) << error;
  EXPECT_TRUE(Contains(error, "kinds differ")) << error;
}

TEST(ControlFlowRoundTrip, WrittenModelsLoadAndRunTheSame) {
  struct Model {
    std::string bytes;
    std::map<std::string, Tensor> feeds;
  };
  const std::vector<Model> models = {
      {IfModel(),
       {{"cond", Bool(false)}, {"x", Floats({3}, {1, 2, 3})}, {"y", Floats({3}, {4, 5, 6})}}},
      {LoopModel(true, true, "below"),
       {{"M", Int64(5)},
        {"cond", Bool(true)},
        {"s0", Floats({2}, {1, 2})},
        {"x", Floats({2}, {3, 4})},
        {"limit", Int64(3)}}},
      {ScanModel(1, 1, 1, 1),
       {{"acc0", Floats({2}, {0, 0})}, {"X", Floats({2, 3}, {1, 2, 3, 4, 5, 6})}}},
  };
  for (const Model& model : models) {
    const Graph original = load_onnx_model_from_bytes(model.bytes);
    const std::string written = save_onnx_model_to_bytes(original);
    const Graph reread = load_onnx_model_from_bytes(written);
    ASSERT_EQ(reread.nodes.size(), original.nodes.size());
    // The same inputs; captures may come in another order (the writer
    // writes attributes by name).
    std::vector<std::string> a = reread.nodes[0].inputs, b = original.nodes[0].inputs;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    EXPECT_EQ(reread.nodes[0].implicit_inputs, original.nodes[0].implicit_inputs);
    const auto want = Session(original).run(model.feeds);
    const auto got = Session(reread).run(model.feeds);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].shape(), want[i].shape());
      EXPECT_EQ(Values(got[i]), Values(want[i]));
    }
  }
}

TEST(ControlFlowRoundTrip, PassesThatReplaceACapturedValueKeepTheBinding) {
  // The branches read "t", an Identity of x: dead-node elimination bypasses
  // the Identity, so the If's implicit input becomes x while the branches
  // keep calling it t. Running and writing the optimized graph still work.
  TestModel m(13);
  m.Input("cond", kBool, {});
  m.Input("x", kFloat, {2});
  m.Node("Identity", {"x"}, {"t"});
  TestModel then_branch;
  then_branch.Node("Neg", {"t"}, {"a"});
  then_branch.Output("a", kFloat, {2});
  TestModel else_branch;
  else_branch.Node("Abs", {"t"}, {"b"});
  else_branch.Output("b", kFloat, {2});
  onnx::NodeProto* node = m.Node("If", {"cond"}, {"z"}, "if");
  SetGraph(node, "then_branch", then_branch.graph());
  SetGraph(node, "else_branch", else_branch.graph());
  m.Output("z", kFloat, {2});
  const Session session(load_onnx_model_from_bytes(m.Serialize()));
  ASSERT_EQ(session.graph().nodes.size(), 1u);  // the Identity is gone
  EXPECT_EQ(session.graph().nodes[0].inputs, (std::vector<std::string>{"cond", "x"}));
  const Tensor x = Floats({2}, {-1, 2});
  EXPECT_EQ(Values(session.run({{"cond", Bool(true)}, {"x", x}})[0]), (std::vector<float>{1, -2}));
  const Session reread(load_onnx_model_from_bytes(save_onnx_model_to_bytes(session.graph())));
  EXPECT_EQ(Values(reread.run({{"cond", Bool(false)}, {"x", x}})[0]), (std::vector<float>{1, 2}));
}

TEST(ControlFlowRoundTrip, RenamedCaptureIsWrittenThroughAnIdentity) {
  Graph g = load_onnx_model_from_bytes(IfModel());
  // What a pass does when it replaces an outer value: the implicit input
  // changes, the subgraph keeps its own name for it.
  g.inputs[1].name = "x_renamed";
  g.nodes[0].inputs[1] = "x_renamed";
  const Graph reread = load_onnx_model_from_bytes(save_onnx_model_to_bytes(g));
  const auto got = Session(reread).run(
      {{"cond", Bool(true)}, {"x_renamed", Floats({3}, {1, 2, 3})}, {"y", Floats({3}, {1, 1, 1})}});
  EXPECT_EQ(Values(got[0]), (std::vector<float>{2, 3, 4}));
}

}  // namespace
}  // namespace loom::onnx_import::testing
