// RNN, GRU and LSTM: X [seq, batch, input] (layout 1: [batch, seq, input]),
// W [dirs, gates * hidden, input], R [dirs, gates * hidden, hidden] ->
// Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]) and
// Y_h, LSTM's Y_c [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]).
#include <string>

#include "graph/type_rules.h"

namespace loom::graph {

std::vector<TensorType> InferRecurrent(const NodeTypeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  const bool lstm = op == "LSTM";
  const int64_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
  ctx.CheckInputCount(3, lstm ? 8 : 6);
  for (size_t i : {1, 2, 3, 5, 6, 7}) {
    if (i < ctx.num_inputs()) ctx.CheckSameDType(i, 0);
  }
  if (ctx.num_inputs() > 4) ctx.CheckDTypeIn(4, {DType::kInt32});
  ctx.CheckRank(0, 3);
  ctx.CheckRank(1, 3);
  ctx.CheckRank(2, 3);
  const std::string direction = ctx.GetString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    ctx.Fail("attribute 'direction' must be forward, reverse or bidirectional (got '" + direction +
             "')");
  }
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t layout = ctx.GetInt("layout", 0);
  if (layout != 0 && layout != 1) {
    ctx.Fail("attribute 'layout' must be 0 or 1 (got " + std::to_string(layout) + ")");
  }
  const std::optional<SymbolicShape>& w = ctx.input_shape(1);
  if (w && (*w)[0].is_known() && (*w)[0].size() != dirs) {
    ctx.Fail("input " + ctx.Describe(1) + " must have " + std::to_string(dirs) +
             " directions for direction '" + direction + "'");
  }
  // The hidden size: the attribute, else R's last dim, else W's rows / gates.
  Dim hidden = ctx.UnknownDim();
  const std::optional<SymbolicShape>& r = ctx.input_shape(2);
  if (ctx.has_attribute("hidden_size")) {
    hidden = ctx.GetInt("hidden_size", 0);
    if (r && (*r)[2].is_known() && (*r)[2].size() != hidden.size()) {
      ctx.Fail("attribute 'hidden_size' = " + std::to_string(hidden.size()) +
               " does not match input " + ctx.Describe(2));
    }
  } else if (r) {
    hidden = (*r)[2];
  } else if (w && (*w)[1].is_known()) {
    hidden = (*w)[1].size() / gates;
  }
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const Dim seq = x ? (*x)[layout == 0 ? 0 : 1] : ctx.UnknownDim();
  const Dim batch = x ? (*x)[layout == 0 ? 1 : 0] : ctx.UnknownDim();
  const SymbolicShape y = layout == 0 ? SymbolicShape{seq, dirs, batch, hidden}
                                      : SymbolicShape{batch, seq, dirs, hidden};
  const SymbolicShape state =
      layout == 0 ? SymbolicShape{dirs, batch, hidden} : SymbolicShape{batch, dirs, hidden};
  std::vector<TensorType> outputs = {TensorType{dtype, y}, TensorType{dtype, state}};
  if (lstm) outputs.push_back(TensorType{dtype, state});
  return outputs;
}

}  // namespace loom::graph
