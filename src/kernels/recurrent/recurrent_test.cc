// RNN, GRU and LSTM against the plain reference (recurrent_reference.h) on
// random shapes in both layouts and every direction, with sequence_lens,
// initial states, peepholes, clip and non-default activations, at every ISA
// level and at 1, 2, 3 and 7 threads (bit-identical across thread counts);
// small cases worked by hand; the errors.
#include "kernels/recurrent/recurrent.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/elementwise/elementwise_common.h"
#include "kernels/recurrent/recurrent_reference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using recurrent::CellKind;
using testing::BitwiseEqual;
using testing::KernelErrorOf;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;
using testing::TensorValues;

KernelFn KernelOf(CellKind cell) {
  return cell == CellKind::kRnn ? RnnKernel : cell == CellKind::kGru ? GruKernel : LstmKernel;
}
int Gates(CellKind cell) { return recurrent::GateCount(cell); }
const char* Name(CellKind cell) {
  return cell == CellKind::kRnn ? "RNN" : cell == CellKind::kGru ? "GRU" : "LSTM";
}

struct Case {
  Case(CellKind cell_kind, int64_t seq_len, int64_t batch_size, int64_t input_size,
       int64_t hidden_size, std::string dir = "forward", int layout_code = 0, bool with_bias = true)
      : cell(cell_kind),
        seq(seq_len),
        batch(batch_size),
        input(input_size),
        hidden(hidden_size),
        direction(std::move(dir)),
        layout(layout_code),
        bias(with_bias) {}
  CellKind cell;
  int64_t seq, batch, input, hidden;
  std::string direction;
  int layout;
  bool bias;
  bool lengths = false;
  bool initial = false;
  bool peepholes = false;
  bool clip = false;
  bool linear_before_reset = false;
  bool input_forget = false;
  std::vector<std::string> activations;
};

struct Built {
  std::vector<std::optional<Tensor>> tensors;
  Attributes attrs;
  std::vector<const Tensor*> Inputs() const {
    std::vector<const Tensor*> inputs;
    for (const auto& t : tensors) inputs.push_back(t ? &*t : nullptr);
    return inputs;
  }
};

Built Build(const Case& c, uint32_t seed) {
  const int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  const int64_t gh = Gates(c.cell) * c.hidden;
  Built built;
  auto& t = built.tensors;
  t.push_back(RandomTensor(
      DType::kFloat32,
      c.layout == 0 ? Shape({c.seq, c.batch, c.input}) : Shape({c.batch, c.seq, c.input}), seed,
      -2.0, 2.0));
  t.push_back(RandomTensor(DType::kFloat32, Shape({dirs, gh, c.input}), seed + 1, -0.6, 0.6));
  t.push_back(RandomTensor(DType::kFloat32, Shape({dirs, gh, c.hidden}), seed + 2, -0.6, 0.6));
  t.push_back(c.bias ? std::optional<Tensor>(RandomTensor(DType::kFloat32, Shape({dirs, 2 * gh}),
                                                          seed + 3, -0.5, 0.5))
                     : std::nullopt);
  if (c.lengths) {
    std::vector<int32_t> lens;
    for (int64_t b = 0; b < c.batch; ++b) {
      lens.push_back(static_cast<int32_t>((b * 7 + seed) % (c.seq + 1)));
    }
    if (c.batch > 0) lens[0] = static_cast<int32_t>(c.seq);
    t.push_back(Tensor::from_vector<int32_t>({c.batch}, lens));
  } else {
    t.push_back(std::nullopt);
  }
  const Shape state =
      c.layout == 0 ? Shape({dirs, c.batch, c.hidden}) : Shape({c.batch, dirs, c.hidden});
  t.push_back(c.initial ? std::optional<Tensor>(RandomTensor(DType::kFloat32, state, seed + 4))
                        : std::nullopt);
  if (c.cell == CellKind::kLstm) {
    t.push_back(c.initial ? std::optional<Tensor>(RandomTensor(DType::kFloat32, state, seed + 5))
                          : std::nullopt);
    t.push_back(c.peepholes ? std::optional<Tensor>(RandomTensor(
                                  DType::kFloat32, Shape({dirs, 3 * c.hidden}), seed + 6))
                            : std::nullopt);
  }
  // Trailing absent inputs are dropped, as an ONNX node would.
  while (!t.back()) t.pop_back();
  built.attrs.set("direction", c.direction).set("hidden_size", c.hidden);
  if (c.layout) built.attrs.set("layout", int64_t{c.layout});
  if (c.clip) built.attrs.set("clip", 0.75f);
  if (c.linear_before_reset) built.attrs.set("linear_before_reset", int64_t{1});
  if (c.input_forget) built.attrs.set("input_forget", int64_t{1});
  if (!c.activations.empty()) {
    built.attrs.set("activations", c.activations);
    built.attrs.set("activation_alpha", std::vector<float>{0.3f, 0.7f, 1.1f, 0.4f});
    built.attrs.set("activation_beta", std::vector<float>{0.2f, 0.9f, 0.6f});
  }
  return built;
}

