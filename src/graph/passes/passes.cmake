# Optimization passes (included by src/graph/CMakeLists.txt, so paths are
# relative to src/graph/). They run no kernels: constant folding receives an
# evaluator; the test-only interpreter (passes/testing/) is the one place
# that calls kernels, to check each pass keeps the graph's outputs.
add_library(loom_graph_passes STATIC
  passes/attention_fusion.cc
  passes/batchnorm_folding.cc
  passes/bias_activation_fusion.cc
  passes/constant_folding.cc
  passes/dead_node_elimination.cc
  passes/gelu_fusion.cc
  passes/graph_edit.cc
  passes/kernel_attributes.cc
  passes/layer_norm_fusion.cc
  passes/nchwc_layout.cc
  passes/optimize.cc
  passes/pow_simplification.cc
)
target_link_libraries(loom_graph_passes PUBLIC loom_graph PRIVATE loom_warnings)

if(LOOM_BUILD_TESTS)
  add_library(loom_graph_eval STATIC passes/testing/graph_eval.cc)
  target_link_libraries(loom_graph_eval
    PUBLIC loom_graph_passes loom_kernel_test_util PRIVATE loom_warnings)
endif()

loom_add_test(NAME loom_graph_passes_test
  SOURCES passes/attention_fusion_test.cc passes/batchnorm_folding_test.cc
          passes/bias_activation_fusion_test.cc
          passes/constant_folding_test.cc passes/dead_node_elimination_test.cc
          passes/gelu_fusion_test.cc passes/kernel_attributes_test.cc
          passes/layer_norm_fusion_test.cc passes/nchwc_layout_test.cc passes/optimize_test.cc
          passes/pow_simplification_test.cc passes/testing/graph_eval_test.cc
  LIBS loom_graph_passes loom_graph_eval loom_kernel_test_util LABELS graph)
