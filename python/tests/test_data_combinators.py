"""zip, concatenate, enumerate, unbatch, padded_batch, cache, flat_map,
window, reduce, cardinality and len, with tf.data's edge cases.

Expected values are written from tf.data's documented semantics and were
checked against tf.data 2.21 (bench/compare/data_semantics_vs_tf.py).
"""

import numpy as np
import pytest

from loom.data import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset


def values(ds):
    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, tuple):
            return tuple(plain(x) for x in v)
        if isinstance(v, Dataset):
            return values(v)
        return np.asarray(v).tolist()

    return [plain(e) for e in ds]


def ragged(n):
    return Dataset.range(n).map(lambda x: np.full(int(x), x))


# ---- zip ----


def test_zip_stops_at_the_shortest():
    assert values(Dataset.zip((Dataset.range(5), Dataset.range(10, 13)))) == [
        (0, 10), (1, 11), (2, 12)]
    assert values(Dataset.zip((Dataset.range(0), Dataset.range(3)))) == []


def test_zip_forms_args_dicts_and_nesting():
    assert values(Dataset.zip(Dataset.range(2), Dataset.range(5, 7))) == [(0, 5), (1, 6)]
    assert values(Dataset.zip({"a": Dataset.range(2), "b": Dataset.range(3, 5)})) == [
        {"a": 0, "b": 3}, {"a": 1, "b": 4}]
    nested = Dataset.zip((Dataset.range(2), (Dataset.range(2), Dataset.range(2))))
    assert values(nested) == [(0, (0, 0)), (1, (1, 1))]


def test_zip_called_on_an_instance_is_the_static_method_as_in_tf_data():
    assert values(Dataset.range(3).zip(Dataset.range(7, 9))) == [7, 8]


def test_zip_refuses_lists_and_non_datasets():
    with pytest.raises(TypeError, match="tuple"):
        Dataset.zip([Dataset.range(1), Dataset.range(1)])
    with pytest.raises(TypeError, match="Dataset"):
        Dataset.zip((Dataset.range(1), 3))
    with pytest.raises(TypeError):
        Dataset.zip()


# ---- concatenate, enumerate ----


def test_concatenate_and_its_empty_sides():
    assert values(Dataset.range(3).concatenate(Dataset.range(10, 12))) == [0, 1, 2, 10, 11]
    assert values(Dataset.range(0).concatenate(Dataset.range(2))) == [0, 1]
    assert values(Dataset.range(2).concatenate(Dataset.range(0))) == [0, 1]


def test_concatenate_of_different_structures_is_a_type_error():
    with pytest.raises(TypeError, match="incompatible"):
        Dataset.range(3).concatenate(Dataset.from_tensor_slices({"x": np.arange(2)}))


def test_concatenate_of_different_dtypes_fails_on_the_element():
    ds = Dataset.range(1).concatenate(Dataset.from_tensor_slices(np.zeros(1, np.float32)))
    it = iter(ds)
    assert int(next(it)) == 0
    with pytest.raises(ValueError, match="float32"):
        next(it)


def test_enumerate_counts_from_start_as_int64():
    out = list(Dataset.from_tensor_slices({"x": np.arange(2)}).enumerate(start=5))
    assert values(out) == [(5, {"x": 0}), (6, {"x": 1})]
    assert out[0][0].dtype == np.int64
    assert values(Dataset.range(0).enumerate()) == []


# ---- unbatch, padded_batch ----


def test_unbatch_undoes_batch_including_the_partial_batch():
    assert values(Dataset.range(7).batch(3).unbatch()) == list(range(7))
    assert values(Dataset.range(0).batch(3).unbatch()) == []
    pairs = Dataset.from_tensors((np.zeros((3, 2), np.float32), np.arange(3))).unbatch()
    assert values(pairs) == [([0.0, 0.0], i) for i in range(3)]


def test_unbatch_of_components_with_different_batch_sizes_fails():
    it = iter(Dataset.from_tensors((np.arange(2), np.arange(3))).unbatch())
    with pytest.raises(ValueError, match="unbatch"):
        next(it)


def test_padded_batch_pads_to_the_longest_and_keeps_the_partial_batch():
    assert values(ragged(5).padded_batch(2)) == [
        [[0], [1]], [[2, 2, 0], [3, 3, 3]], [[4, 4, 4, 4]]]


def test_padded_batch_with_a_fixed_shape_padding_value_and_drop_remainder():
    ds = ragged(5).padded_batch(2, padded_shapes=[4], padding_values=np.int64(-1),
                                drop_remainder=True)
    assert values(ds) == [[[-1, -1, -1, -1], [1, -1, -1, -1]],
                          [[2, 2, -1, -1], [3, 3, 3, -1]]]


def test_padded_batch_of_dicts_with_padding_values_per_key():
    ds = ragged(3).map(lambda v: {"v": v, "n": np.int64(v.size)}).padded_batch(
        2, padding_values={"v": np.int64(7), "n": np.int64(0)})
    assert values(ds) == [{"v": [[7], [1]], "n": [0, 1]}, {"v": [[2, 2]], "n": [2]}]