std::vector<Tensor> Run(const Case& c, const Built& built, Isa isa, int threads) {
  auto pool = PoolWithThreads(threads);
  const std::vector<const Tensor*> inputs = built.Inputs();
  return KernelOf(c.cell)({pool.get(), isa}, built.attrs, KernelInputs(inputs));
}

// The prepare stage's kernel for c.cell with W and R as constants (the
// session's case), or null.
std::unique_ptr<PreparedKernel> Prepared(const Case& c, const Built& built, Isa isa) {
  const std::vector<const Tensor*> inputs = built.Inputs();
  std::vector<const Tensor*> constants(inputs.size(), nullptr);
  constants[1] = inputs[1];
  constants[2] = inputs[2];
  std::unique_ptr<bool[]> present(new bool[inputs.size()]);
  for (size_t i = 0; i < inputs.size(); ++i) present[i] = inputs[i] != nullptr;
  const PrepareFn prepare = c.cell == CellKind::kRnn   ? PrepareRnn
                            : c.cell == CellKind::kGru ? PrepareGru
                                                       : PrepareLstm;
  return prepare(
      {built.attrs, constants, std::span<const bool>(present.get(), inputs.size()), isa});
}

void CheckAgainstReference(const Case& c, uint32_t seed) {
  SCOPED_TRACE(std::string(Name(c.cell)) + " seq " + std::to_string(c.seq) + " batch " +
               std::to_string(c.batch) + " input " + std::to_string(c.input) + " hidden " +
               std::to_string(c.hidden) + " " + c.direction + " layout " +
               std::to_string(c.layout));
  const Built built = Build(c, seed);
  const std::vector<const Tensor*> inputs = built.Inputs();
  const std::vector<Tensor> want =
      recurrent::RecurrentReference(c.cell, built.attrs, KernelInputs(inputs));
  for (Isa isa : SupportedIsas()) {
    SCOPED_TRACE(IsaName(isa));
    const std::vector<Tensor> first = Run(c, built, isa, 1);
    ASSERT_EQ(first.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_TENSORS_NEAR(first[i], want[i], 2e-4, 2e-4);
    for (int threads : {2, 3, 7}) {
      const std::vector<Tensor> again = Run(c, built, isa, threads);
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_TRUE(BitwiseEqual(again[i], first[i])) << "output " << i << " threads " << threads;
      }
    }
    // With W and R constant, the prepared kernel (weights transposed and
    // packed once) gives the plain kernel's bits at every thread count.
    const std::unique_ptr<PreparedKernel> prepared = Prepared(c, built, isa);
    ASSERT_NE(prepared, nullptr);
    for (int threads : {1, 2, 3, 7}) {
      auto pool = PoolWithThreads(threads);
      const std::vector<Tensor> got = prepared->Run({pool.get(), isa}, KernelInputs(inputs));
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_TRUE(BitwiseEqual(got[i], first[i]))
            << "prepared, output " << i << " threads " << threads;
      }
    }
  }
}

