# MatMul and Gemm operators (batched, broadcast, prepared B) on f32_gemm.
add_library(loom_kernels_matmul STATIC
  gemm/matmul.cc
  gemm/matmul_shapes.cc
  gemm/matmul_reference.cc
)
target_link_libraries(loom_kernels_matmul PUBLIC loom_kernels_core loom_kernels_activation
  PRIVATE loom_warnings)
loom_add_test(NAME loom_kernels_matmul_test
  SOURCES gemm/matmul_test.cc
  LIBS loom_kernels_matmul loom_kernel_test_util LABELS kernels)
