// String tensors (DType::kString): ONNX's text operators, and string paths
// for the generic operators that accept STRING.
//
// The text operators (op_kernel.h calling convention):
//  - StringConcat (opset 20): X + Y elementwise, with broadcasting.
//  - StringSplit (opset 20): each element split like Python's str.split:
//    on `delimiter` when it is set and not empty (consecutive delimiters
//    give empty strings), else on runs of ASCII whitespace with leading and
//    trailing whitespace ignored; at most `maxsplit` splits (the rest stays
//    in the last piece). Y has X's shape plus one axis as long as the most
//    pieces any element gave, padded with ""; Z (int64, X's shape) counts
//    each element's pieces.
//  - StringNormalizer (opset 10): X of shape [C] or [1, C]; drops the
//    `stopwords` (compared case-insensitively unless is_case_sensitive),
//    then applies case_change_action (NONE, LOWER, UPPER) with Unicode
//    simple case mapping. When every element is dropped the output is one
//    empty string ([1] or [1, 1]). `locale` names the case rules; Loom
//    applies the C.UTF-8 locale's, which are the same for every locale glibc
//    ships except Turkish and Azeri dotted/dotless i (refused with a clear
//    error rather than answered differently). Elements must be valid UTF-8.
//  - RegexFullMatch (opset 20): whether each element matches `pattern`
//    entirely; RE2 syntax (as ONNX specifies), linear time in the input, so
//    a hostile pattern cannot hang a run.
//
// Generic operators on strings (the registry wraps their numeric kernels):
// each string element is replaced by its rank among the distinct strings of
// all the string inputs (an int64 code, so equal strings get equal codes
// and the codes sort as the strings do, byte by byte), the op runs on the
// codes, and the outputs that carry T map codes back to strings.
// Data movement (Gather, Concat, Transpose, Slice, Where, ...), Equal and
// Unique (sorted by byte order, as NumPy sorts str) are exact this way.
// Cast converts to and from numbers (CastStringsKernel, below).
//
// Thread safety: stateless; RE2 patterns are compiled per call.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> StringConcatKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs);
std::vector<Tensor> StringSplitKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
std::vector<Tensor> StringNormalizerKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs);
std::vector<Tensor> RegexFullMatchKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs);

// Runs `fn` with every string input replaced by its int64 codes (above).
// `t_inputs` (bit i = input i) are the inputs of type T: when one of them
// is a string, every present one must be, and no other input may be (an
// InvalidArgumentError names the first that is not, before `fn` could take
// int64 codes for int64 data). Outputs whose bit is set in `t_outputs` are
// codes that become strings again. Throws InvalidArgumentError when such an
// output is not int64 or holds a code that names no string (a kernel bug).
// An empty `op` leaves naming the op to the caller (registry.h's RunKernel).
std::vector<Tensor> RunOnStringCodes(KernelFn fn, uint32_t t_inputs, uint32_t t_outputs,
                                     std::string_view op, const KernelContext& ctx,
                                     const Attributes& attrs, KernelInputs inputs);

// Whether any present input is a string tensor.
bool AnyStringInput(KernelInputs inputs);

// Cast and CastLike where the input or the target type is STRING:
//  - to string: integers in decimal, bool as "True"/"False", floats as
//    Python's repr would print them (shortest round-trip digits; fixed
//    notation for exponents -4..15 with at least one decimal, else
//    scientific as "1e-05"; "nan", "inf", "-inf"), as NumPy's astype(str)
//    and the ONNX reference do;
//  - from string: the whole element must be a number (leading and trailing
//    ASCII whitespace allowed); "INF", "+INF", "-INF", "NaN", "inf", and
//    "infinity" in any case are the special values; an integer target
//    takes integer text exactly and truncates decimal text toward zero,
//    refusing values outside its range; bool is "true"/"false" in any case
//    or a number (non-zero is true).
// Anything else is an InvalidArgumentError naming the element.
// `to` is the target dtype; `input` the tensor.
Tensor CastStrings(const Tensor& input, DType to);

}  // namespace loom::kernels
