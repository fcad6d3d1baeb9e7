// FuseGelu: the GELU PyTorch's exporter writes before opset 20, one op per
// step, becomes one Gelu node (approximate "none" or "tanh"):
//
//   erf:  x * 0.5 * (1 + Erf(x / 1.41421...))     (or Erf(x * 0.70710...))
//   tanh: x * 0.5 * (1 + Tanh(0.79788... * (x + 0.044715 * x^3)))
//         with x^3 as Mul(x, Mul(x, x)) in any grouping, or Pow(x, 3)
//
// Products are matched as multisets of factors: a Mul tree is flattened
// through every Mul whose output has a single private reader, so any
// grouping and operand order matches (PyTorch writes Mul(Mul(x, gate), 0.5);
// others write Mul(Mul(x, 0.5), gate)). Constants are one-element float32
// initializers of rank 0 (or of a rank x is known to have, so they do not
// broadcast x up) within kRelativeTolerance of the exact value: exporters
// round sqrt(2) and sqrt(2/pi) to float32 or to a few digits.
//
// The anchor is the outer Mul; x itself stays (other nodes may read it),
// every other node of the pattern must have a single private reader inside
// it. The Gelu takes the anchor's name and output. Matches never overlap: a
// node already used by a match is not matched again.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

constexpr double kRelativeTolerance = 1e-4;
// More factors than any GELU product has (x, x, x, kappa): bounds the walk.
constexpr size_t kMaxFactors = 4;
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kInverseSqrt2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kKappa = 0.044715;  // the tanh approximation's cubic term

// The factors of a product and the Mul nodes that form it.
struct Product {
  std::vector<std::string> factors;
  std::vector<size_t> muls;
};

// Where one match ends up: x, the nodes to erase (all but the anchor) and
// the constants they read.
struct Match {
  std::string x;
  std::vector<size_t> nodes;
  std::vector<std::string> constants;
};

class GeluFuser {
 public:
  explicit GeluFuser(Graph& graph)
      : graph_(graph), index_(graph), used_(graph.nodes.size(), false) {}