def test_padded_batch_edge_cases():
    assert values(Dataset.range(0).padded_batch(2)) == []
    it = iter(ragged(5).padded_batch(5, padded_shapes=[2]))
    with pytest.raises(ValueError, match="larger than the padded size 2"):
        next(it)
    with pytest.raises(ValueError, match="dimensions"):
        list(ragged(3).padded_batch(2, padded_shapes=[2, 2]))


# ---- cache ----


def test_cache_iterated_twice_yields_the_same_and_runs_the_map_once():
    calls = []
    ds = Dataset.range(4).map(lambda x: calls.append(int(x)) or x * 10).cache()
    assert values(ds) == [0, 10, 20, 30]
    assert values(ds) == [0, 10, 20, 30]
    assert calls == [0, 1, 2, 3]


def test_cache_of_a_partial_pass_caches_nothing_and_results_are_copies():
    calls = []
    ds = Dataset.range(3).map(lambda x: calls.append(int(x)) or np.array([x])).cache()
    assert values(ds.take(1)) == [[0]]
    first = list(ds)
    first[0][0] = 99  # writing into what we got must not reach the cache
    assert values(ds) == [[0], [1], [2]]
    assert calls == [0, 0, 1, 2]


def test_cache_to_a_file_is_not_implemented():
    with pytest.raises(NotImplementedError, match="memory"):
        Dataset.range(3).cache("/tmp/cache")


# ---- flat_map, window ----


def test_flat_map_chains_the_returned_datasets():
    assert values(Dataset.range(4).flat_map(lambda x: Dataset.range(x))) == [0, 0, 1, 0, 1, 2]
    nested = Dataset.from_tensor_slices({"x": np.arange(2)}).flat_map(
        lambda d: Dataset.from_tensors({"y": d["x"] + 1}).repeat(2))
    assert values(nested) == [{"y": 1}, {"y": 1}, {"y": 2}, {"y": 2}]


def test_window_yields_datasets_with_shift_stride_and_drop_remainder():
    assert values(Dataset.range(7).window(3, 2)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    assert values(Dataset.range(7).window(3, 2, 1, True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert values(Dataset.range(7).window(2, shift=1, stride=2)) == [
        [0, 2], [1, 3], [2, 4], [3, 5], [4, 6], [5], [6]]
    assert values(Dataset.range(5).window(2)) == [[0, 1], [2, 3], [4]]
    assert values(Dataset.range(0).window(2)) == []


def test_window_of_dicts_is_a_dict_of_datasets_and_flat_maps_to_batches():
    windows = list(Dataset.from_tensor_slices({"x": np.arange(3)}).window(2))
    assert isinstance(windows[0]["x"], Dataset)
    assert values(windows) == [{"x": [0, 1]}, {"x": [2]}]
    batched = Dataset.range(5).window(3, 1, 1, True).flat_map(lambda w: w.batch(3))
    assert values(batched) == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]


# ---- reduce ----


def test_reduce_sum_and_structured_state():
    total = Dataset.range(10).reduce(np.int64(0), lambda s, x: s + x)
    assert int(total) == 45 and total.dtype == np.int64
    state = Dataset.range(5).reduce((np.int64(0), np.int64(1)),
                                    lambda s, x: (s[0] + x, s[1] * (x + 1)))
    assert values([state]) == [(10, 120)]
    assert int(Dataset.range(0).reduce(np.int64(3), lambda s, x: s + x)) == 3


def test_reduce_must_keep_the_state_dtype_and_structure():
    with pytest.raises(TypeError, match="dtype"):
        Dataset.range(3).reduce(np.int64(0), lambda s, x: s + 0.5)
    with pytest.raises(TypeError, match="state"):
        Dataset.range(3).reduce(np.int64(0), lambda s, x: (s, x))


# ---- cardinality and len ----


@pytest.mark.parametrize("make, expected", [
    (lambda: Dataset.range(10), 10),
    (lambda: Dataset.range(10).batch(3), 4),
    (lambda: Dataset.range(10).batch(3, drop_remainder=True), 3),
    (lambda: Dataset.range(10).filter(lambda x: x > 3), UNKNOWN_CARDINALITY),
    (lambda: Dataset.range(10).repeat(), INFINITE_CARDINALITY),
    (lambda: Dataset.range(0).repeat(), 0),
    (lambda: Dataset.range(10).repeat().take(4), 4),
    (lambda: Dataset.range(10).map(lambda x: x).shuffle(3).cache().prefetch(2), 10),
    (lambda: Dataset.zip((Dataset.range(3), Dataset.range(10).repeat())), 3),
    (lambda: Dataset.range(3).concatenate(Dataset.range(4)), 7),
    (lambda: Dataset.range(10).window(3, 2), 5),
    (lambda: Dataset.range(10).batch(5, drop_remainder=True).unbatch(), 10),
    (lambda: Dataset.range(3).flat_map(lambda x: Dataset.range(x)), UNKNOWN_CARDINALITY),
    (lambda: Dataset.from_tensor_slices({"x": np.arange(6)}).enumerate(), 6),
])
def test_cardinality_follows_tf_data(make, expected):
    assert make().cardinality() == expected


def test_len_and_its_errors():
    assert len(Dataset.range(10).batch(4)) == 3
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(3).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.range(3).filter(lambda x: True))
    assert bool(Dataset.range(3).repeat())  # not len(): always true, as in tf.data
    assert bool(Dataset.range(0))
