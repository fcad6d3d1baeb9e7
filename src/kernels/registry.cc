#include "kernels/registry.h"

#include <algorithm>
#include <array>
#include <string>

#include "kernels/attention/attention.h"
#include "kernels/attention/onnx_attention.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/conv_transpose.h"
#include "kernels/einsum/einsum.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_bitwise.h"
#include "kernels/elementwise/elementwise_math.h"
#include "kernels/gemm/matmul.h"
#include "kernels/loss/loss_functions.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/normalization/normalization.h"
#include "kernels/normalization/normalization_more.h"
#include "kernels/pool/pool.h"
#include "kernels/quant/quant.h"
#include "kernels/random/random_ops.h"
#include "kernels/recurrent/recurrent.h"
#include "kernels/reduce/reduce.h"
#include "kernels/resize/resize.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_data.h"
#include "kernels/signal/signal.h"
#include "kernels/strings/string_ops.h"
#include "kernels/strings/tfidf_vectorizer.h"
#include "kernels/transformer/transformer.h"
#include "kernels/vision/vision.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

// If, Loop and Scan run subgraphs, which only a session can do: the
// runtime layer gives their nodes a kernel of its own
// (runtime/control_flow_kernel.h). Listed here so that the verifier, the
// importer and `loom kernels` know the ops; called directly (the eager API,
// constant folding), they refuse.
[[noreturn]] void RefuseControlFlow(std::string_view op) {
  ThrowKernelError(op, "control flow runs only inside a session, which runs its subgraphs");
}
std::vector<Tensor> IfOutsideSession(const KernelContext&, const Attributes&, KernelInputs) {
  RefuseControlFlow("If");
}
std::vector<Tensor> LoopOutsideSession(const KernelContext&, const Attributes&, KernelInputs) {
  RefuseControlFlow("Loop");
}
std::vector<Tensor> ScanOutsideSession(const KernelContext&, const Attributes&, KernelInputs) {
  RefuseControlFlow("Scan");
}

// The sequence and optional ops take and give sequences and optionals,
// which only a session holds: the runtime layer gives their nodes a kernel
// of its own (runtime/sequence_kernels.h). Listed here, as control flow is.
template <size_t N>
struct OpName {
  constexpr OpName(const char (&text)[N]) { std::copy_n(text, N, name); }  // NOLINT: a literal
  char name[N];
};
template <OpName op>
std::vector<Tensor> SequenceOpOutsideSession(const KernelContext&, const Attributes&,
                                             KernelInputs) {
  ThrowKernelError(op.name, "sequences and optionals exist only inside a session");
}

constexpr DTypeMask kF32 = DTypeBit(DType::kFloat32);
constexpr DTypeMask kF64 = DTypeBit(DType::kFloat64);
constexpr DTypeMask kF16 = DTypeBit(DType::kFloat16);
constexpr DTypeMask kI8 = DTypeBit(DType::kInt8);
constexpr DTypeMask kU8 = DTypeBit(DType::kUInt8);
constexpr DTypeMask kI32 = DTypeBit(DType::kInt32);
constexpr DTypeMask kI64 = DTypeBit(DType::kInt64);
constexpr DTypeMask kBool = DTypeBit(DType::kBool);
constexpr DTypeMask kU16 = DTypeBit(DType::kUInt16);
constexpr DTypeMask kU32 = DTypeBit(DType::kUInt32);
constexpr DTypeMask kU64 = DTypeBit(DType::kUInt64);
constexpr DTypeMask kI16 = DTypeBit(DType::kInt16);
constexpr DTypeMask kBF16 = DTypeBit(DType::kBFloat16);
constexpr DTypeMask kFloats = kF32 | kF64 | kF16 | kBF16;
constexpr DTypeMask kNumeric = kFloats | kI8 | kU8 | kI16 | kU16 | kI32 | kU32 | kI64 | kU64;
constexpr DTypeMask kAll = kNumeric | kBool;
constexpr DTypeMask kStr = DTypeBit(DType::kString);
// Ops that move, select or compare elements take strings too: views and
// metadata ops as they are, the others through WithStrings.
constexpr DTypeMask kAllAndStr = kAll | kStr;
// ONNX's reductions take 32- and 64-bit integers (Max and Min 8-bit too),
// not 16-bit ones. float16 has no reduction kernel yet.
constexpr DTypeMask kReduceTypes = kF32 | kF64 | kBF16 | kI32 | kU32 | kI64 | kU64;
constexpr DTypeMask kReduceExtremeTypes = kReduceTypes | kI8 | kU8;
// ArgMax/ArgMin: every ONNX numeric type but float16.
constexpr DTypeMask kArgReduceTypes = kNumeric & ~kF16;
// The Bitwise ops: every integer type.
constexpr DTypeMask kIntegers = kI8 | kU8 | kI16 | kU16 | kI32 | kU32 | kI64 | kU64;