  bool Run() {
    std::vector<bool> erase(graph_.nodes.size(), false);
    std::vector<std::string> constants;
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (graph_.nodes[i].op_type != "Mul" || used_[i]) continue;
      bool tanh = false;
      std::optional<Match> match = MatchFrom(i, tanh);
      if (!match) continue;
      Node& gelu = graph_.nodes[i];
      gelu.op_type = "Gelu";
      gelu.inputs = {match->x};
      gelu.attributes = {{"approximate", std::string(tanh ? "tanh" : "none")}};
      used_[i] = true;
      for (size_t k : match->nodes) erase[k] = used_[k] = true;
      constants.insert(constants.end(), match->constants.begin(), match->constants.end());
      changed = true;
    }
    if (!changed) return false;
    EraseNodes(graph_, erase);
    RemoveUnusedInitializers(graph_, constants);
    DropStaleValueTypes(graph_);
    return true;
  }

 private:
  // The node producing `value` when its output is read by one node only, is
  // not fetched, has op `op` and is not yet used by a match.
  std::optional<size_t> PrivateProducer(const std::string& value, const std::string& op) const {
    const std::optional<size_t> k = index_.producer(value);
    if (!k || used_[*k] || !index_.has_single_private_use(value)) return std::nullopt;
    const Node& node = graph_.nodes[*k];
    if (node.op_type != op || node.outputs.size() != 1) return std::nullopt;
    return k;
  }

  // Appends the factors of the two-input Mul `k` to `product`, descending
  // into private Mul operands; false when there are more than kMaxFactors.
  bool Flatten(size_t k, Product& product) const {
    const Node& mul = graph_.nodes[k];
    if (mul.inputs.size() != 2) return false;
    product.muls.push_back(k);
    for (const std::string& operand : mul.inputs) {
      if (const std::optional<size_t> inner = PrivateProducer(operand, "Mul")) {
        if (!Flatten(*inner, product)) return false;
      } else {
        product.factors.push_back(operand);
      }
      if (product.factors.size() > kMaxFactors) return false;
    }
    return true;
  }

  // True when `value` is a one-element float32 constant within the
  // tolerance of `expected` that does not broadcast x to a higher rank.
  bool IsConstant(const std::string& value, double expected, const std::string& x) const {
    const Tensor* t = FindConstant(graph_, value);
    if (t == nullptr || t->dtype() != DType::kFloat32 || t->num_elements() != 1) return false;
    if (t->shape().rank() > 0) {
      const std::optional<TensorType> type = KnownType(graph_, x);
      if (!type || !type->shape || static_cast<int>(type->shape->size()) < t->shape().rank()) {
        return false;
      }
    }
    const double v = t->data<float>()[0];
    return std::abs(v - expected) <= kRelativeTolerance * std::abs(expected);
  }

  // `factors` are exactly x once and a constant `c` (in either order).
  bool IsScaledX(const std::vector<std::string>& factors, const std::string& x, double c,
                 Match& m) const {
    if (factors.size() != 2) return false;
    for (int first = 0; first < 2; ++first) {
      const std::string& a = factors[static_cast<size_t>(first)];
      const std::string& b = factors[static_cast<size_t>(1 - first)];
      if (a == x && IsConstant(b, c, x)) {
        m.constants.push_back(b);
        return true;
      }
    }
    return false;
  }

  // gate = Add(Op(inner), 1) in either order, Op = Erf or Tanh; sets m.x
  // from inner. Returns the op matched, or "" when none.
  std::string MatchGate(const std::string& gate, Match& m) const {
    const std::optional<size_t> add = PrivateProducer(gate, "Add");
    if (!add) return "";
    const Node& add_node = graph_.nodes[*add];
    if (add_node.inputs.size() != 2) return "";
    for (int first = 0; first < 2; ++first) {
      const std::string& activated = add_node.inputs[static_cast<size_t>(first)];
      const std::string& one = add_node.inputs[static_cast<size_t>(1 - first)];
      for (const char* op : {"Erf", "Tanh"}) {
        const std::optional<size_t> f = PrivateProducer(activated, op);
        if (!f || graph_.nodes[*f].inputs.size() != 1) continue;
        Match inner = m;
        const std::string& arg = graph_.nodes[*f].inputs[0];
        const bool matched =
            std::string(op) == "Erf" ? MatchErfArgument(arg, inner) : MatchTanhArgument(arg, inner);
        if (!matched || !IsConstant(one, 1.0, inner.x)) continue;
        m = inner;
        m.constants.push_back(one);
        m.nodes.push_back(*add);
        m.nodes.push_back(*f);
        return op;
      }
    }
    return "";
  }

  // arg = Div(x, sqrt(2)) or Mul(x, 1/sqrt(2)) in either order.
  bool MatchErfArgument(const std::string& arg, Match& m) const {
    if (const std::optional<size_t> div = PrivateProducer(arg, "Div")) {
      const Node& node = graph_.nodes[*div];
      if (node.inputs.size() != 2 || !IsConstant(node.inputs[1], kSqrt2, node.inputs[0])) {
        return false;
      }
      m.x = node.inputs[0];
      m.constants.push_back(node.inputs[1]);
      m.nodes.push_back(*div);
      return true;
    }
    const std::optional<size_t> mul = PrivateProducer(arg, "Mul");
    if (!mul) return false;
    const Node& node = graph_.nodes[*mul];
    if (node.inputs.size() != 2) return false;
    for (int first = 0; first < 2; ++first) {
      const std::string& x = node.inputs[static_cast<size_t>(first)];
      const std::string& c = node.inputs[static_cast<size_t>(1 - first)];
      if (IsConstant(c, kInverseSqrt2, x)) {
        m.x = x;
        m.constants.push_back(c);
        m.nodes.push_back(*mul);
        return true;
      }
    }
    return false;
  }

  // arg = sqrt(2/pi) * (x + kappa * x^3), products in any grouping.
  bool MatchTanhArgument(const std::string& arg, Match& m) const {
    const std::optional<size_t> outer = PrivateProducer(arg, "Mul");
    Product scaled;
    if (!outer || !Flatten(*outer, scaled) || scaled.factors.size() != 2) return false;
    for (int first = 0; first < 2; ++first) {
      const std::string& sum = scaled.factors[static_cast<size_t>(first)];
      const std::string& c = scaled.factors[static_cast<size_t>(1 - first)];
      const std::optional<size_t> add = PrivateProducer(sum, "Add");
      if (!add || graph_.nodes[*add].inputs.size() != 2) continue;
      for (int x_first = 0; x_first < 2; ++x_first) {
        const Node& add_node = graph_.nodes[*add];
        Match inner = m;
        inner.x = add_node.inputs[static_cast<size_t>(x_first)];
        if (!IsConstant(c, kSqrt2OverPi, inner.x) ||
            !MatchCubicTerm(add_node.inputs[static_cast<size_t>(1 - x_first)], inner)) {
          continue;
        }
        m = inner;
        m.constants.push_back(c);
        m.nodes.insert(m.nodes.end(), scaled.muls.begin(), scaled.muls.end());
        m.nodes.push_back(*add);
        return true;
      }
    }
    return false;
  }

  // term = kappa * m.x^3: factors {kappa, x, x, x} or {kappa, Pow(x, 3)}.
  bool MatchCubicTerm(const std::string& term, Match& m) const {
    const std::optional<size_t> mul = PrivateProducer(term, "Mul");
    Product product;
    if (!mul || !Flatten(*mul, product)) return false;
    std::vector<std::string> rest;
    std::string kappa;
    for (const std::string& f : product.factors) {
      if (kappa.empty() && f != m.x && IsConstant(f, kKappa, m.x)) {
        kappa = f;
      } else {
        rest.push_back(f);
      }
    }
    if (kappa.empty()) return false;
    std::vector<size_t> pow_nodes;
    if (rest.size() == 1) {
      const std::optional<size_t> pow = PrivateProducer(rest[0], "Pow");
      if (!pow) return false;
      const Node& node = graph_.nodes[*pow];
      if (node.inputs.size() != 2 || node.inputs[0] != m.x ||
          !IsConstant(node.inputs[1], 3.0, m.x)) {
        return false;
      }
      m.constants.push_back(node.inputs[1]);
      pow_nodes.push_back(*pow);
    } else if (rest != std::vector<std::string>{m.x, m.x, m.x}) {
      return false;
    }
    m.constants.push_back(kappa);
    m.nodes.insert(m.nodes.end(), product.muls.begin(), product.muls.end());
    m.nodes.insert(m.nodes.end(), pow_nodes.begin(), pow_nodes.end());
    return true;
  }

  // The anchor Mul `anchor` as x * 0.5 * gate. Sets `tanh` to the form.
  std::optional<Match> MatchFrom(size_t anchor, bool& tanh) const {
    Product product;
    if (!Flatten(anchor, product) || product.factors.size() != 3) return std::nullopt;
    for (size_t g = 0; g < 3; ++g) {
      Match m;
      const std::string op = MatchGate(product.factors[g], m);
      if (op.empty()) continue;
      std::vector<std::string> rest;
      for (size_t k = 0; k < 3; ++k) {
        if (k != g) rest.push_back(product.factors[k]);
      }
      if (!IsScaledX(rest, m.x, 0.5, m)) continue;
      // The anchor is rewritten, not erased.
      m.nodes.insert(m.nodes.end(), product.muls.begin() + 1, product.muls.end());
      for (size_t k : m.nodes) {
        if (used_[k]) return std::nullopt;
      }
      tanh = op == "Tanh";
      return m;
    }
    return std::nullopt;
  }

  Graph& graph_;
  const GraphIndex index_;
  std::vector<bool> used_;
};

}  // namespace

bool FuseGelu(Graph& graph) { return GeluFuser(graph).Run(); }

}  // namespace loom::graph
