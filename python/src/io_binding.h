// ONNX Runtime's IOBinding and OrtValue for code written against them:
//   binding = sess.io_binding()
//   binding.bind_cpu_input("x", x)
//   binding.bind_output("y", "cpu", 0, np.float32, y.shape, y.ctypes.data)   # preallocated
//   sess.run_with_iobinding(binding)          # y now holds the result
//   outs = binding.copy_outputs_to_cpu()
// Loom runs on the CPU, so a binding is a list of NumPy arrays: an OrtValue
// wraps one (sharing its memory, as ONNX Runtime's CPU OrtValues do), and
// an output bound to a buffer receives a copy of the result after the run
// (the run itself allocates; shapes and dtypes must match, else ValueError).
// device_type other than "cpu" is a ValueError.
//
// Thread safety: as ONNX Runtime's — one binding per thread; runs take the
// session's usual path (InferenceSession.run), which releases the GIL.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bridge.h"

namespace loom::python {

struct OrtValue {
  nb::object array;  // a NumPy array
};

class IoBinding {
 public:
  explicit IoBinding(nb::object session) : session_(std::move(session)) {}

  void BindInput(const std::string& name, nb::object array);
  // `buffer` None: Loom allocates the output.
  void BindOutput(const std::string& name, nb::object buffer);
  // Runs `session` (the one that made this binding) on the bound inputs and
  // fills the bound outputs (all the model's outputs when none is bound).
  void Run(nb::handle session, nb::handle run_options);
  std::vector<OrtValue> Outputs() const;
  nb::list CopyOutputsToCpu() const;
  void ClearInputs() { inputs_.clear(); }
  void ClearOutputs() {
    outputs_.clear();
    results_.clear();
  }

 private:
  nb::object session_;
  std::vector<std::pair<std::string, nb::object>> inputs_;   // a name bound again is replaced
  std::vector<std::pair<std::string, nb::object>> outputs_;  // (name, buffer or None)
  std::vector<nb::object> results_;                          // the last run's, as bound
};

// InferenceSession.run_with_ort_values: run() on OrtValues, OrtValues back.
nb::list RunWithOrtValues(nb::handle session, nb::handle output_names, nb::handle inputs,
                          nb::handle run_options);

void BindIoBinding(nb::module_& m);

}  // namespace loom::python
