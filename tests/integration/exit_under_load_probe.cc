// A program that ends while other threads are inside Loom: sessions'
// runs, eager ops and a data pipeline's iteration. It must end with the
// program's own status, whether main returns or calls std::exit (static
// destructors run while those threads go on), never with an abort or a
// sanitizer report. Run by exit_under_load_test.cc.
//
// Usage: exit_under_load_probe return|exit
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "loom/data.h"
#include "loom/ops.h"
#include "loom/session.h"

namespace {

// Started threads that have finished at least one call.
std::atomic<int> warmed_up{0};

// Three 3x3 convolutions on [1, 16, 32, 32]: a run of about a millisecond.
std::shared_ptr<loom::Session> MakeSession() {
  loom::GraphBuilder b("probe");
  auto x = b.input("x", loom::DType::kFloat32, {1, 16, 32, 32});
  const loom::Tensor w =
      loom::Tensor::from_vector<float>({16, 16, 3, 3}, std::vector<float>(16 * 16 * 9, 0.01f));
  auto y = x;
  for (int i = 0; i < 3; ++i) {
    y = b.op("Conv", {y, b.constant(w)}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    y = b.op("Relu", {y});
  }
  b.output(y, "y");
  return std::make_shared<loom::Session>(b.build());
}

void RunForever(std::shared_ptr<loom::Session> session) {
  const loom::Tensor x =
      loom::Tensor::from_vector<float>({1, 16, 32, 32}, std::vector<float>(16 * 32 * 32, 1.0f));
  for (bool first = true;; first = false) {
    session->run({{"x", x}});
    if (first) warmed_up.fetch_add(1);
  }
}

void EagerForever() {
  const loom::Tensor a =
      loom::Tensor::from_vector<float>({128, 128}, std::vector<float>(128 * 128, 0.5f));
  for (bool first = true;; first = false) {
    loom::Tensor c = loom::ops::relu(loom::ops::matmul(a, a));
    if (first) warmed_up.fetch_add(1);
  }
}

loom::data::Element Square(loom::data::Element element) {
  const float value = static_cast<float>(element[0].data<int64_t>()[0]);
  return {loom::Tensor::from_vector<float>({256}, std::vector<float>(256, value * value))};
}

void IterateForever() {
  using loom::data::Dataset;
  Dataset ds = Dataset::range(1'000'000'000).map(Square, 2).prefetch(2);
  bool first = true;
  for (loom::data::Element& element : ds.iterate()) {
    (void)element;
    if (first) warmed_up.fetch_add(1);
    first = false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "return" && mode != "exit") {
    std::fprintf(stderr, "usage: exit_under_load_probe return|exit\n");
    return 2;
  }
  auto session = MakeSession();
  std::vector<std::thread> threads;
  threads.emplace_back(RunForever, session);
  threads.emplace_back(RunForever, session);
  threads.emplace_back(RunForever, MakeSession());
  threads.emplace_back(EagerForever);
  threads.emplace_back(IterateForever);
  const int started = static_cast<int>(threads.size());
  for (std::thread& thread : threads) thread.detach();
  session.reset();  // the threads hold the sessions now
  while (warmed_up.load() < started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::printf("exiting with %d threads inside Loom\n", started);
  std::fflush(stdout);
  if (mode == "exit") std::exit(7);
  return 0;
}
