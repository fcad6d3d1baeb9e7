# Shape and data-movement operators (shape/shape_ops.h). Pure data movement: no
# ISA-specific sources (byte movement is memory-bound; see the note atop
# shape/shape_ops_transpose.cc).
add_library(loom_kernels_shape_ops STATIC
  shape/shape_ops_cast.cc
  shape/shape_ops_cast_like.cc
  shape/shape_ops_col2im.cc
  shape/shape_ops_concat_split.cc
  shape/shape_ops_constant.cc
  shape/shape_ops_crop_pad.cc
  shape/shape_ops_det.cc
  shape/shape_ops_depth_space.cc
  shape/shape_ops_expand_tile.cc
  shape/shape_ops_gather.cc
  shape/shape_ops_gather_nd.cc
  shape/shape_ops_index.cc
  shape/shape_ops_max_unpool.cc
  shape/shape_ops_pad.cc
  shape/shape_ops_reshape.cc
  shape/shape_ops_reverse_sequence.cc
  shape/shape_ops_scatter.cc
  shape/shape_ops_slice.cc
  shape/shape_ops_tensor_scatter.cc
  shape/shape_ops_transpose.cc
  shape/shape_ops_triangle.cc
  shape/shape_ops_unique.cc
  shape/shape_ops_util.cc
  shape/shape_ops_data_reference.cc
  shape/shape_ops_reference.cc
)
target_link_libraries(loom_kernels_shape_ops PUBLIC loom_kernels_core loom_kernels_strings PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_shape_ops_test
  SOURCES
    shape/shape_ops_cast_test.cc
    shape/shape_ops_cast_like_test.cc
    shape/shape_ops_concat_split_test.cc
    shape/shape_ops_constant_test.cc
    shape/shape_ops_data_test.cc
    shape/shape_ops_depth_space_test.cc
    shape/shape_ops_expand_tile_test.cc
    shape/shape_ops_gather_test.cc
    shape/shape_ops_gather_nd_test.cc
    shape/shape_ops_index_test.cc
    shape/shape_ops_pad_test.cc
    shape/shape_ops_reshape_test.cc
    shape/shape_ops_scatter_test.cc
    shape/shape_ops_slice_test.cc
    shape/shape_ops_transpose_test.cc
    shape/shape_ops_triangle_test.cc
    shape/shape_ops_unique_test.cc
  LIBS loom_kernels_shape_ops loom_kernel_test_util LABELS kernels)