constexpr IsaMask kPortable = IsaBit(Isa::kPortable);
constexpr IsaMask kPortableAvx2 = kPortable | IsaBit(Isa::kAvx2Fma);
constexpr IsaMask kAllIsas = kPortableAvx2 | IsaBit(Isa::kAvx512f);
constexpr IsaMask kPortableAvx512 = kPortable | IsaBit(Isa::kAvx512f);

// `Fn` as it is for other dtypes; on string inputs, `Fn` on their codes
// (strings/string_ops.h: RunOnStringCodes). kT: the inputs of type T (bit
// i = input i); kOut: the outputs of type T.
constexpr uint32_t kAllBits = ~uint32_t{0};
template <KernelFn Fn, uint32_t kT, uint32_t kOut>
std::vector<Tensor> WithStrings(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs) {
  if (!AnyStringInput(inputs)) return Fn(ctx, attrs, inputs);
  return RunOnStringCodes(Fn, kT, kOut, "", ctx, attrs, inputs);
}

// Sorted by op name (a test checks), so lookups can binary-search.
constexpr auto kRegistry = std::to_array<KernelRegistration>({
    {"Abs", kNumeric, kPortable, AbsKernel},
    {"Acos", kFloats, kPortable, AcosKernel},
    {"Acosh", kFloats, kPortable, AcoshKernel},
    {"Add", kNumeric, kPortable, AddKernel},
    {"AffineGrid", kF32 | kF64, kPortable, AffineGridKernel},
    {"And", kBool, kPortable, AndKernel},
    {"ArgMax", kArgReduceTypes, kAllIsas, ArgMaxKernel},
    {"ArgMin", kArgReduceTypes, kAllIsas, ArgMinKernel},
    {"Asin", kFloats, kPortable, AsinKernel},
    {"Asinh", kFloats, kPortable, AsinhKernel},
    {"Atan", kFloats, kPortable, AtanKernel},
    {"Atanh", kFloats, kPortable, AtanhKernel},
    {"Attention", kFloats, kAllIsas, OnnxAttentionKernel},
    {"AveragePool", kF32 | kF64, kPortableAvx2, AveragePoolKernel},
    {"BatchNormalization", kF32 | kF64, kPortable, BatchNormalizationKernel},
    {"Bernoulli", kFloats, kPortable, BernoulliKernel},
    {"BitShift", kU8 | kU16 | kU32 | kU64, kPortable, BitShiftKernel},
    {"BitwiseAnd", kIntegers, kPortable, BitwiseAndKernel},
    {"BitwiseNot", kIntegers, kPortable, BitwiseNotKernel},
    {"BitwiseOr", kIntegers, kPortable, BitwiseOrKernel},
    {"BitwiseXor", kIntegers, kPortable, BitwiseXorKernel},
    {"BlackmanWindow", kI32 | kI64, kPortable, BlackmanWindowKernel},
    {"Cast", kAllAndStr, kPortable, CastKernel},
    {"CastLike", kAllAndStr, kPortable, CastLikeKernel},
    {"Ceil", kFloats, kAllIsas, CeilKernel},
    {"Celu", kF32, kPortable, CeluKernel},
    {"CenterCropPad", kAll, kPortable, CenterCropPadKernel},
    {"Clip", kNumeric, kAllIsas, ClipKernel},
    {"Col2Im", kF32 | kF64, kPortable, Col2ImKernel},
    {"Compress", kAllAndStr, kPortable, WithStrings<CompressKernel, 1, 1>},
    {"Concat", kAllAndStr, kPortable, WithStrings<ConcatKernel, kAllBits, 1>},
    {"ConcatFromSequence", kAll, kPortable, SequenceOpOutsideSession<"ConcatFromSequence">},
    {"Constant", kAllAndStr, kPortable, ConstantKernel},
    {"ConstantOfShape", kI64, kPortable, ConstantOfShapeKernel},
    {"Conv", kF32, kAllIsas, ConvKernel, PrepareConv},
    {"ConvInteger", kI8 | kU8, kPortableAvx2, ConvIntegerKernel},
    {"ConvTranspose", kF32, kAllIsas, ConvTransposeKernel},
    {"Cos", kFloats, kPortable, CosKernel},
    {"Cosh", kFloats, kPortable, CoshKernel},
    {"CumSum", kFloats | kI32 | kI64, kPortable, CumSumKernel},
    {"DFT", kF32 | kF64, kPortable, DftKernel},
    {"DeformConv", kF32, kAllIsas, DeformConvKernel},
    {"DepthToSpace", kAll, kPortable, DepthToSpaceKernel},
    {"DequantizeLinear", kI8 | kU8 | kI16 | kU16 | kI32, kPortable, DequantizeLinearKernel},
    {"Det", kFloats, kPortable, DetKernel},
    {"Div", kNumeric, kPortable, DivKernel},
    {"DynamicQuantizeLinear", kF32, kPortable, DynamicQuantizeLinearKernel},
    {"Einsum", kNumeric & ~(kF16 | kBF16), kAllIsas, EinsumKernel},
    {"Elu", kFloats, kPortable, EluKernel},
    {"Equal", kAllAndStr, kPortable, WithStrings<EqualKernel, 3, 0>},
    {"Erf", kFloats, kAllIsas, ErfKernel},
    {"Exp", kFloats, kAllIsas, ExpKernel},
    {"Expand", kAllAndStr, kPortable, WithStrings<ExpandKernel, 1, 1>},
    {"EyeLike", kAll, kPortable, EyeLikeKernel},
    {"Flatten", kAllAndStr, kPortable, FlattenKernel},
    {"Floor", kFloats, kAllIsas, FloorKernel},
    {"FusedMatMul", kF32, kAllIsas, FusedMatMulKernel, PrepareFusedMatMul},
    {"GRU", kF32 | kF16 | kBF16, kAllIsas, GruKernel, PrepareGru},
    {"Gather", kAllAndStr, kPortable, WithStrings<GatherKernel, 1, 1>},
    {"GatherElements", kAllAndStr, kPortable, WithStrings<GatherElementsKernel, 1, 1>},
    {"GatherND", kAllAndStr, kPortable, WithStrings<GatherNDKernel, 1, 1>},
    {"Gelu", kFloats, kAllIsas, GeluKernel},
    {"Gemm", kF32, kAllIsas, GemmKernel, PrepareGemm},
    {"GlobalAveragePool", kF32 | kF64, kPortableAvx2, GlobalAveragePoolKernel},
    {"GlobalLpPool", kFloats, kPortable, GlobalLpPoolKernel},
    {"GlobalMaxPool", kF32 | kF64, kPortableAvx2, GlobalMaxPoolKernel},
    {"Greater", kNumeric, kPortable, GreaterKernel},
    {"GreaterOrEqual", kNumeric, kPortable, GreaterOrEqualKernel},
    {"GridSample", kF32 | kF64, kPortable, GridSampleKernel},
    {"GroupNormalization", kFloats, kPortable, GroupNormalizationKernel},
    {"HammingWindow", kI32 | kI64, kPortable, HammingWindowKernel},
    {"HannWindow", kI32 | kI64, kPortable, HannWindowKernel},
    {"HardSigmoid", kFloats, kAllIsas, HardSigmoidKernel},
    {"HardSwish", kFloats, kAllIsas, HardSwishKernel},
    {"Hardmax", kFloats, kPortable, HardmaxKernel},
    {"Identity", kAllAndStr, kPortable, IdentityKernel},
    {"If", kAllAndStr, kPortable, IfOutsideSession},
    {"InstanceNormalization", kF32 | kF64, kPortable, InstanceNormalizationKernel},
    {"IsInf", kFloats, kPortable, IsInfKernel},
    {"IsNaN", kFloats, kPortable, IsNaNKernel},
    {"LRN", kFloats, kPortable, LrnKernel},
    {"LSTM", kF32 | kF16 | kBF16, kAllIsas, LstmKernel, PrepareLstm},
    {"LayerNormalization", kF32 | kF64, kPortable, LayerNormalizationKernel},
    {"LeakyRelu", kFloats, kAllIsas, LeakyReluKernel},
    {"Less", kNumeric, kPortable, LessKernel},
    {"LessOrEqual", kNumeric, kPortable, LessOrEqualKernel},
    {"Log", kFloats, kAllIsas, LogKernel},
    {"LogSoftmax", kF32 | kF64, kPortableAvx2, LogSoftmaxKernel},
    // Loom-internal: fused attention (attention/attention.h), written by
    // graph/passes/attention_fusion.cc.
    {"LoomAttention", kF32, kAllIsas, AttentionKernel},
    // Loom-internal: a Dropout whose mode is known only at run time, written
    // by the importer (onnx/opset_adapter.cc).
    {"LoomDropout", kFloats, kPortable, LoomDropoutKernel},
    // Loom-internal: DequantizeLinear x 2 → Add → [Relu →] QuantizeLinear
    // (quant/quant.h), written by graph/passes/qdq_add_fusion.cc.
    {"LoomQLinearAdd", kI8 | kU8, kPortableAvx512, QLinearAddKernel},
    {"Loop", kAllAndStr, kPortable, LoopOutsideSession},
    {"LpNormalization", kFloats, kPortable, LpNormalizationKernel},
    {"LpPool", kFloats, kPortable, LpPoolKernel},
    {"MatMul", kF32 | kF64 | kI32 | kU32 | kI64 | kU64, kAllIsas, MatMulKernel, PrepareMatMul},
    {"MatMulInteger", kI8 | kU8, kPortableAvx2, MatMulIntegerKernel},
    {"Max", kNumeric, kPortable, MaxKernel},
    {"MaxPool", kF32 | kF64 | kI8 | kU8, kPortableAvx2, MaxPoolKernel},
    {"MaxRoiPool", kF32 | kF64, kPortable, MaxRoiPoolKernel},
    {"MaxUnpool", kFloats, kPortable, MaxUnpoolKernel},
    {"Mean", kFloats, kPortable, MeanKernel},
    {"MeanVarianceNormalization", kFloats, kPortable, MeanVarianceNormalizationKernel},
    {"MelWeightMatrix", kI32 | kI64, kPortable, MelWeightMatrixKernel},
    {"Min", kNumeric, kPortable, MinKernel},
    {"Mish", kFloats, kPortable, MishKernel},
    {"Mod", kNumeric, kPortable, ModKernel},
    {"Mul", kNumeric, kPortable, MulKernel},
    // Loom-internal ops of the blocked layout (nchwc/nchwc.h), written by
    // the layout pass (graph/passes/nchwc_layout.cc).
    {"Multinomial", kFloats, kPortable, MultinomialKernel},
    {"NchwcAveragePool", kF32, kAllIsas, NchwcAveragePoolKernel},
    {"NchwcChannelAffine", kF32, kAllIsas, NchwcChannelAffineKernel},
    {"NchwcConv", kF32, kAllIsas, NchwcConvKernel, PrepareNchwcConv},
    {"NchwcGlobalAveragePool", kF32, kAllIsas, NchwcGlobalAveragePoolKernel},
    {"NchwcGlobalMaxPool", kF32, kAllIsas, NchwcGlobalMaxPoolKernel},
    {"NchwcMaxPool", kF32, kAllIsas, NchwcMaxPoolKernel},
    {"NchwcReorderInput", kF32, kAllIsas, NchwcReorderInputKernel},
    {"NchwcReorderOutput", kF32, kAllIsas, NchwcReorderOutputKernel},
    {"Neg", kFloats | kI8 | kI16 | kI32 | kI64, kPortable, NegKernel},
    {"NegativeLogLikelihoodLoss", kFloats, kPortable, NegativeLogLikelihoodLossKernel},
    {"NonMaxSuppression", kF32, kPortable, NonMaxSuppressionKernel},
    {"NonZero", kAll, kPortable, NonZeroKernel},
    {"Not", kBool, kPortable, NotKernel},
    {"OneHot", kNumeric, kPortable, OneHotKernel},
    {"Optional", kAll, kPortable, SequenceOpOutsideSession<"Optional">},
    {"OptionalGetElement", kAll, kPortable, SequenceOpOutsideSession<"OptionalGetElement">},
    {"OptionalHasElement", kAll, kPortable, SequenceOpOutsideSession<"OptionalHasElement">},
    {"Or", kBool, kPortable, OrKernel},
    {"PRelu", kFloats | kI32 | kI64 | kU32 | kU64, kPortable, PReluKernel},
    {"Pad", kAll, kPortable, PadKernel},
    {"Pow", kFloats | kI32 | kI64, kPortable, PowKernel},
    {"QLinearConv", kI8 | kU8, kAllIsas, QLinearConvKernel, PrepareQLinearConv},
    {"QLinearMatMul", kI8 | kU8, kPortableAvx2, QLinearMatMulKernel},
    {"QuantizeLinear", kF32 | kF16 | kBF16 | kI32, kPortableAvx512, QuantizeLinearKernel},
    {"RMSNormalization", kFloats, kPortable, RMSNormalizationKernel},
    {"RNN", kF32 | kF16 | kBF16, kAllIsas, RnnKernel, PrepareRnn},
    {"RandomNormal", kAll, kPortable, RandomNormalKernel},
    {"RandomNormalLike", kAll, kPortable, RandomNormalLikeKernel},
    {"RandomUniform", kAll, kPortable, RandomUniformKernel},
    {"RandomUniformLike", kAll, kPortable, RandomUniformLikeKernel},
    {"Range", kF32 | kF64 | kI16 | kI32 | kI64, kPortable, RangeKernel},
    {"Reciprocal", kFloats, kPortable, ReciprocalKernel},
    {"ReduceL1", kReduceTypes, kAllIsas, ReduceL1Kernel},
    {"ReduceL2", kReduceTypes, kAllIsas, ReduceL2Kernel},
    {"ReduceLogSum", kF32 | kF64 | kBF16, kAllIsas, ReduceLogSumKernel},
    {"ReduceLogSumExp", kF32 | kF64 | kBF16, kAllIsas, ReduceLogSumExpKernel},
    {"ReduceMax", kReduceExtremeTypes, kAllIsas, ReduceMaxKernel},
    {"ReduceMean", kReduceTypes, kAllIsas, ReduceMeanKernel},
    {"ReduceMin", kReduceExtremeTypes, kAllIsas, ReduceMinKernel},
    {"ReduceProd", kReduceTypes, kAllIsas, ReduceProdKernel},
    {"ReduceSum", kReduceTypes, kAllIsas, ReduceSumKernel},
    {"ReduceSumSquare", kReduceTypes, kAllIsas, ReduceSumSquareKernel},
    {"RegexFullMatch", kStr, kPortable, RegexFullMatchKernel},
    {"Relu", kFloats | kI8 | kU8 | kI16 | kI32 | kI64, kAllIsas, ReluKernel},
    {"Reshape", kAllAndStr, kPortable, ReshapeKernel},
    {"Resize", kFloats | kI8 | kU8 | kI32 | kI64, kPortable, ResizeKernel},
    {"ReverseSequence", kAllAndStr, kPortable, WithStrings<ReverseSequenceKernel, 1, 1>},
    {"RoiAlign", kF32 | kF64, kPortable, RoiAlignKernel},
    {"RotaryEmbedding", kF32 | kF16 | kBF16, kPortable, RotaryEmbeddingKernel},
    {"Round", kFloats, kPortable, RoundKernel},
    {"STFT", kF32 | kF64, kPortable, StftKernel},
    {"Scan", kAllAndStr, kPortable, ScanOutsideSession},
    {"ScatterElements", kAllAndStr, kPortable, WithStrings<ScatterElementsKernel, 5, 1>},
    {"ScatterND", kAllAndStr, kPortable, WithStrings<ScatterNDKernel, 5, 1>},
    {"Selu", kFloats, kPortable, SeluKernel},
    {"SequenceAt", kAll, kPortable, SequenceOpOutsideSession<"SequenceAt">},
    {"SequenceConstruct", kAll, kPortable, SequenceOpOutsideSession<"SequenceConstruct">},
    {"SequenceEmpty", kAll, kPortable, SequenceOpOutsideSession<"SequenceEmpty">},
    {"SequenceErase", kAll, kPortable, SequenceOpOutsideSession<"SequenceErase">},
    {"SequenceInsert", kAll, kPortable, SequenceOpOutsideSession<"SequenceInsert">},
    {"SequenceLength", kAll, kPortable, SequenceOpOutsideSession<"SequenceLength">},
    {"SequenceMap", kAll, kPortable, SequenceOpOutsideSession<"SequenceMap">},
    {"Shape", kAllAndStr, kPortable, ShapeKernel},
    {"Shrink", kNumeric, kPortable, ShrinkKernel},
    {"Sigmoid", kFloats, kAllIsas, SigmoidKernel},
    {"Sign", kNumeric, kPortable, SignKernel},
    {"Silu", kFloats, kAllIsas, SiluKernel},
    {"Sin", kFloats, kPortable, SinKernel},
    {"Sinh", kFloats, kPortable, SinhKernel},
    {"Size", kAllAndStr, kPortable, SizeKernel},
    {"Slice", kAllAndStr, kPortable, WithStrings<SliceKernel, 1, 1>},
    {"Softmax", kF32 | kF64, kPortableAvx2, SoftmaxKernel},
    {"SoftmaxCrossEntropyLoss", kFloats, kPortable, SoftmaxCrossEntropyLossKernel},
    {"Softplus", kFloats, kPortable, SoftplusKernel},
    {"Softsign", kFloats, kPortable, SoftsignKernel},
    {"SpaceToDepth", kAll, kPortable, SpaceToDepthKernel},
    {"Split", kAllAndStr, kPortable, WithStrings<SplitKernel, 1, kAllBits>},
    {"SplitToSequence", kAll, kPortable, SequenceOpOutsideSession<"SplitToSequence">},
    {"Sqrt", kFloats, kPortable, SqrtKernel},
    {"Squeeze", kAllAndStr, kPortable, SqueezeKernel},
    {"StringConcat", kStr, kPortable, StringConcatKernel},
    {"StringNormalizer", kStr, kPortable, StringNormalizerKernel},
    {"StringSplit", kStr, kPortable, StringSplitKernel},
    {"Sub", kNumeric, kPortable, SubKernel},
    {"Sum", kFloats | kI8 | kU8 | kI32 | kI64, kPortable, SumKernel},
    {"Tan", kFloats, kPortable, TanKernel},
    {"Tanh", kFloats, kAllIsas, TanhKernel},
    {"TensorScatter", kAll, kPortable, TensorScatterKernel},
    {"TfIdfVectorizer", kI32 | kI64 | kStr, kPortable, TfIdfVectorizerKernel},
    {"ThresholdedRelu", kFloats, kPortable, ThresholdedReluKernel},
    {"Tile", kAllAndStr, kPortable, WithStrings<TileKernel, 1, 1>},
    {"TopK", kNumeric, kPortable, TopKKernel},
    {"Transpose", kAllAndStr, kPortable, WithStrings<TransposeKernel, 1, 1>},
    {"Trilu", kAll, kPortable, TriluKernel},
    {"Unique", kAllAndStr, kPortable, WithStrings<UniqueKernel, 1, 1>},
    {"Unsqueeze", kAllAndStr, kPortable, UnsqueezeKernel},
    {"Where", kAllAndStr, kPortable, WithStrings<WhereKernel, 6, 1>},
    {"Xor", kBool, kPortable, XorKernel},
});

}  // namespace