TEST(Recurrent, MatchesReferenceOnRandomShapes) {
  uint32_t seed = 10;
  for (CellKind cell : {CellKind::kRnn, CellKind::kGru, CellKind::kLstm}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      for (int layout : {0, 1}) {
        // Hidden sizes off the vector width, one above the 64-unit block.
        CheckAgainstReference({cell, 5, 3, 7, 13, direction, layout}, seed++);
        CheckAgainstReference({cell, 1, 1, 1, 1, direction, layout, false}, seed++);
        Case lengths{cell, 6, 5, 4, 67, direction, layout};
        lengths.lengths = lengths.initial = true;
        lengths.peepholes = true;
        CheckAgainstReference(lengths, seed++);
      }
    }
  }
}

// Bidirectional layers run one direction per thread when steps are small
// or threads few; with 4+ threads and a step GEMM of 4 M FLOPs or more
// (here 2 x 16 x 256 x 1024 = 8.4 M) every step is split over the threads
// instead. Both schedules against the reference and bit-identical at 1, 2,
// 3 and 7 threads (7 takes the second).
TEST(Recurrent, BidirectionalLargeStepsMatchReferenceAtEveryThreadCount) {
  Case big{CellKind::kLstm, 2, 16, 8, 256, "bidirectional"};
  big.lengths = true;
  CheckAgainstReference(big, 400);
}

TEST(Recurrent, MatchesReferenceWithOptions) {
  uint32_t seed = 100;
  Case clip{CellKind::kLstm, 4, 3, 5, 11, "bidirectional"};
  clip.clip = clip.peepholes = clip.initial = clip.lengths = true;
  CheckAgainstReference(clip, seed++);
  Case forget{CellKind::kLstm, 4, 2, 3, 9, "reverse", 1};
  forget.input_forget = forget.initial = true;
  CheckAgainstReference(forget, seed++);
  for (bool lbr : {false, true}) {
    Case gru{CellKind::kGru, 7, 4, 6, 19, "bidirectional", 1};
    gru.linear_before_reset = lbr;
    gru.lengths = gru.initial = gru.clip = true;
    CheckAgainstReference(gru, seed++);
  }
  Case batch_many{CellKind::kGru, 3, 17, 5, 10};  // above the GEMM's few-row paths
  batch_many.lengths = true;
  CheckAgainstReference(batch_many, seed++);
  Case lstm_many{CellKind::kLstm, 3, 9, 5, 130, "forward", 1};
  CheckAgainstReference(lstm_many, seed++);
}

TEST(Recurrent, MatchesReferenceWithEveryActivation) {
  uint32_t seed = 200;
  const std::vector<std::string> names = {
      "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string& a = names[k];
    const std::string& b = names[(k + 3) % names.size()];
    const std::string& c = names[(k + 5) % names.size()];
    Case rnn{CellKind::kRnn, 4, 2, 3, 5, "bidirectional"};
    rnn.activations = {a, b};
    CheckAgainstReference(rnn, seed++);
    Case gru{CellKind::kGru, 4, 2, 3, 5, "forward", 1};
    gru.activations = {"Sigmoid", a};
    CheckAgainstReference(gru, seed++);
    Case lstm{CellKind::kLstm, 4, 2, 3, 5, "reverse"};
    lstm.activations = {"HardSigmoid", b, c};
    lstm.clip = true;
    CheckAgainstReference(lstm, seed++);
  }
}

TEST(Recurrent, ZeroSizedAndEmptySequences) {
  CheckAgainstReference({CellKind::kLstm, 3, 0, 4, 5, "bidirectional"}, 300);
  Case empty{CellKind::kGru, 0, 2, 4, 5};
  empty.initial = true;
  CheckAgainstReference(empty, 301);
  CheckAgainstReference({CellKind::kRnn, 3, 2, 0, 5}, 302);
}

