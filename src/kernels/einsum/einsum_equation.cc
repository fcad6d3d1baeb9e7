// Einsum's equation parsing and label sizes (einsum.h).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/einsum/einsum.h"

namespace loom::kernels::einsum {
namespace {

constexpr std::string_view kOp = "Einsum";
constexpr int kEllipsisBase = 52;

struct Term {
  std::vector<int> letters_before, letters_after;  // around the ellipsis
  bool has_ellipsis = false;
};

Term ParseTerm(const std::string& text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (term.has_ellipsis || text.compare(i, 3, "...") != 0) {
        ThrowKernelError(kOp, "equation term '" + text + "' has a malformed ellipsis");
      }
      term.has_ellipsis = true;
      i += 2;
    } else if (c >= 'a' && c <= 'z') {
      (term.has_ellipsis ? term.letters_after : term.letters_before).push_back(c - 'a');
    } else if (c >= 'A' && c <= 'Z') {
      (term.has_ellipsis ? term.letters_after : term.letters_before).push_back(c - 'A' + 26);
    } else {
      ThrowKernelError(kOp, "equation term '" + text + "' has the character '" + std::string(1, c) +
                                "' (expected letters and '...')");
    }
  }
  return term;
}

std::vector<std::string> SplitTerms(const std::string& s) {
  std::vector<std::string> terms(1);
  for (char c : s) {
    if (c == ',') {
      terms.emplace_back();
    } else {
      terms.back() += c;
    }
  }
  return terms;
}

std::vector<int> Labels(const Term& term, int ellipsis_dims, int max_ellipsis) {
  std::vector<int> labels = term.letters_before;
  for (int j = 0; j < ellipsis_dims; ++j)
    labels.push_back(kEllipsisBase + max_ellipsis - ellipsis_dims + j);
  labels.insert(labels.end(), term.letters_after.begin(), term.letters_after.end());
  return labels;
}

}  // namespace

Equation ParseEquation(const std::string& equation, const std::vector<int>& ranks) {
  std::string s;
  for (char c : equation) {
    if (c != ' ') s += c;
  }
  const size_t arrow = s.find("->");
  const std::string lhs = arrow == std::string::npos ? s : s.substr(0, arrow);
  const std::vector<std::string> texts = SplitTerms(lhs);
  if (texts.size() != ranks.size()) {
    ThrowKernelError(kOp, "equation '" + equation + "' has " + std::to_string(texts.size()) +
                              " input terms but the node has " + std::to_string(ranks.size()) +
                              " inputs");
  }
  std::vector<Term> terms;
  std::vector<int> ellipsis_dims;
  int max_ellipsis = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    terms.push_back(ParseTerm(texts[i]));
    const int letters =
        static_cast<int>(terms[i].letters_before.size() + terms[i].letters_after.size());
    const int e = ranks[i] - letters;
    if (e < 0 || (e > 0 && !terms[i].has_ellipsis)) {
      ThrowKernelError(kOp, "equation term '" + texts[i] + "' does not fit input " +
                                std::to_string(i) + " of rank " + std::to_string(ranks[i]));
    }
    ellipsis_dims.push_back(e);
    max_ellipsis = std::max(max_ellipsis, e);
  }
  Equation eq;
  for (size_t i = 0; i < terms.size(); ++i) {
    eq.inputs.push_back(Labels(terms[i], ellipsis_dims[i], max_ellipsis));
  }
  if (arrow != std::string::npos) {
    const std::string rhs = s.substr(arrow + 2);
    if (rhs.find(',') != std::string::npos || rhs.find("->") != std::string::npos) {
      ThrowKernelError(kOp, "equation '" + equation + "' has a malformed output term");
    }
    const Term out = ParseTerm(rhs);
    eq.output = Labels(out, out.has_ellipsis ? max_ellipsis : 0, max_ellipsis);
    for (size_t a = 0; a < eq.output.size(); ++a) {
      const int label = eq.output[a];
      if (std::count(eq.output.begin(), eq.output.end(), label) > 1) {
        ThrowKernelError(kOp, "equation '" + equation + "' repeats a label in its output");
      }
      const bool used = std::any_of(eq.inputs.begin(), eq.inputs.end(), [&](const auto& in) {
        return std::find(in.begin(), in.end(), label) != in.end();
      });
      if (!used) {
        ThrowKernelError(kOp, "equation '" + equation + "' has an output label no input has");
      }
    }
    if (!out.has_ellipsis && max_ellipsis > 0) {
      // ONNX (as NumPy) requires the ellipsis in an explicit output when inputs have one.
      ThrowKernelError(
          kOp, "equation '" + equation + "' drops the ellipsis dims in its output (not supported)");
    }
  } else {
    // Implicit: ellipsis dims first, then the letters used exactly once, sorted.
    for (int j = 0; j < max_ellipsis; ++j) eq.output.push_back(kEllipsisBase + j);
    int counts[kEllipsisBase] = {};
    for (const auto& in : eq.inputs) {
      for (int label : in) {
        if (label < kEllipsisBase) ++counts[label];
      }
    }
    for (int label = 0; label < kEllipsisBase; ++label) {
      if (counts[label] == 1) eq.output.push_back(label);
    }
  }
  return eq;
}

std::vector<int64_t> LabelSizes(const Equation& eq, const std::vector<std::vector<int64_t>>& dims) {
  int max_label = kEllipsisBase;
  for (const auto& in : eq.inputs) {
    for (int label : in) max_label = std::max(max_label, label + 1);
  }
  std::vector<int64_t> sizes(static_cast<size_t>(max_label), -1);
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    for (size_t a = 0; a < eq.inputs[i].size(); ++a) {
      const int label = eq.inputs[i][a];
      const int64_t d = dims[i][a];
      int64_t& size = sizes[static_cast<size_t>(label)];
      const bool broadcastable = label >= kEllipsisBase;
      if (size < 0 || (broadcastable && size == 1)) {
        size = d;
      } else if (d != size && !(broadcastable && d == 1)) {
        ThrowKernelError(kOp, "input " + std::to_string(i) + " has size " + std::to_string(d) +
                                  " on axis " + std::to_string(a) + " where another input has " +
                                  std::to_string(size) + " for the same label");
      }
    }
  }
  return sizes;
}

}  // namespace loom::kernels::einsum
