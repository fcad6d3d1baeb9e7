# Resize (resize/resize.h): nearest, linear and cubic interpolation with
# every ONNX coordinate mode; separable passes, parallel over output rows.
add_library(loom_kernels_resize STATIC
  resize/resize.cc
)
target_link_libraries(loom_kernels_resize
  PUBLIC loom_kernels_core loom_kernels_elementwise PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_resize_test
  SOURCES resize/resize_test.cc
  LIBS loom_kernels_resize loom_kernel_test_util LABELS kernels)
