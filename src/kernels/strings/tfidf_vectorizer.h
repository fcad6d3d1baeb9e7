// TfIdfVectorizer (opset 9, op_kernel.h calling convention): n-gram counts
// of token rows, the text-classification front end scikit-learn pipelines
// export (CountVectorizer / TfidfVectorizer through skl2onnx).
//
// X is [C] or [N, C] tokens: int32/int64 with `pool_int64s`, or strings
// with `pool_strings` (exactly one pool is set). The pool lists the n-grams
// by size: ngram_counts[i] is where the (i+1)-grams start in it, each
// n-gram n consecutive pool entries, and n-gram number j (counting through
// the pool, every size, from 0) is counted in output column ngram_indexes[j].
// Only sizes min_gram_length..max_gram_length are counted. An n-gram of
// size n >= 2 is the tokens at s, s + d, ..., s + (n-1)d for every start s
// and every distance d = 1..max_skip_count + 1; unigrams are counted once.
// Y (float32) is [W] or [N, W] with W = max(ngram_indexes) + 1; n-gram j
// with count c adds to column ngram_indexes[j]:
//   TF     c;
//   IDF    weights[j] where c > 0 (1 without weights), else 0;
//   TFIDF  weights[j] * c (c without weights).
// `weights` go by n-gram number, as the operator description says and ONNX
// Runtime 1.30 computes (ONNX's Python reference indexes them by output
// column; the two agree when ngram_indexes is 0, 1, 2, ...). Rows run in
// parallel (ParallelFor), each row's counts serially, so Y does not depend
// on the thread count.
//
// Malformed attributes (both or no pool, a size segment that is not a
// whole number of n-grams, ngram_counts outside the pool or decreasing,
// fewer ngram_indexes than n-grams, an n-gram listed twice, weights not
// one per ngram_indexes entry, a rank other
// than 1 or 2, tokens of the other pool's type) are InvalidArgumentErrors.
//
// Thread safety: stateless.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> TfIdfVectorizerKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);

}  // namespace loom::kernels
