# The channel-blocked (NCHWc) family (nchwc/nchwc.h): direct convolution,
# pooling and the layout reorders, with AVX-512, AVX2 and portable inner
# loops from one template (nchwc/nchwc_micro_kernel_impl.h).
add_library(loom_kernels_nchwc STATIC
  nchwc/nchwc_affine.cc
  nchwc/nchwc_conv.cc
  nchwc/nchwc_micro_kernel_portable.cc
  nchwc/nchwc_pool.cc
  nchwc/nchwc_reorder.cc
  nchwc/f32_nchwc__avx2_fma.cc
  nchwc/f32_nchwc__avx512f.cc
)
set_source_files_properties(nchwc/f32_nchwc__avx2_fma.cc
  PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
set_source_files_properties(nchwc/f32_nchwc__avx512f.cc
  PROPERTIES COMPILE_OPTIONS "-mavx512f")
# The portable 8-float vectors pass between inline functions only, so the
# note that their ABI differs from AVX code does not apply.
set_source_files_properties(nchwc/nchwc_micro_kernel_portable.cc
  PROPERTIES COMPILE_OPTIONS "-Wno-psabi")
# The pools' lane loops need the -O3 cost model (see pool.cmake).
set_source_files_properties(nchwc/nchwc_affine.cc nchwc/nchwc_pool.cc nchwc/nchwc_reorder.cc
  PROPERTIES COMPILE_OPTIONS "$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>")
target_link_libraries(loom_kernels_nchwc PUBLIC loom_kernels_core loom_kernels_activation
  PRIVATE loom_warnings)
loom_add_test(NAME loom_kernels_nchwc_test
  SOURCES nchwc/nchwc_test.cc
  LIBS loom_kernels_nchwc loom_kernels_conv loom_kernels_pool loom_kernel_test_util
  LABELS kernels)