std::span<const KernelRegistration> KernelRegistry() { return kRegistry; }

bool IsInternalOp(std::string_view op) {
  return op.starts_with("Nchwc") || op.starts_with("Loom") || op == "FusedMatMul";
}

const KernelRegistration* FindKernel(std::string_view op) {
  auto it = std::lower_bound(
      kRegistry.begin(), kRegistry.end(), op,
      [](const KernelRegistration& r, std::string_view name) { return r.op < name; });
  return it != kRegistry.end() && it->op == op ? &*it : nullptr;
}

std::string DTypeMaskToString(DTypeMask mask) {
  std::string out;
  for (int d = 0; d < kNumDTypes; ++d) {
    if ((mask & DTypeBit(static_cast<DType>(d))) == 0) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(static_cast<DType>(d));
  }
  return out;
}

KernelFn LookupKernel(std::string_view op, DType dtype) {
  const KernelRegistration* r = FindKernel(op);
  if (r == nullptr) throw InvalidArgumentError("no kernel for op '" + std::string(op) + "'");
  if ((r->dtypes & DTypeBit(dtype)) == 0) {
    ThrowKernelError(op, "no kernel for dtype " + std::string(dtype_name(dtype)) +
                             " (supported: " + DTypeMaskToString(r->dtypes) + ")");
  }
  return r->fn;
}

std::vector<Tensor> RunKernel(const KernelRegistration& kernel, const KernelContext& ctx,
                              const Attributes& attrs, KernelInputs inputs) {
  try {
    return kernel.fn(ctx, attrs, inputs);
  } catch (const InvalidArgumentError& e) {
    // Errors raised below the kernel (attribute kinds, tensor shapes) do not
    // know the op; add it so every message says where it came from.
    const std::string message = e.what();
    const std::string prefix = std::string(kernel.op) + ":";
    if (message.rfind(prefix, 0) == 0) throw;
    throw InvalidArgumentError(prefix + " " + message);
  }
}

}  // namespace loom::kernels
