// README, "Graphs and sessions": a graph built in code, run by a session
// with a trace written for ui.perfetto.dev.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include "loom/session.h"

int main() {
  // 8 filters of 3x3x3 weights 0.1 and bias 0: on an all-ones image every
  // output away from the border is 27 * 0.1.
  const loom::Tensor weights =
      loom::Tensor::from_vector<float>({8, 3, 3, 3}, std::vector<float>(8 * 27, 0.1f));
  const loom::Tensor bias = loom::Tensor::from_vector<float>({8}, std::vector<float>(8, 0));
  const loom::Tensor input =
      loom::Tensor::from_vector<float>({2, 3, 32, 32}, std::vector<float>(2 * 3 * 32 * 32, 1));

  loom::GraphBuilder b("tiny");
  auto x = b.input("x", loom::DType::kFloat32, {"N", 3, 32, 32});
  auto y = b.op("Conv", {x, b.constant(weights), b.constant(bias)},
                {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.output(b.op("Relu", {y}), "features");
  loom::Session session(b.build());  // verify, optimize (Conv+Relu fused), plan
  loom::RunOptions options{.trace = true};
  loom::RunStats stats;
  auto out = session.run({{"x", input}}, {}, options, &stats);
  std::ofstream("trace.json") << stats.chrome_trace_json();  // open in ui.perfetto.dev

  const float center = out.at(0).data<float>()[16 * 32 + 16];
  std::printf("features %s, center %g, %zu trace events\n", out.at(0).shape().to_string().c_str(),
              center, stats.trace.size());
  if (out.at(0).num_elements() != 2 * 8 * 32 * 32 || std::fabs(center - 2.7f) > 1e-5f ||
      stats.trace.empty()) {
    std::fprintf(stderr, "unexpected result\n");
    return 1;
  }
  return 0;
}
