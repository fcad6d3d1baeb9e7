# Elementwise family: broadcast binary, variadic, comparison/logic/Where and
# unary kernels (elementwise/elementwise.h). Activations (elementwise/activation.h) are a library of
# their own so GEMM and Conv can fuse them without pulling in the family.
add_library(loom_kernels_activation STATIC
  elementwise/activation.cc
  elementwise/f32_activation__avx2_fma.cc
  elementwise/f32_activation__avx512f.cc
)
set_source_files_properties(elementwise/f32_activation__avx2_fma.cc
  PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
set_source_files_properties(elementwise/f32_activation__avx512f.cc
  PROPERTIES COMPILE_OPTIONS "-mavx512f")
target_link_libraries(loom_kernels_activation PUBLIC loom_kernels_core PRIVATE loom_warnings)

add_library(loom_kernels_elementwise STATIC
  elementwise/elementwise_binary.cc
  elementwise/elementwise_bitwise.cc
  elementwise/elementwise_broadcast.cc
  elementwise/elementwise_clip.cc
  elementwise/elementwise_common.cc
  elementwise/elementwise_compare.cc
  elementwise/elementwise_dropout.cc
  elementwise/elementwise_math.cc
  elementwise/elementwise_prelu.cc
  elementwise/elementwise_unary.cc
  elementwise/elementwise_variadic.cc
  elementwise/elementwise_bitwise_reference.cc
  elementwise/elementwise_reference.cc
)
# The loops here are plain C++ written for the auto-vectorizer: at -O2 GCC
# 12 uses the "very cheap" cost model, which skips any loop that needs a
# scalar epilogue or an aliasing check, i.e. all of ours (measured: Relu
# and Max ran branchy scalar code at ~10 ns per element). errno is never
# read, so std::sqrt and friends need not call libm for it.
set(LOOM_ELEMENTWISE_VECTORIZE "$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>;-fno-math-errno")
set_source_files_properties(elementwise/activation.cc elementwise/elementwise_binary.cc elementwise/elementwise_bitwise.cc elementwise/elementwise_clip.cc
  elementwise/elementwise_compare.cc elementwise/elementwise_math.cc elementwise/elementwise_prelu.cc elementwise/elementwise_unary.cc
  elementwise/elementwise_variadic.cc PROPERTIES COMPILE_OPTIONS "${LOOM_ELEMENTWISE_VECTORIZE}")
target_link_libraries(loom_kernels_elementwise
  PUBLIC loom_kernels_core loom_kernels_activation PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_elementwise_test
  SOURCES elementwise/activation_test.cc elementwise/elementwise_bitwise_test.cc elementwise/elementwise_dropout_test.cc
          elementwise/elementwise_math_test.cc elementwise/elementwise_test.cc
          elementwise/elementwise_unary_test.cc
  LIBS loom_kernels_elementwise loom_kernel_test_util LABELS kernels)
