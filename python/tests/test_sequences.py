"""ONNX sequence and optional values give ONNX Runtime's results: a list of
arrays feeds a sequence input and comes back for a sequence output, None
feeds and comes back for an empty optional, and get_inputs()/get_outputs()
spell the types as ONNX Runtime does. Models are built with onnx.helper;
ONNX Runtime runs each one as the oracle."""
import numpy as np
import pytest

import loom
from conftest import assert_close

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper  # noqa: E402

FLOAT = onnx.TensorProto.FLOAT
INT64 = onnx.TensorProto.INT64
BOOL = onnx.TensorProto.BOOL


def model(nodes, inputs, outputs, initializers=(), opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m.SerializeToString()


def seq_info(name, elem=FLOAT, shape=None):
    return helper.make_tensor_sequence_value_info(name, elem, shape)


def opt_info(name, elem=FLOAT, shape=None, sequence=False):
    held = helper.make_tensor_type_proto(elem, shape)
    if sequence:
        held = helper.make_sequence_type_proto(held)
    return helper.make_value_info(name, helper.make_optional_type_proto(held))


def tensor_info(name, elem=FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def run_both(model_bytes, feeds, threads=1):
    expected = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"]).run(None, feeds)
    got = loom.InferenceSession(model_bytes, intra_op_num_threads=threads).run(None, feeds)
    return got, expected


def assert_same(got, expected):
    """Arrays, lists of arrays and None, as ONNX Runtime returns them."""
    if expected is None:
        assert got is None
    elif isinstance(expected, list):
        assert isinstance(got, list), type(got)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_close(g, e)
    else:
        assert_close(got, expected)


def ragged():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((2, n)).astype(np.float32) for n in (1, 3, 2)]


@pytest.mark.parametrize("threads", [1, 3])
def test_sequence_input_at_length_concat_and_insert(threads):
    m = model(
        [
            helper.make_node("SequenceAt", ["s", "p"], ["at"]),
            helper.make_node("SequenceLength", ["s"], ["n"]),
            helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=-1),
            helper.make_node("SequenceInsert", ["s", "t", "p"], ["inserted"]),
            helper.make_node("SequenceErase", ["s"], ["erased"]),
        ],
        [seq_info("s"), tensor_info("p", INT64, []), tensor_info("t", FLOAT, [2, 4])],
        [tensor_info("at", FLOAT, None), tensor_info("n", INT64, []),
         tensor_info("cat", FLOAT, None), seq_info("inserted"), seq_info("erased")])
    t = np.full((2, 4), 7, np.float32)
    for position in (0, 2, -1, -3):
        feeds = {"s": ragged(), "p": np.array(position, np.int64), "t": t}
        got, expected = run_both(m, feeds, threads)
        for g, e in zip(got, expected):
            assert_same(g, e)


def test_split_to_sequence_outputs_a_list():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m = model(
        [
            helper.make_node("SplitToSequence", ["x"], ["ones"], axis=1, keepdims=0),
            helper.make_node("SplitToSequence", ["x", "chunk"], ["chunks"], axis=2),
            helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=-1),
            helper.make_node("ConcatFromSequence", ["ones"], ["stacked"], axis=0, new_axis=1),
        ],
        [tensor_info("x", FLOAT, [2, 3, 4])],
        [seq_info("ones"), seq_info("chunks"), seq_info("parts"), tensor_info("stacked", FLOAT, None)],
        [numpy_helper.from_array(np.array(3, np.int64), "chunk"),
         numpy_helper.from_array(np.array([1, 3], np.int64), "sizes")])
    got, expected = run_both(m, {"x": x})
    for g, e in zip(got, expected):
        assert_same(g, e)
    # By hand: chunks of 3 along 4 columns are [3 columns, 1 column].
    assert [c.shape for c in got[1]] == [(2, 3, 3), (2, 3, 1)]


def test_empty_sequence_in_and_out():
    m = model([helper.make_node("SequenceLength", ["s"], ["n"]),
               helper.make_node("SequenceEmpty", [], ["e"], dtype=INT64)],
              [seq_info("s")], [tensor_info("n", INT64, []), seq_info("e", INT64)])
    got, expected = run_both(m, {"s": []})
    assert int(got[0]) == 0 == int(expected[0])
    assert got[1] == [] == expected[1]


@pytest.mark.parametrize("fed", [None, np.array([1.5, -2.0], np.float32)])
def test_optional_tensor_input_and_output(fed):
    m = model(
        [
            helper.make_node("OptionalHasElement", ["o"], ["has"]),
            helper.make_node("Identity", ["o"], ["same"]),
            helper.make_node("Optional", ["x"], ["wrapped"]),
            helper.make_node("OptionalGetElement", ["wrapped"], ["unwrapped"]),
        ],
        [opt_info("o", FLOAT, [2]), tensor_info("x", FLOAT, [2])],
        [tensor_info("has", BOOL, []), opt_info("same", FLOAT, [2]),
         opt_info("wrapped", FLOAT, [2]), tensor_info("unwrapped", FLOAT, [2])])
    x = np.array([3.0, 4.0], np.float32)
    got, expected = run_both(m, {"o": fed, "x": x})
    for g, e in zip(got, expected):
        assert_same(g, e)
    assert bool(got[0]) == (fed is not None)


def test_an_optional_input_not_fed_is_empty():
    m = model([helper.make_node("OptionalHasElement", ["o"], ["h"])],
              [opt_info("o", FLOAT, [2])], [tensor_info("h", BOOL, [])])
    got, expected = run_both(m, {})
    assert bool(got[0]) is False and bool(expected[0]) is False


