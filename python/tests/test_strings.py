"""String tensors through InferenceSession: the text operators and the
generic ones that take STRING give ONNX Runtime's results, and arrays of
text go in and come out as ONNX Runtime takes and returns them (object
arrays of str; NumPy str and bytes arrays are accepted too)."""
import numpy as np
import pytest

import loom

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

STRING = onnx.TensorProto.STRING
FLOAT = onnx.TensorProto.FLOAT
INT64 = onnx.TensorProto.INT64
BOOL = onnx.TensorProto.BOOL


def model(nodes, inputs, outputs, opset=20, initializers=()):
    graph = helper.make_graph(nodes, "strings", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9
    return m.SerializeToString()


def run_both(data, feeds):
    got = loom.InferenceSession(data).run(None, feeds)
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.tolist() == w.tolist()
    return got


def text(values):
    return np.array(values, dtype=object)


def test_string_normalizer_matches_onnxruntime():
    # ONNX Runtime reads the locale through std::locale, so it needs that
    # locale installed (its default en_US.UTF-8 is not, here); Loom applies
    # C.UTF-8's Unicode case mapping whatever the attribute says.
    data = model(
        [helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="UPPER",
                          is_case_sensitive=0, stopwords=["monday", "été"], locale="C.UTF-8")],
        [helper.make_tensor_value_info("x", STRING, [None])],
        [helper.make_tensor_value_info("y", STRING, [None])], opset=10)
    out = run_both(data, {"x": text(["Monday", "tuesday", "ÉTÉ", "straße", "naïve"])})
    assert out[0].tolist() == ["TUESDAY", "STRAßE", "NAÏVE"]


def test_split_concat_regex_match_onnxruntime():
    data = model(
        [helper.make_node("StringSplit", ["x"], ["pieces", "counts"], delimiter="/", maxsplit=2),
         helper.make_node("StringConcat", ["x", "suffix"], ["joined"]),
         helper.make_node("RegexFullMatch", ["x"], ["is_path"], pattern=r"(\w+/)+\w+")],
        [helper.make_tensor_value_info("x", STRING, [2, 2]),
         helper.make_tensor_value_info("suffix", STRING, [2])],
        [helper.make_tensor_value_info("pieces", STRING, None),
         helper.make_tensor_value_info("counts", INT64, None),
         helper.make_tensor_value_info("joined", STRING, None),
         helper.make_tensor_value_info("is_path", BOOL, None)])
    pieces, counts, joined, is_path = run_both(
        data, {"x": text([["a/b/c/d", "x"], ["//", "usr/lib"]]), "suffix": text(["!", "?"])})
    assert counts.tolist() == [[3, 1], [3, 2]]
    assert pieces[0, 0].tolist() == ["a", "b", "c/d"]
    assert is_path.tolist() == [[True, False], [False, True]]
    assert joined.tolist() == [["a/b/c/d!", "x?"], ["//!", "usr/lib?"]]


def test_split_of_an_empty_element_follows_python_as_the_onnx_reference_does():
    # ONNX defines StringSplit by Python's str.split (its reference runs
    # numpy.char.split): "".split("/") == [""], one piece. ONNX Runtime 1.30
    # counts 0 pieces there, so this case is checked against Python itself.
    data = model([helper.make_node("StringSplit", ["x"], ["pieces", "counts"], delimiter="/")],
                 [helper.make_tensor_value_info("x", STRING, [3])],
                 [helper.make_tensor_value_info("pieces", STRING, None),
                  helper.make_tensor_value_info("counts", INT64, None)])
    words = ["", "a//b", "/"]
    pieces, counts = loom.InferenceSession(data).run(None, {"x": text(words)})
    assert counts.tolist() == [len(w.split("/")) for w in words]
    widest = max(len(w.split("/")) for w in words)
    assert pieces.tolist() == [w.split("/") + [""] * (widest - len(w.split("/"))) for w in words]


def test_generic_ops_on_strings_match_onnxruntime():
    data = model(
        [helper.make_node("Gather", ["x", "idx"], ["picked"], axis=0),
         helper.make_node("Concat", ["x", "picked"], ["both"], axis=0),
         helper.make_node("Equal", ["both", "word"], ["same"]),
         helper.make_node("Unique", ["both"], ["uniq", "first", "inverse", "count"], sorted=1),
         helper.make_node("Transpose", ["x"], ["xt"]),
         helper.make_node("Reshape", ["x", "flat"], ["reshaped"])],
        [helper.make_tensor_value_info("x", STRING, [3]),
         helper.make_tensor_value_info("word", STRING, [])],
        [helper.make_tensor_value_info(n, t, None) for n, t in
         [("picked", STRING), ("both", STRING), ("same", BOOL), ("uniq", STRING),
          ("first", INT64), ("inverse", INT64), ("count", INT64), ("xt", STRING),
          ("reshaped", STRING)]],
        opset=19,  # Equal takes strings from 19
        initializers=[onnx.numpy_helper.from_array(np.array([2, 0, 2], np.int64), "idx"),
                      onnx.numpy_helper.from_array(np.array([1, 3], np.int64), "flat")])
    out = run_both(data, {"x": text(["pear", "Apple", "apple"]), "word": text("pear")})
    assert out[3].tolist() == ["Apple", "apple", "pear"]


