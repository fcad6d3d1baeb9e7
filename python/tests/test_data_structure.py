"""Element structure as in tf.data: dicts, nested tuples, namedtuples and
strings through sources, map, batch, shuffle, prefetch; element_spec.

Expected values are written from tf.data's documented semantics and were
checked against tf.data 2.21 (bench/compare/data_semantics_vs_tf.py).
"""

import collections

import numpy as np
import pytest

from loom.data import AUTOTUNE, Dataset, DatasetSpec, TensorSpec

XS = np.arange(5, dtype=np.int64)
YS = np.arange(5, dtype=np.float32) * 0.5


def plain(value):
    """An element as plain Python: arrays become lists / scalars."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return type(value)(*[plain(v) for v in value]) if hasattr(value, "_fields") else tuple(
            plain(v) for v in value)
    return np.asarray(value).tolist()


# ---- dicts ----


def test_from_tensor_slices_of_a_dict_yields_dicts_in_the_given_key_order():
    elements = list(Dataset.from_tensor_slices({"y": YS, "x": XS}))
    assert [list(e) for e in elements] == [["y", "x"]] * 5
    assert [plain(e) for e in elements] == [{"y": i * 0.5, "x": i} for i in range(5)]
    assert elements[0]["x"].dtype == np.int64 and elements[0]["y"].dtype == np.float32


def test_map_receives_a_dict_as_one_argument_and_may_return_nested_dicts():
    ds = Dataset.from_tensor_slices({"x": XS, "y": YS}).map(
        lambda d: {"twice": d["x"] * 2, "orig": d})
    assert [plain(e) for e in ds] == [
        {"twice": 2 * i, "orig": {"x": i, "y": i * 0.5}} for i in range(5)]


@pytest.mark.parametrize("npc", [None, 2, AUTOTUNE])
def test_dicts_go_through_batch_shuffle_prefetch_and_parallel_map(npc):
    ds = (Dataset.from_tensor_slices({"x": XS, "y": YS})
          .shuffle(5, seed=1)
          .map(lambda d: {"x": d["x"], "y": d["y"] + 1}, num_parallel_calls=npc)
          .batch(2)
          .prefetch(2))
    batches = list(ds)
    assert [b["x"].shape for b in batches] == [(2,), (2,), (1,)]
    xs = np.concatenate([b["x"] for b in batches])
    ys = np.concatenate([b["y"] for b in batches])
    assert sorted(xs.tolist()) == list(range(5))
    np.testing.assert_array_equal(ys, xs.astype(np.float32) * 0.5 + 1)


def test_batch_drop_remainder_with_dicts():
    batches = list(Dataset.from_tensor_slices({"x": XS}).batch(2, drop_remainder=True))
    assert [plain(b) for b in batches] == [{"x": [0, 1]}, {"x": [2, 3]}]


def test_filter_receives_the_dict():
    ds = Dataset.from_tensor_slices({"x": XS, "y": YS}).filter(lambda d: d["x"] % 2 == 0)
    assert [int(e["x"]) for e in ds] == [0, 2, 4]


# ---- tuples ----


def test_nested_tuples_and_dicts_keep_their_structure_through_batch():
    ds = Dataset.from_tensor_slices((XS, (YS, {"z": XS * 3}))).batch(2)
    first = next(iter(ds))
    assert plain(first) == ([0, 1], ([0.0, 0.5], {"z": [0, 3]}))


def test_a_one_tuple_stays_a_tuple():
    assert [plain(e) for e in Dataset.from_tensor_slices((XS[:2],))] == [(0,), (1,)]


def test_map_unpacks_a_tuple_and_a_returned_list_becomes_a_tuple():
    assert [plain(e) for e in Dataset.from_tensor_slices((XS, XS)).map(lambda a, b: a + b)] == [
        0, 2, 4, 6, 8]
    assert [plain(e) for e in Dataset.range(2).map(lambda x: [x, x + 1])] == [(0, 1), (1, 2)]


def test_namedtuples_come_back_as_namedtuples_and_are_not_unpacked():
    Point = collections.namedtuple("Point", "x y")
    seen = []
    ds = Dataset.from_tensor_slices(Point(XS[:2], YS[:2])).map(lambda p: seen.append(p) or p)
    out = list(ds)
    assert all(isinstance(p, Point) for p in out + seen)
    assert plain(out[1]) == Point(1, 0.5)


def test_a_map_changing_its_result_structure_is_a_value_error():
    ds = Dataset.range(3).map(lambda x: {"x": x} if int(x) == 1 else x)
    it = iter(ds)
    assert int(next(it)) == 0
    with pytest.raises(ValueError, match="same structure"):
        next(it)


def test_an_empty_dict_is_refused():
    with pytest.raises(ValueError, match="empty dict"):
        Dataset.from_tensor_slices({})


# ---- strings ----


def test_strings_yield_0d_bytes_arrays_and_batch_into_S_arrays():
    ds = Dataset.from_tensor_slices(["a", "bb", "ccc"])
    elements = list(ds)
    assert all(isinstance(e, np.ndarray) and e.dtype.kind == "S" and e.shape == ()
               for e in elements)
    assert [e.item() for e in elements] == [b"a", b"bb", b"ccc"]
    batches = list(ds.batch(2))
    assert [b.tolist() for b in batches] == [[b"a", b"bb"], [b"ccc"]]


@pytest.mark.parametrize("source", [
    np.array([b"x", b"", b"yz"]),
    np.array(["x", "", "yz"]),
    np.array([b"x", b"", b"yz"], dtype=object),
    [b"x", b"", b"yz"],
])
def test_string_sources_of_every_kind(source):
    assert [e.item() for e in Dataset.from_tensor_slices(source)] == [b"x", b"", b"yz"]


def test_strings_of_different_lengths_from_a_map_batch_and_unbatch():
    ds = Dataset.range(4).map(lambda x: b"x" * int(x)).batch(3)
    assert [b.tolist() for b in ds] == [[b"", b"x", b"xx"], [b"xxx"]]
    assert [e.item() for e in ds.unbatch()] == [b"", b"x", b"xx", b"xxx"]


def test_strings_inside_dicts_and_padded_batch():
    names = np.array([b"a", b"bb", b"ccc"])
    ds = Dataset.from_tensor_slices({"name": names, "n": XS[:3]}).padded_batch(2)
    assert [plain(b) for b in ds] == [{"name": [b"a", b"bb"], "n": [0, 1]},
                                      {"name": [b"ccc"], "n": [2]}]
    with pytest.raises(NotImplementedError, match="b''"):
        list(Dataset.from_tensor_slices(names).padded_batch(2, padding_values=b"?"))


def test_map_receives_strings_and_may_return_str():
    ds = Dataset.from_tensor_slices([b"ab", b"c"]).map(lambda s: s.item().decode().upper())
    assert [e.item() for e in ds] == [b"AB", b"C"]


# ---- element_spec ----


def test_element_spec_of_dicts_batches_and_strings():
    img = np.zeros((6, 2, 3), np.float32)
    ds = Dataset.from_tensor_slices({"img": img, "label": np.arange(6)})
    assert ds.element_spec == {"img": TensorSpec((2, 3), np.float32),
                               "label": TensorSpec((), np.int64)}
    assert ds.batch(4).element_spec["img"] == TensorSpec((None, 2, 3), np.float32)
    assert ds.batch(4, drop_remainder=True).element_spec["label"] == TensorSpec((4,), np.int64)
    assert Dataset.from_tensor_slices(["a"]).batch(2).element_spec == TensorSpec((None,), "S")
    assert Dataset.range(3).window(2).element_spec == DatasetSpec(TensorSpec((), np.int64))
    assert Dataset.range(3).enumerate().element_spec == (TensorSpec((), np.int64),) * 2


def test_element_spec_of_a_map_runs_it_once_on_the_first_element():
    calls = []
    ds = Dataset.range(10).map(lambda x: calls.append(int(x)) or (x, np.float32(x)))
    assert ds.batch(2).element_spec == (TensorSpec((None,), np.int64),
                                        TensorSpec((None,), np.float32))
    assert ds.element_spec[1] == TensorSpec((), np.float32)
    assert calls == [0]
    assert Dataset.range(0).map(lambda x: x).element_spec is None
