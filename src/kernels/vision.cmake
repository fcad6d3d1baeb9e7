# Vision (vision/vision.h): GridSample, AffineGrid, RoiAlign, MaxRoiPool, DeformConv
# and NonMaxSuppression, with their
# plain references (vision/vision_reference.h).
add_library(loom_kernels_vision STATIC
  vision/affine_grid.cc
  vision/deform_conv.cc
  vision/grid_sample.cc
  vision/max_roi_pool.cc
  vision/non_max_suppression.cc
  vision/roi_align.cc
  vision/vision_reference.cc
)
target_link_libraries(loom_kernels_vision PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_vision_test
  SOURCES vision/deform_conv_test.cc vision/grid_sample_test.cc vision/non_max_suppression_test.cc
          vision/roi_align_test.cc vision/max_roi_pool_test.cc
  LIBS loom_kernels_vision loom_kernel_test_util LABELS kernels)
