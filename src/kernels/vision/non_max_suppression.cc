// NonMaxSuppression (vision.h): per (batch, class), candidates sorted by
// descending score, then greedy selection against the boxes kept so far.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/vision/vision.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "NonMaxSuppression";

// A box as (x0, y0, x1, y1) with x0 <= x1, y0 <= y1, and its area.
struct Corners {
  float x0, y0, x1, y1, area;
};

Corners ToCorners(const float* b, bool center) {
  Corners c;
  if (center) {
    // [x_center, y_center, width, height]
    c.x0 = b[0] - b[2] / 2, c.x1 = b[0] + b[2] / 2;
    c.y0 = b[1] - b[3] / 2, c.y1 = b[1] + b[3] / 2;
  } else {
    // [y1, x1, y2, x2], either corner first
    c.y0 = std::min(b[0], b[2]), c.y1 = std::max(b[0], b[2]);
    c.x0 = std::min(b[1], b[3]), c.x1 = std::max(b[1], b[3]);
  }
  c.area = (c.x1 - c.x0) * (c.y1 - c.y0);
  return c;
}

// Whether b is suppressed by a: IoU > threshold (float32 arithmetic, as
// ONNX's reference); boxes without area never suppress.
bool Suppresses(const Corners& a, const Corners& b, float iou_threshold) {
  const float iw = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  if (iw <= 0) return false;
  const float ih = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  if (ih <= 0) return false;
  const float inter = iw * ih;
  const float uni = a.area + b.area - inter;
  if (inter <= 0 || a.area <= 0 || b.area <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

float ScalarFloat(const Tensor* t, std::string_view name, float fallback, bool* given) {
  if (given) *given = false;
  if (t == nullptr || t->num_elements() == 0) return fallback;
  CheckDType(kOp, name, *t, {DType::kFloat32});
  if (t->num_elements() != 1) {
    ThrowKernelError(kOp, "input '" + std::string(name) + "' must hold one value (got shape " +
                              t->shape().to_string() + ")");
  }
  if (given) *given = true;
  return t->data<float>()[0];
}

}  // namespace

std::vector<Tensor> NonMaxSuppressionKernel(const KernelContext& ctx, const Attributes& attrs,
                                            KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 5);
  const Tensor& boxes = RequiredInput(kOp, inputs, 0, "boxes");
  const Tensor& scores = RequiredInput(kOp, inputs, 1, "scores");
  CheckDType(kOp, "boxes", boxes, {DType::kFloat32});
  CheckDType(kOp, "scores", scores, {DType::kFloat32});
  CheckRank(kOp, "boxes", boxes, 3);
  CheckRank(kOp, "scores", scores, 3);
  const int64_t batches = boxes.shape().dim(0), num_boxes = boxes.shape().dim(1);
  const int64_t classes = scores.shape().dim(1);
  if (boxes.shape().dim(2) != 4) {
    ThrowKernelError(kOp, "input 'boxes' must have shape [batches, boxes, 4] (got " +
                              boxes.shape().to_string() + ")");
  }
  if (scores.shape().dim(0) != batches || scores.shape().dim(2) != num_boxes) {
    ThrowKernelError(kOp, "input 'scores' must have shape [" + std::to_string(batches) +
                              ", classes, " + std::to_string(num_boxes) + "] for boxes " +
                              boxes.shape().to_string() + " (got " + scores.shape().to_string() +
                              ")");
  }
  const int64_t center = attrs.get_int("center_point_box", 0);
  if (center != 0 && center != 1) {
    ThrowKernelError(
        kOp, "attribute 'center_point_box' must be 0 or 1 (got " + std::to_string(center) + ")");
  }
  int64_t max_per_class = 0;
  if (const Tensor* m = OptionalInput(inputs, 2); m != nullptr && m->num_elements() != 0) {
    CheckDType(kOp, "max_output_boxes_per_class", *m, {DType::kInt64});
    if (m->num_elements() != 1) {
      ThrowKernelError(kOp, "input 'max_output_boxes_per_class' must hold one value (got shape " +
                                m->shape().to_string() + ")");
    }
    max_per_class = std::clamp<int64_t>(m->data<int64_t>()[0], 0, num_boxes);
  }
  const float iou_threshold = ScalarFloat(OptionalInput(inputs, 3), "iou_threshold", 0.0f, nullptr);
  bool has_score_threshold = false;
  const float score_threshold =
      ScalarFloat(OptionalInput(inputs, 4), "score_threshold", 0.0f, &has_score_threshold);

  const int64_t units = batches * classes;
  std::vector<std::vector<int64_t>> selected(static_cast<size_t>(units));
  const float* box_data = boxes.data<float>();
  const float* score_data = scores.data<float>();
  if (max_per_class > 0) {
    const double cost = static_cast<double>(num_boxes) * 30.0;
    // Serial loop replaced: for each (batch, class) unit, its selection.
    threading::ParallelFor(ctx.pool, units, cost, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order;
      std::vector<Corners> kept;
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t b = unit / classes;
        const float* s = score_data + unit * num_boxes;
        order.clear();
        for (int64_t i = 0; i < num_boxes; ++i) {
          if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
        }
        // Descending score, ties by ascending index: a strict total order.
        std::sort(order.begin(), order.end(),
                  [s](int64_t i, int64_t j) { return s[i] > s[j] || (s[i] == s[j] && i < j); });
        kept.clear();
        std::vector<int64_t>& out = selected[static_cast<size_t>(unit)];
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
          const Corners c = ToCorners(box_data + (b * num_boxes + i) * 4, center == 1);
          const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const Corners& k) {
            return Suppresses(k, c, iou_threshold);
          });
          if (suppressed) continue;
          kept.push_back(c);
          out.push_back(i);
        }
      }
    });
  }
  int64_t total = 0;
  for (const auto& v : selected) total += static_cast<int64_t>(v.size());
  Tensor output = Tensor::uninitialized(DType::kInt64, Shape({total, 3}));
  int64_t* o = output.data<int64_t>();
  for (int64_t unit = 0; unit < units; ++unit) {
    for (int64_t i : selected[static_cast<size_t>(unit)]) {
      *o++ = unit / classes;
      *o++ = unit % classes;
      *o++ = i;
    }
  }
  return {output};
}

}  // namespace loom::kernels
