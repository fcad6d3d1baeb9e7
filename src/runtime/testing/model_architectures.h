// The shared models' architectures (../shared/models: torchvision ResNet-18
// and MobileNet-V2, and the 784-1024-1024-10 MLP, all exported with
// BatchNorm folded into the convolutions) rebuilt with GraphBuilder and
// fixed-seed random weights. Same op types, shapes and node counts as the
// ONNX files (export_meta.json), so they time like the real models; the
// benchmarks use them until the ONNX importer can load the files
// themselves. Input "input" with a symbolic batch "N"; output "output".
#pragma once

#include "loom/graph.h"

namespace loom::runtime::testing {

// conv1 7x7/2 → MaxPool → 4 stages × 2 basic blocks (3x3 convs, 1x1/2
// downsample shortcuts) → GlobalAveragePool → Flatten → Gemm 512→1000.
// 20 Conv, 17 Relu, 8 Add.
Graph ResNet18Graph();

// Stem 3x3/2 → 17 inverted residual blocks (1x1 expand, 3x3 depthwise, 1x1
// project; Clip(0, 6) as ReLU6) → 1x1 to 1280 → GlobalAveragePool →
// Flatten → Gemm 1280→1000. 52 Conv, 35 Clip, 10 Add.
Graph MobileNetV2Graph();

// [N, 784] → Gemm 1024 → Relu → Gemm 1024 → Relu → Gemm 10 → Softmax.
Graph MlpGraph();

}  // namespace loom::runtime::testing
