# Transformer building blocks (transformer/transformer.h): RMSNormalization
# and RotaryEmbedding (ONNX opset 23). The attention op is in attention/.
add_library(loom_kernels_transformer STATIC
  transformer/rms_norm.cc
  transformer/rotary_embedding.cc
  transformer/transformer_reference.cc
)
target_link_libraries(loom_kernels_transformer PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_transformer_test
  SOURCES transformer/rms_norm_test.cc transformer/rotary_embedding_test.cc
  LIBS loom_kernels_transformer loom_kernel_test_util LABELS kernels)
