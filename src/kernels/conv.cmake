# Conv: algorithm choice and prepared weights (conv/conv.cc), im2col, the direct
# depthwise kernel, and the reference loop nest.
add_library(loom_kernels_conv STATIC
  conv/conv.cc
  conv/conv_depthwise.cc
  conv/conv_depthwise_row_portable.cc
  conv/conv_im2col.cc
  conv/conv_transpose.cc
  conv/conv_reference.cc
  conv/f32_dwconv_row__avx2_fma.cc
)
set_source_files_properties(conv/f32_dwconv_row__avx2_fma.cc
  PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
target_link_libraries(loom_kernels_conv PUBLIC loom_kernels_core loom_kernels_activation
  PRIVATE loom_warnings)
loom_add_test(NAME loom_kernels_conv_test
  SOURCES conv/conv_test.cc conv/conv_transpose_test.cc
  LIBS loom_kernels_conv loom_kernel_test_util LABELS kernels)
