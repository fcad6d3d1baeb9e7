# Loss functions (loss/loss_functions.h): NegativeLogLikelihoodLoss,
# SoftmaxCrossEntropyLoss.
add_library(loom_kernels_loss STATIC
  loss/loss_functions.cc
)
target_link_libraries(loom_kernels_loss PUBLIC loom_kernels_core loom_kernels_normalization
                      PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_loss_test
  SOURCES loss/loss_functions_test.cc
  LIBS loom_kernels loom_kernel_test_util LABELS kernels)