TEST(Recurrent, HalfTypesRunInFloat32) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    for (CellKind cell : {CellKind::kRnn, CellKind::kGru, CellKind::kLstm}) {
      Case c{cell, 4, 3, 5, 9, "bidirectional", 1};
      c.initial = c.lengths = true;
      const Built built = Build(c, 400);
      // The half inputs, and their exact float32 widening for the reference.
      std::vector<Tensor> half, wide;
      std::vector<const Tensor*> half_inputs, wide_inputs;
      half.reserve(built.tensors.size());
      wide.reserve(built.tensors.size());
      for (size_t i = 0; i < built.tensors.size(); ++i) {
        if (!built.tensors[i]) {
          half_inputs.push_back(nullptr);
          wide_inputs.push_back(nullptr);
          continue;
        }
        const bool lens = i == 4;
        half.push_back(lens ? *built.tensors[i]
                            : elementwise::ConvertTensor(*built.tensors[i], dtype));
        wide.push_back(lens ? half.back()
                            : elementwise::ConvertTensor(half.back(), DType::kFloat32));
        half_inputs.push_back(&half.back());
        wide_inputs.push_back(&wide.back());
      }
      const std::vector<Tensor> got = KernelOf(cell)({}, built.attrs, KernelInputs(half_inputs));
      const std::vector<Tensor> want =
          recurrent::RecurrentReference(cell, built.attrs, KernelInputs(wide_inputs));
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].dtype(), dtype);
        EXPECT_TENSORS_NEAR(elementwise::ConvertTensor(got[i], DType::kFloat32), want[i], 1e-2,
                            1e-2);
      }
    }
  }
  const Tensor x = Tensor::from_vector<float>({1, 1, 1}, {1});
  const Tensor x_half = elementwise::ConvertTensor(x, DType::kFloat16);
  const Tensor w = Tensor::from_vector<float>({1, 1, 1}, {1});
  EXPECT_EQ(KernelErrorOf(RnnKernel, {&x_half, &w, &w}), "RNN: input 'W' is float32, X is float16");
}

Tensor F(Shape shape, std::vector<float> values) {
  return Tensor::from_vector<float>(std::move(shape), std::move(values));
}

TEST(Recurrent, RnnByHandWithReverseLengths) {
  // Relu, W = R = 1, no bias. Forward: h1 = 1, h2 = 2 + 1 = 3, h3 = 3 + 3.
  const Tensor x = F({3, 1, 1}, {1, 2, 3});
  const Tensor w = F({1, 1, 1}, {1});
  const Tensor r = F({1, 1, 1}, {1});
  Attributes relu;
  relu.set("activations", std::vector<std::string>{"Relu"});
  std::vector<Tensor> out = CallKernel(RnnKernel, {}, relu, {&x, &w, &r});
  EXPECT_EQ(TensorValues<float>(out[0]), (std::vector<float>{1, 3, 6}));
  EXPECT_EQ(TensorValues<float>(out[1]), (std::vector<float>{6}));
  // Reverse with length 2: t = 1 first (h = 2), then t = 0 (h = 1 + 2);
  // Y is zero at t = 2.
  const Tensor lens = Tensor::from_vector<int32_t>({1}, {2});
  relu.set("direction", std::string("reverse"));
  out = CallKernel(RnnKernel, {}, relu, {&x, &w, &r, nullptr, &lens});
  EXPECT_EQ(TensorValues<float>(out[0]), (std::vector<float>{3, 2, 0}));
  EXPECT_EQ(TensorValues<float>(out[1]), (std::vector<float>{3}));
}

TEST(Recurrent, LstmByHandWithPeepholes) {
  // Identity activations (Affine 1, 0), W = 1 for every gate, R = 0, x =
  // 0.5, C0 = 2, P = 1: i = 0.5 + 2 = 2.5, f = 2.5, c = 0.5,
  // C = 2.5 * 2 + 2.5 * 0.5 = 6.25, o = 0.5 + 6.25 = 6.75, H = 6.75 * 6.25.
  const Tensor x = F({1, 1, 1}, {0.5f});
  const Tensor w = F({1, 4, 1}, {1, 1, 1, 1});
  const Tensor r = F({1, 4, 1}, {0, 0, 0, 0});
  const Tensor h0 = F({1, 1, 1}, {0});
  const Tensor c0 = F({1, 1, 1}, {2});
  const Tensor p = F({1, 3}, {1, 1, 1});
  Attributes attrs;
  attrs.set("activations", std::vector<std::string>{"Affine", "Affine", "Affine"});
  const std::vector<Tensor> out =
      CallKernel(LstmKernel, {}, attrs, {&x, &w, &r, nullptr, nullptr, &h0, &c0, &p});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(TensorValues<float>(out[0]), (std::vector<float>{42.1875f}));
  EXPECT_EQ(TensorValues<float>(out[1]), (std::vector<float>{42.1875f}));
  EXPECT_EQ(TensorValues<float>(out[2]), (std::vector<float>{6.25f}));
}

