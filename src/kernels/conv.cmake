# Conv: algorithm choice and prepared weights (conv.cc), im2col, the direct
# depthwise kernel, and the reference loop nest.
add_library(loom_kernels_conv STATIC
  conv.cc
  conv_depthwise.cc
  conv_depthwise_row_portable.cc
  conv_im2col.cc
  conv_transpose.cc
  reference/conv_reference.cc
  x86/f32_dwconv_row__avx2_fma.cc
)
set_source_files_properties(x86/f32_dwconv_row__avx2_fma.cc
  PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
target_link_libraries(loom_kernels_conv PUBLIC loom_kernels_core loom_kernels_activation
  PRIVATE loom_warnings)
loom_add_test(NAME loom_kernels_conv_test
  SOURCES conv_test.cc conv_transpose_test.cc
  LIBS loom_kernels_conv loom_kernel_test_util LABELS kernels)
