# RNN, GRU and LSTM (recurrent/recurrent.h): an input-projection GEMM per
# direction, then per step a recurrent GEMM and the fused gate math; the
# plain reference beside them.
add_library(loom_kernels_recurrent STATIC
  recurrent/recurrent.cc
  recurrent/recurrent_problem.cc
  recurrent/recurrent_reference.cc
)
target_link_libraries(loom_kernels_recurrent
  PUBLIC loom_kernels_core loom_kernels_elementwise PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_recurrent_test
  SOURCES recurrent/recurrent_test.cc
  LIBS loom_kernels_recurrent loom_kernel_test_util LABELS kernels)
