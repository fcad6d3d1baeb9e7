# Reductions: ReduceSum ... ReduceLogSumExp, ArgMax, ArgMin, and the ops
# along one axis TopK and CumSum (reduce/reduce.h).
# The float32 inner loops are one template source (reduce/reduce_primitives_impl.h)
# compiled once per ISA level and chosen at run time by
# F32ReducePrimitivesFor.
add_library(loom_kernels_reduce STATIC
  reduce/reduce.cc
  reduce/reduce_arg.cc
  reduce/reduce_cumsum.cc
  reduce/reduce_geometry.cc
  reduce/reduce_primitives_portable.cc
  reduce/reduce_topk.cc
  reduce/reduce_reference.cc
  reduce/f32_reduce_primitives__avx2_fma.cc
  reduce/f32_reduce_primitives__avx512f.cc
)
set_source_files_properties(reduce/f32_reduce_primitives__avx2_fma.cc
  PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
set_source_files_properties(reduce/f32_reduce_primitives__avx512f.cc
  PROPERTIES COMPILE_OPTIONS "-mavx512f")
target_link_libraries(loom_kernels_reduce PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_reduce_test
  SOURCES reduce/reduce_test.cc reduce/reduce_arg_test.cc reduce/reduce_cumsum_test.cc reduce/reduce_log_sum_test.cc
          reduce/reduce_topk_test.cc
  LIBS loom_kernels_reduce loom_kernel_test_util LABELS kernels)
