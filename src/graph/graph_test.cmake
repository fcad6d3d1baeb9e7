# Type rules and the graph core tests (included by CMakeLists.txt, so paths
# are relative to src/graph/).
target_sources(loom_graph PRIVATE
  type_rule_context.cc
  type_rules.cc
  type_rules_constant_ops.cc
  type_rules_conv_pool.cc
  type_rules_copy_ops.cc
  type_rules_data_ops.cc
  type_rules_elementwise.cc
  type_rules_index_ops.cc
  type_rules_nn.cc
  type_rules_quant.cc
  type_rules_recurrent.cc
  type_rules_prelu_group_norm.cc
  type_rules_reduce.cc
  type_rules_resize.cc
  type_rules_shape_ops.cc
  type_rules_transformer.cc
  type_rules_signal.cc
  type_rules_vision.cc
)

loom_add_test(NAME loom_graph_test
  SOURCES builder_test.cc verifier_test.cc type_inference_test.cc
          type_rules_constant_ops_test.cc type_rules_conv_pool_test.cc
          type_rules_copy_ops_test.cc type_rules_elementwise_test.cc type_rules_index_ops_test.cc
          type_rules_nn_test.cc type_rules_quant_test.cc
          type_rules_data_ops_test.cc
          type_rules_nn_test.cc
          type_rules_nn_test.cc type_rules_prelu_group_norm_test.cc
          type_rules_reduce_test.cc type_rules_shape_ops_test.cc
          type_rules_transformer_test.cc
          type_rules_signal_test.cc type_rules_vision_test.cc
          type_rules_nn_test.cc
          type_rules_recurrent_test.cc type_rules_reduce_test.cc type_rules_shape_ops_test.cc
  LIBS loom_graph LABELS graph)
