# Quantized inference (quant/quant.h): QuantizeLinear, DequantizeLinear,
# DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and
# QLinearConv on one int16 x int16 -> int32 GEMM (quant/int_gemm.h), and
# QLinearConv on AVX-512 VNNI where prepared (quant/qlinear_conv_vnni.h), and
# the internal LoomQLinearAdd (quant/qlinear_add.cc).
add_library(loom_kernels_quant STATIC
  quant/conv_integer.cc
  quant/int_gemm.cc
  quant/matmul_integer.cc
  quant/qlinear_add.cc
  quant/quant_common.cc
  quant/quant_reference.cc
  quant/qlinear_conv_vnni.cc
  quant/quantize_linear.cc
  quant/s16_gemm_4x16__avx2.cc
  quant/quant_spans__avx512.cc
  quant/u8s8_conv_32x32__amx.cc
  quant/u8s8_conv_8x48__avx512vnni.cc
)
set_source_files_properties(quant/s16_gemm_4x16__avx2.cc PROPERTIES COMPILE_OPTIONS "-mavx2")
set_source_files_properties(quant/quant_spans__avx512.cc PROPERTIES COMPILE_OPTIONS
  "-mavx512f;-mavx512bw;-mavx512vl;-ffp-contract=off")
set_source_files_properties(quant/u8s8_conv_32x32__amx.cc PROPERTIES COMPILE_OPTIONS
  "-mavx512f;-mavx512bw;-mavx512vl;-mamx-tile;-mamx-int8")
set_source_files_properties(quant/u8s8_conv_8x48__avx512vnni.cc PROPERTIES COMPILE_OPTIONS
  "-mavx512f;-mavx512bw;-mavx512vl;-mavx512vnni")
target_link_libraries(loom_kernels_quant PUBLIC loom_kernels_core loom_kernels_matmul
  PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_quant_test
  SOURCES quant/quant_test.cc quant/qlinear_add_test.cc quant/qlinear_conv_vnni_test.cc
  LIBS loom_kernels_quant loom_kernels_elementwise loom_kernel_test_util LABELS kernels)
