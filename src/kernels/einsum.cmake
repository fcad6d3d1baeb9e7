# Einsum (einsum/einsum.h): equation parsing, pairwise contractions as
# batched GEMMs, and its plain oracle.
add_library(loom_kernels_einsum STATIC
  einsum/einsum.cc
  einsum/einsum_equation.cc
  einsum/einsum_reference.cc
)
target_link_libraries(loom_kernels_einsum PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_einsum_test
  SOURCES einsum/einsum_test.cc
  LIBS loom_kernels_einsum loom_kernel_test_util LABELS kernels)
