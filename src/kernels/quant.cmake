# Quantized inference (quant/quant.h): QuantizeLinear, DequantizeLinear,
# DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and
# QLinearConv on one int16 x int16 -> int32 GEMM (quant/int_gemm.h).
add_library(loom_kernels_quant STATIC
  quant/conv_integer.cc
  quant/int_gemm.cc
  quant/matmul_integer.cc
  quant/quant_common.cc
  quant/quant_reference.cc
  quant/quantize_linear.cc
  x86/s16_gemm_4x16__avx2.cc
)
set_source_files_properties(x86/s16_gemm_4x16__avx2.cc PROPERTIES COMPILE_OPTIONS "-mavx2")
target_link_libraries(loom_kernels_quant PUBLIC loom_kernels_core loom_kernels_matmul
  PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_quant_test
  SOURCES quant/quant_test.cc
  LIBS loom_kernels_quant loom_kernel_test_util LABELS kernels)
