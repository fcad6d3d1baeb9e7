# Fused scaled-dot-product attention (attention/attention.h): LoomAttention,
# the flash-attention kernel the attention fusion pass writes, with AVX-512,
# AVX2 and portable micro-kernels from one template
# (attention/attention_micro_kernel_impl.h); ONNX Attention (opsets 23/24,
# attention/onnx_attention.h) on the same units.
add_library(loom_kernels_attention STATIC
  attention/attention.cc
  attention/attention_geometry.cc
  attention/attention_micro_kernel_portable.cc
  attention/attention_reference.cc
  attention/onnx_attention.cc
  attention/onnx_attention_geometry.cc
  attention/onnx_attention_reference.cc
  attention/f32_attention__avx2_fma.cc
  attention/f32_attention__avx512f.cc
)
set_source_files_properties(attention/f32_attention__avx2_fma.cc
  PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
set_source_files_properties(attention/f32_attention__avx512f.cc
  PROPERTIES COMPILE_OPTIONS "-mavx512f")
# The portable 8-float vectors pass between inline functions only, so the
# note that their ABI differs from AVX code does not apply.
set_source_files_properties(attention/attention_micro_kernel_portable.cc
  PROPERTIES COMPILE_OPTIONS "-Wno-psabi")
target_link_libraries(loom_kernels_attention PUBLIC loom_kernels_core PRIVATE loom_warnings)
loom_add_test(NAME loom_kernels_attention_test
  SOURCES attention/attention_test.cc attention/onnx_attention_test.cc
  LIBS loom_kernels_attention loom_kernel_test_util
  LABELS kernels)
