# Pooling kernels (MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool).
add_library(loom_kernels_pool STATIC
  pool/pool_average.cc
  pool/pool_common.cc
  pool/pool_global.cc
  pool/pool_lp.cc
  pool/pool_max.cc
  pool/pool_rows_portable.cc
  pool/pool_lp_reference.cc
  pool/pool_reference.cc
  pool/f32_pool_rows__avx2_fma.cc
)
# GCC's -O2 vectorizer cost model ("very cheap") skips any loop whose trip
# count needs a scalar epilogue, i.e. every row loop here; "dynamic" (the
# -O3 model) vectorizes them. MaxPool 3x3/2 on [1, 64, 112, 112], AVX2, one
# thread: ~22 ms -> ~4 ms wall (about 1 ms of CPU time) on a shared, loaded
# 2-core development box; rough numbers, the lead's benchmarks are the record.
set_source_files_properties(pool/pool_rows_portable.cc PROPERTIES COMPILE_OPTIONS
  "$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>")
set_source_files_properties(pool/f32_pool_rows__avx2_fma.cc PROPERTIES COMPILE_OPTIONS
  "-mavx2;-mfma;$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>")
target_link_libraries(loom_kernels_pool PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_pool_test
  SOURCES pool/pool_average_test.cc pool/pool_global_test.cc pool/pool_lp_test.cc pool/pool_max_test.cc
  LIBS loom_kernels_pool loom_kernel_test_util LABELS kernels)