TEST(Recurrent, GruByHandBothResetOrders) {
  // Identity activations, W = R = 1, x = 1, H0 = 2, Rbh = 1: z = r = 3.
  // linear_before_reset = 0: h~ = 1 + 3 * 2 + 1 = 8, H = -2 * 8 + 3 * 2.
  // linear_before_reset = 1: h~ = 1 + 3 * (2 + 1) = 10, H = -2 * 10 + 6.
  const Tensor x = F({1, 1, 1}, {1});
  const Tensor w = F({1, 3, 1}, {1, 1, 1});
  const Tensor r = F({1, 3, 1}, {1, 1, 1});
  const Tensor b = F({1, 6}, {0, 0, 0, 0, 0, 1});
  const Tensor h0 = F({1, 1, 1}, {2});
  Attributes attrs;
  attrs.set("activations", std::vector<std::string>{"Affine", "Affine"});
  EXPECT_EQ(
      TensorValues<float>(CallKernel(GruKernel, {}, attrs, {&x, &w, &r, &b, nullptr, &h0})[1]),
      (std::vector<float>{-10}));
  attrs.set("linear_before_reset", int64_t{1});
  EXPECT_EQ(
      TensorValues<float>(CallKernel(GruKernel, {}, attrs, {&x, &w, &r, &b, nullptr, &h0})[1]),
      (std::vector<float>{-14}));
}

TEST(Recurrent, Errors) {
  const Tensor x = F({2, 1, 1}, {1, 2});
  const Tensor w = F({1, 1, 1}, {1});
  const Tensor r = F({1, 1, 1}, {1});
  const Tensor w_bad = F({1, 2, 1}, {1, 1});
  EXPECT_EQ(KernelErrorOf(RnnKernel, {&x, &w_bad, &r}),
            "RNN: input 'W' must have shape [1, 1, 1] (got [1, 2, 1])");
  Attributes up;
  up.set("direction", std::string("up"));
  EXPECT_EQ(KernelErrorOf(RnnKernel, {&x, &w, &r}, up),
            "RNN: attribute 'direction' must be forward, reverse or bidirectional (got 'up')");
  Attributes odd;
  odd.set("activations", std::vector<std::string>{"Gelu"});
  EXPECT_EQ(KernelErrorOf(RnnKernel, {&x, &w, &r}, odd), "RNN: activation 'Gelu' is not supported");
  Attributes count;
  count.set("activations", std::vector<std::string>{"Tanh", "Tanh", "Tanh"});
  EXPECT_EQ(KernelErrorOf(RnnKernel, {&x, &w, &r}, count),
            "RNN: attribute 'activations' must have 1 names (1 per direction), got 3");
  const Tensor long_lens = Tensor::from_vector<int32_t>({1}, {3});
  EXPECT_EQ(KernelErrorOf(RnnKernel, {&x, &w, &r, nullptr, &long_lens}),
            "RNN: input 'sequence_lens' must be in [0, 2] (got 3 for batch 0)");
  const Tensor x_int = Tensor::from_vector<int32_t>({2, 1, 1}, {1, 2});
  EXPECT_NE(KernelErrorOf(RnnKernel, {&x_int, &w, &r}).find("RNN: input 'X'"), std::string::npos);
  Attributes hidden;
  hidden.set("hidden_size", int64_t{3});
  EXPECT_NE(KernelErrorOf(RnnKernel, {&x, &w, &r}, hidden).find("hidden_size"), std::string::npos);
  const Tensor x2 = F({2, 1}, {1, 2});
  EXPECT_NE(KernelErrorOf(LstmKernel, {&x2, &w, &r}).find("LSTM: input 'X' must have rank 3"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
