#include "kernels/loss/loss_functions.h"

#include <string>
#include <vector>

#include "kernels/half_float.h"
#include "kernels/normalization/normalization.h"
#include "kernels/reference/element_access.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

enum class Reduction { kNone, kSum, kMean };

Reduction ReadReduction(std::string_view op, const Attributes& attrs) {
  const std::string reduction = attrs.get_string("reduction", "mean");
  if (reduction == "none") return Reduction::kNone;
  if (reduction == "sum") return Reduction::kSum;
  if (reduction == "mean") return Reduction::kMean;
  ThrowKernelError(op, "reduction is \"" + reduction + "\"; it must be none, sum or mean");
}

// The negative log-likelihood of `log_prob` [N, C, ...] at the targets, as
// loss_functions.h states it; `name` is the target input's name.
Tensor Nll(std::string_view op, const Tensor& log_prob, const Tensor& target, const Tensor* weight,
           const Attributes& attrs, const char* name) {
  const Shape& shape = log_prob.shape();
  if (shape.rank() < 2) {
    ThrowKernelError(op, "input has shape " + shape.to_string() + "; it must be [N, C, ...]");
  }
  CheckDType(op, name, target, {DType::kInt32, DType::kInt64});
  const int64_t n_count = shape.dims()[0];
  const int64_t classes = shape.dims()[1];
  std::vector<int64_t> target_dims = shape.dims();
  target_dims.erase(target_dims.begin() + 1);
  if (target.shape().dims() != target_dims) {
    ThrowKernelError(op, std::string(name) + " has shape " + target.shape().to_string() +
                             "; for input " + shape.to_string() + " it must be " +
                             Shape(target_dims).to_string());
  }
  if (weight != nullptr && (weight->shape().rank() != 1 || weight->shape().dims()[0] != classes ||
                            weight->dtype() != log_prob.dtype())) {
    ThrowKernelError(op, "weight must be a 1-D " + std::string(dtype_name(log_prob.dtype())) +
                             " tensor of " + std::to_string(classes) + " elements, got " +
                             std::string(dtype_name(weight->dtype())) +
                             weight->shape().to_string());
  }
  const Reduction reduction = ReadReduction(op, attrs);
  // GCC 12 warns about a std::optional here (maybe-uninitialized): a flag.
  const bool has_ignore = attrs.has("ignore_index");
  const int64_t ignore = has_ignore ? attrs.get_int("ignore_index") : 0;
  const int64_t inner = target.num_elements() / (n_count == 0 ? 1 : n_count);
  Tensor losses = Tensor::uninitialized(log_prob.dtype(), Shape(target_dims));
  double total = 0;
  double weights = 0;
  for (int64_t n = 0; n < n_count; ++n) {
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t index = n * inner + d;
      const int64_t label = ReadElementAsInt64(target, index);
      double loss = 0;
      double w = 0;
      if (!(has_ignore && label == ignore)) {
        if (label < 0 || label >= classes) {
          ThrowKernelError(op, std::string(name) + " element " + std::to_string(index) + " = " +
                                   std::to_string(label) + " is not a class in [0, " +
                                   std::to_string(classes) + ") nor ignore_index");
        }
        w = weight != nullptr ? ReadElementAsDouble(*weight, label) : 1.0;
        loss = -ReadElementAsDouble(log_prob, (n * classes + label) * inner + d) * w;
      }
      total += loss;
      weights += w;
      if (reduction == Reduction::kNone) WriteElementFromDouble(losses, index, loss);
    }
  }
  if (reduction == Reduction::kNone) return losses;
  Tensor out = Tensor::uninitialized(log_prob.dtype(), Shape());
  WriteElementFromDouble(out, 0, reduction == Reduction::kSum ? total : total / weights);
  return out;
}

void CheckFloat(std::string_view op, const Tensor& t) {
  if (!dtype_is_float(t.dtype())) {
    ThrowKernelError(op, "input has dtype " + std::string(dtype_name(t.dtype())) +
                             "; it must be floating point");
  }
}

}  // namespace

std::vector<Tensor> NegativeLogLikelihoodLossKernel(const KernelContext&, const Attributes& attrs,
                                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "NegativeLogLikelihoodLoss";
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  CheckFloat(kOp, input);
  const Tensor& target = RequiredInput(kOp, inputs, 1, "target");
  return {Nll(kOp, input, target, OptionalInput(inputs, 2), attrs, "target")};
}

std::vector<Tensor> SoftmaxCrossEntropyLossKernel(const KernelContext& ctx, const Attributes& attrs,
                                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "SoftmaxCrossEntropyLoss";
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& scores = RequiredInput(kOp, inputs, 0, "scores");
  CheckFloat(kOp, scores);
  const Tensor& labels = RequiredInput(kOp, inputs, 1, "labels");
  if (scores.shape().rank() < 2) {
    ThrowKernelError(kOp,
                     "scores has shape " + scores.shape().to_string() + "; it must be [N, C, ...]");
  }
  // log_prob = LogSoftmax(scores, axis 1), by the LogSoftmax kernel (float16
  // and bfloat16 through float32, narrowed at the end).
  const bool narrow = ComputesInFloat32(scores.dtype());
  const Tensor wide = narrow ? WidenToFloat32(scores) : scores;
  const Tensor* softmax_inputs[] = {&wide};
  Tensor log_prob = LogSoftmaxKernel(ctx, Attributes().set("axis", int64_t{1}), softmax_inputs)[0];
  Tensor loss = Nll(kOp, log_prob, labels, OptionalInput(inputs, 2), attrs, "labels");
  if (narrow) {
    loss = NarrowFromFloat32(loss, scores.dtype());
    if (ctx.num_outputs != 1) log_prob = NarrowFromFloat32(log_prob, scores.dtype());
  }
  if (ctx.num_outputs == 1) return {std::move(loss)};
  return {std::move(loss), std::move(log_prob)};
}

}  // namespace loom::kernels
