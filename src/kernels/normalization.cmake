# Normalization: Softmax, LogSoftmax, Hardmax, BatchNormalization,
# LayerNormalization (normalization/normalization.h). The float32 softmax exp has an AVX2 variant chosen at
# run time by F32SoftmaxPrimitivesFor.
add_library(loom_kernels_normalization STATIC
  normalization/batch_norm.cc
  normalization/group_norm.cc
  normalization/hardmax.cc
  normalization/layer_norm.cc
  normalization/lp_norm.cc
  normalization/lrn.cc
  normalization/mean_variance_norm.cc
  normalization/softmax.cc
  normalization/softmax_primitives_portable.cc
  normalization/normalization_more_reference.cc
  normalization/normalization_reference.cc
  normalization/f32_softmax__avx2_fma.cc
)
set_source_files_properties(normalization/f32_softmax__avx2_fma.cc PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
target_link_libraries(loom_kernels_normalization PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_normalization_test
  SOURCES normalization/softmax_test.cc normalization/hardmax_test.cc normalization/batch_norm_test.cc normalization/layer_norm_test.cc
          normalization/normalization_more_test.cc
  LIBS loom_kernels_normalization loom_kernels_activation loom_kernel_test_util LABELS kernels)
