// The storage behind loom::Tensor (declared opaque in the public header).
#pragma once

#include "base/aligned_buffer.h"

namespace loom::detail {

class Storage : public base::AlignedBuffer {
 public:
  using AlignedBuffer::AlignedBuffer;
};

}  // namespace loom::detail