def test_optional_sequence_and_empty_optional_from_type():
    empty = helper.make_node("Optional", [], ["none"],
                             type=helper.make_sequence_type_proto(
                                 helper.make_tensor_type_proto(FLOAT, None)))
    m = model([empty,
               helper.make_node("OptionalHasElement", ["none"], ["has_none"]),
               helper.make_node("OptionalHasElement", ["os"], ["has"]),
               helper.make_node("Identity", ["os"], ["same"])],
              [opt_info("os", sequence=True)],
              [opt_info("none", sequence=True), tensor_info("has_none", BOOL, []),
               tensor_info("has", BOOL, []), opt_info("same", sequence=True)])
    for fed in (None, [np.ones(2, np.float32)], []):
        got, expected = run_both(m, {"os": fed})
        for g, e in zip(got, expected):
            assert_same(g, e)


@pytest.mark.parametrize("threads", [1, 3])
def test_loop_builds_a_sequence_as_exporters_write_it(threads):
    """for i in range(M): rows.append(x[i] * i); cat(rows) — the loop
    torch.jit.script exports with a sequence carried through Loop."""
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
            helper.make_node("Cast", ["i"], ["fi"], to=FLOAT),
            helper.make_node("Mul", ["row", "fi"], ["scaled"]),
            helper.make_node("SequenceInsert", ["rows_in", "scaled"], ["rows_out"]),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [tensor_info("i", INT64, []), tensor_info("cond", BOOL, []), seq_info("rows_in")],
        [tensor_info("cond_out", BOOL, []), seq_info("rows_out")])
    m = model(
        [
            helper.make_node("SequenceEmpty", [], ["rows0"], dtype=FLOAT),
            helper.make_node("Loop", ["M", "", "rows0"], ["rows"], body=body),
            helper.make_node("ConcatFromSequence", ["rows"], ["stacked"], axis=0, new_axis=1),
        ],
        [tensor_info("M", INT64, []), tensor_info("x", FLOAT, [4, 3])],
        [seq_info("rows"), tensor_info("stacked", FLOAT, None)])
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got, expected = run_both(m, {"M": np.array(3, np.int64), "x": x}, threads)
    for g, e in zip(got, expected):
        assert_same(g, e)
    # By hand: row i times i.
    np.testing.assert_array_equal(got[1], x[:3] * np.arange(3, dtype=np.float32)[:, None])


def test_sequence_map_with_an_extra_sequence_and_tensor():
    body = helper.make_graph(
        [helper.make_node("Mul", ["a", "b"], ["ab"]),
         helper.make_node("Add", ["ab", "c"], ["out"])],
        "body",
        [tensor_info("a", FLOAT, None), tensor_info("b", FLOAT, None),
         tensor_info("c", FLOAT, [])],
        [tensor_info("out", FLOAT, None)])
    m = model([helper.make_node("SequenceMap", ["s", "t", "c"], ["mapped"], body=body)],
              [seq_info("s"), seq_info("t"), tensor_info("c", FLOAT, [])],
              [seq_info("mapped")])
    s = ragged()
    t = [np.full_like(a, 2.0) for a in s]
    got, expected = run_both(m, {"s": s, "t": t, "c": np.array(0.5, np.float32)})
    assert_same(got[0], expected[0])


def test_if_returns_a_sequence():
    def branch(name, n):
        return helper.make_graph(
            [helper.make_node("SplitToSequence", ["x", name + "_n"], [name + "_s"], axis=0)],
            name, [], [seq_info(name + "_s")],
            initializer=[numpy_helper.from_array(np.array(n, np.int64), name + "_n")])
    m = model([helper.make_node("If", ["c"], ["parts"], then_branch=branch("then", 1),
                                else_branch=branch("else", 2))],
              [tensor_info("c", BOOL, []), tensor_info("x", FLOAT, [4])],
              [seq_info("parts")])
    x = np.arange(4, dtype=np.float32)
    for c in (True, False):
        got, expected = run_both(m, {"c": np.array(c), "x": x})
        assert_same(got[0], expected[0])


def test_types_are_spelled_as_onnx_runtime_does():
    m = model([helper.make_node("Identity", ["s"], ["y"]),
               helper.make_node("Identity", ["o"], ["z"]),
               helper.make_node("Identity", ["os"], ["w"])],
              [seq_info("s"), opt_info("o", FLOAT, [2]), opt_info("os", INT64, sequence=True)],
              [seq_info("y"), opt_info("z", FLOAT, [2]), opt_info("w", INT64, sequence=True)])
    theirs = ort.InferenceSession(m, providers=["CPUExecutionProvider"])
    ours = loom.InferenceSession(m)
    for mine, ref in zip(ours.get_inputs() + ours.get_outputs(),
                         theirs.get_inputs() + theirs.get_outputs()):
        assert (mine.name, mine.type, mine.shape) == (ref.name, ref.type, ref.shape)
    assert [a.type for a in ours.get_inputs()] == [
        "seq(tensor(float))", "optional(tensor(float))", "optional(seq(tensor(int64)))"]


def test_errors_are_clear():
    m = model([helper.make_node("SequenceAt", ["s", "p"], ["at"])],
              [seq_info("s"), tensor_info("p", INT64, [])], [tensor_info("at", FLOAT, None)])
    session = loom.InferenceSession(m)
    with pytest.raises(TypeError, match="feed a list of arrays"):
        session.run(None, {"s": np.ones(2, np.float32), "p": np.array(0, np.int64)})
    with pytest.raises(Exception, match=r"position 3 is out of range for a sequence of 2 elements"):
        session.run(None, {"s": [np.ones(1, np.float32)] * 2, "p": np.array(3, np.int64)})
    # None feeds only an optional input.
    with pytest.raises(TypeError, match="feed a list of arrays, not <class 'NoneType'>"):
        session.run(None, {"s": None, "p": np.array(0, np.int64)})
