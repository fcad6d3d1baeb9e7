# Random generators (random/random_ops.h): RandomUniform, RandomNormal, their
# Like forms, Bernoulli, Multinomial.
add_library(loom_kernels_random STATIC
  random/random_ops.cc
)
target_link_libraries(loom_kernels_random PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_random_test
  SOURCES random/random_ops_test.cc
  LIBS loom_kernels loom_kernel_test_util LABELS kernels)
