# Normalization: Softmax, LogSoftmax, Hardmax, BatchNormalization,
# LayerNormalization (normalization.h). The float32 softmax exp has an AVX2 variant chosen at
# run time by F32SoftmaxPrimitivesFor.
add_library(loom_kernels_normalization STATIC
  batch_norm.cc
  group_norm.cc
  hardmax.cc
  layer_norm.cc
  lp_norm.cc
  lrn.cc
  mean_variance_norm.cc
  softmax.cc
  softmax_primitives_portable.cc
  reference/normalization_more_reference.cc
  reference/normalization_reference.cc
  x86/f32_softmax__avx2_fma.cc
)
set_source_files_properties(x86/f32_softmax__avx2_fma.cc PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
target_link_libraries(loom_kernels_normalization PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_normalization_test
  SOURCES softmax_test.cc hardmax_test.cc batch_norm_test.cc layer_norm_test.cc
          normalization_more_test.cc
  LIBS loom_kernels_normalization loom_kernels_activation loom_kernel_test_util LABELS kernels)
