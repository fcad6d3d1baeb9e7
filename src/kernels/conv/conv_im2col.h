// im2col: lays out the input windows of a convolution as the columns of a
// matrix so that the convolution becomes one GEMM (W [M, K] x col [K, P]).
//
// For channels C, kernel sizes k..., and P = prod(output sizes), fills the
// K x P matrix (K = C * prod(k), row-major) with
//   col[(c, t...)][o...] = x[c, o*s - pb + t*d]   (0 where that is padding)
// which is the serial loop over rows (c, t...) it parallelizes over.
#pragma once

#include <cstdint>

#include "kernels/spatial_geometry.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::kernels {

// x: C planes of prod(geometry.input) floats; col: K x P floats.
void Im2Col(const float* x, int64_t channels, const SpatialGeometry& geometry, float* col,
            threading::ThreadPool* pool);

}  // namespace loom::kernels