def test_cast_between_text_and_numbers_matches_onnxruntime():
    data = model(
        [helper.make_node("Cast", ["s"], ["f"], to=FLOAT),
         helper.make_node("Cast", ["s"], ["i"], to=INT64),
         helper.make_node("Cast", ["n"], ["back"], to=STRING)],
        [helper.make_tensor_value_info("s", STRING, [4]),
         helper.make_tensor_value_info("n", INT64, [3])],
        [helper.make_tensor_value_info("f", FLOAT, [4]),
         helper.make_tensor_value_info("i", INT64, [4]),
         helper.make_tensor_value_info("back", STRING, [3])], opset=17)
    run_both(data, {"s": text(["1", "-25", " 7 ", "300"]),
                    "n": np.array([-9, 0, 2**40], np.int64)})


def test_text_arrays_of_every_numpy_kind_go_in_and_object_arrays_come_out():
    data = model([helper.make_node("Identity", ["x"], ["y"])],
                 [helper.make_tensor_value_info("x", STRING, [None])],
                 [helper.make_tensor_value_info("y", STRING, [None])], opset=17)
    session = loom.InferenceSession(data)
    assert session.get_inputs()[0].type == "tensor(string)"
    assert session.get_outputs()[0].type == "tensor(string)"
    for feed in (text(["ab", "é"]), np.array(["ab", "é"]), ["ab", "é"]):
        (y,) = session.run(None, {"x": feed})
        assert y.dtype == object
        assert y.tolist() == ["ab", "é"]
    (y,) = session.run(None, {"x": np.array([b"ab", b"\xff"])})
    assert y.tolist() == ["ab", b"\xff".decode("utf-8", "surrogateescape")]
    (empty,) = session.run(None, {"x": text([])})
    assert empty.shape == (0,) and empty.dtype == object


def test_objects_that_are_not_text_are_refused_by_name():
    data = model([helper.make_node("Identity", ["x"], ["y"])],
                 [helper.make_tensor_value_info("x", STRING, [None])],
                 [helper.make_tensor_value_info("y", STRING, [None])], opset=17)
    session = loom.InferenceSession(data)
    with pytest.raises(loom.errors.InvalidArgumentError, match="element 1 .* is a int, not str"):
        session.run(None, {"x": np.array(["a", 3], dtype=object)})
    with pytest.raises(loom.errors.InvalidArgumentError, match="string"):
        session.run(None, {"x": np.array([1.0, 2.0], np.float32)})


def test_hostile_regex_pattern_finishes_and_bad_one_is_an_error():
    def regex_model(pattern):
        return model([helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern)],
                     [helper.make_tensor_value_info("x", STRING, [1])],
                     [helper.make_tensor_value_info("y", BOOL, [1])])
    (y,) = loom.InferenceSession(regex_model("(a+)+$")).run(
        None, {"x": text(["a" * 50000 + "b"])})
    assert y.tolist() == [False]
    with pytest.raises(loom.errors.InvalidArgumentError, match="not valid RE2"):
        loom.InferenceSession(regex_model("(unclosed")).run(None, {"x": text(["a"])})


def test_tfidf_vectorizer_matches_onnxruntime():
    # A scikit-learn style text front end: StringSplit into words, then
    # unigram and bigram (skip 1) TF-IDF over a string vocabulary.
    vocab = ["cat", "sat", "mat", "the", "cat", "sat", "the", "cat", "sat", "mat"]
    data = model(
        [helper.make_node("StringSplit", ["x"], ["words", "n"]),
         helper.make_node("TfIdfVectorizer", ["words"], ["y"], mode="TFIDF", min_gram_length=1,
                          max_gram_length=2, max_skip_count=1, ngram_counts=[0, 4],
                          ngram_indexes=[3, 0, 1, 2, 4, 5, 6], pool_strings=vocab,
                          weights=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5])],
        [helper.make_tensor_value_info("x", STRING, [3])],
        [helper.make_tensor_value_info("y", FLOAT, [3, 7])])
    out = run_both(data, {"x": text(["the cat sat on the mat", "cat cat sat", "dog"])})
    assert out[0][2].tolist() == [0.0] * 7
    # Integer tokens, 1-D, IDF without weights.
    data = model(
        [helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="IDF", min_gram_length=2,
                          max_gram_length=2, max_skip_count=3, ngram_counts=[0, 0],
                          ngram_indexes=[0, 1], pool_int64s=[1, 2, 2, 1])],
        [helper.make_tensor_value_info("x", INT64, [6])],
        [helper.make_tensor_value_info("y", FLOAT, [2])])
    run_both(data, {"x": np.array([1, 5, 2, 2, 9, 1], dtype=np.int64)})
