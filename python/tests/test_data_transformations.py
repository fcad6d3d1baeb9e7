"""loom.data transformations against plain-Python references: map, filter,
batch, shuffle, take / skip / repeat, interleave and with_options.

interleave is compared with a hand-written model of tf.data's order
(tensorflow/core/kernels/data/interleave_dataset_op.cc), checked here on the
example from tf.data's own documentation.
"""

import itertools

import numpy as np
import pytest

import loom
from loom.data import Dataset, Options


def ints(ds):
    out = []
    for element in ds:
        assert isinstance(element, np.ndarray) and element.shape == (), element
        out.append(int(element))
    return out


# ---- map ----


def test_map_of_one_argument():
    assert ints(Dataset.range(10).map(lambda x: x * x - 3)) == [i * i - 3 for i in range(10)]


def test_map_receives_numpy_scalars():
    seen = []

    def record(x):
        seen.append((type(x), x.dtype, x.shape))
        return x

    list(Dataset.range(2).map(record))
    assert seen == [(np.ndarray, np.dtype(np.int64), ())] * 2


def test_map_of_a_tuple_receives_components_as_arguments(rng):
    a = rng.standard_normal((6, 3))
    b = rng.standard_normal(6)
    elements = list(Dataset.from_tensor_slices((a, b)).map(lambda x, y: x * y))
    assert len(elements) == 6
    for i, element in enumerate(elements):
        np.testing.assert_allclose(element, a[i] * b[i], rtol=0, atol=0)


def test_map_returning_python_scalars():
    floats = list(Dataset.range(4).map(lambda x: float(x) / 4))
    assert [e.dtype for e in floats] == [np.float64] * 4
    assert [float(e) for e in floats] == [0.0, 0.25, 0.5, 0.75]
    assert ints(Dataset.range(3).map(lambda x: int(x) + 100)) == [100, 101, 102]
    flags = list(Dataset.range(3).map(lambda x: bool(x % 2)))
    assert [e.dtype for e in flags] == [np.bool_] * 3
    assert [bool(e) for e in flags] == [False, True, False]


def test_map_returning_a_tuple():
    elements = list(Dataset.range(5).map(lambda x: (x, np.full(2, float(x) * 1.5, np.float32))))
    assert len(elements) == 5
    for i, (x, y) in enumerate(elements):
        assert int(x) == i and x.dtype == np.int64
        assert y.dtype == np.float32
        np.testing.assert_array_equal(y, np.array([i * 1.5] * 2, np.float32))


def test_chained_maps_compose():
    ds = Dataset.range(8).map(lambda x: (x, x + 1)).map(lambda a, b: a * b).map(lambda p: p - 1)
    assert ints(ds) == [i * (i + 1) - 1 for i in range(8)]


def test_map_result_is_a_copy_of_what_the_function_returned():
    buffer = np.zeros(3)

    def reuse(x):
        buffer[:] = float(x)  # the same array each time
        return buffer

    elements = list(Dataset.range(3).map(reuse))
    assert [e.tolist() for e in elements] == [[0.0] * 3, [1.0] * 3, [2.0] * 3]


def test_map_returning_a_dict_yields_dicts():
    assert [int(e["x"]) for e in Dataset.range(3).map(lambda x: {"x": x})] == [0, 1, 2]


def test_map_with_a_non_callable_is_value_error():
    with pytest.raises(ValueError, match="callable"):
        Dataset.range(3).map(42)


# ---- filter ----


def test_filter_keeps_the_elements_where_the_predicate_is_true():
    assert ints(Dataset.range(30).filter(lambda x: x % 3 == 0)) == list(range(0, 30, 3))
    assert ints(Dataset.range(10).filter(lambda x: int(x) in (2, 7))) == [2, 7]
    assert ints(Dataset.range(10).filter(lambda x: False)) == []


def test_filter_on_tuples_then_map(rng):
    values = rng.integers(-50, 50, size=40)
    ds = (Dataset.from_tensor_slices((np.arange(40), values))
          .filter(lambda i, v: v > 0)
          .map(lambda i, v: i))
    assert ints(ds) == [i for i in range(40) if values[i] > 0]


# ---- batch ----


@pytest.mark.parametrize("n, size", [(10, 3), (9, 3), (1, 4), (7, 1)])
@pytest.mark.parametrize("drop_remainder", [False, True])
def test_batch_matches_python_chunks(n, size, drop_remainder):
    batches = list(Dataset.range(n).batch(size, drop_remainder=drop_remainder))
    expected = [list(range(i, min(i + size, n))) for i in range(0, n, size)]
    if drop_remainder:
        expected = [b for b in expected if len(b) == size]
    assert [b.tolist() for b in batches] == expected
    assert all(b.dtype == np.int64 and b.ndim == 1 for b in batches)


def test_batch_stacks_every_component(rng):
    images = rng.standard_normal((5, 2, 3)).astype(np.float32)
    labels = np.arange(5, dtype=np.int32)
    batches = list(Dataset.from_tensor_slices((images, labels)).batch(2))
    assert len(batches) == 3
    for k, (x, y) in enumerate(batches):
        np.testing.assert_array_equal(x, images[2 * k:2 * k + 2])
        np.testing.assert_array_equal(y, labels[2 * k:2 * k + 2])
        assert x.dtype == np.float32 and y.dtype == np.int32


def test_batch_shape_mismatch_is_invalid_argument_naming_the_component():
    # Component 1 has length 1 for even elements and 2 for odd ones.
    ds = Dataset.range(4).map(lambda x: (x, np.ones(int(x) % 2 + 1))).batch(2)
    it = iter(ds)
    with pytest.raises(ValueError) as info:
        next(it)
    assert isinstance(info.value, loom.errors.InvalidArgumentError)
    assert "component 1" in str(info.value)
    assert "batch" in str(info.value)


def test_batch_of_batches():
    ds = Dataset.range(12).batch(3).batch(2)
    expected = np.arange(12).reshape(2, 2, 3)
    got = list(ds)
    assert len(got) == 2
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_batch_size_zero_is_value_error():
    with pytest.raises(ValueError):
        Dataset.range(3).batch(0)


# ---- shuffle ----


def test_shuffle_is_a_permutation():
    got = ints(Dataset.range(200).shuffle(50))
    assert sorted(got) == list(range(200))
    assert got != list(range(200))  # 200 elements, buffer 50: identity is (practically) impossible


def test_shuffle_with_a_buffer_of_one_keeps_the_order():
    assert ints(Dataset.range(20).shuffle(1, seed=3)) == list(range(20))


def test_shuffle_buffer_limits_how_far_an_element_moves_forward():
    # With a reservoir of B, element i cannot come out before position i - B + 1.
    buffer = 8
    got = ints(Dataset.range(300).shuffle(buffer, seed=11))
    assert sorted(got) == list(range(300))
    for position, value in enumerate(got):
        assert position >= value - (buffer - 1), (position, value)


def test_shuffle_with_the_same_seed_gives_the_same_order():
    a = ints(Dataset.range(100).shuffle(100, seed=42))
    b = ints(Dataset.range(100).shuffle(100, seed=42))
    c = ints(Dataset.range(100).shuffle(100, seed=43))
    assert a == b
    assert a != c
    assert sorted(a) == sorted(c) == list(range(100))


def test_shuffle_reshuffles_each_epoch_by_default():
    ds = Dataset.range(100).shuffle(100, seed=7)
    epochs = [ints(ds) for _ in range(3)]
    assert all(sorted(e) == list(range(100)) for e in epochs)
    assert epochs[0] != epochs[1] and epochs[1] != epochs[2] and epochs[0] != epochs[2]


def test_shuffle_without_reshuffle_repeats_the_order():
    ds = Dataset.range(100).shuffle(100, seed=7, reshuffle_each_iteration=False)
    first, second = ints(ds), ints(ds)
    assert first == second
    assert first != list(range(100))


def test_shuffle_then_repeat_reshuffles_each_epoch():
    got = ints(Dataset.range(50).shuffle(50, seed=5).repeat(2))
    first, second = got[:50], got[50:]
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != second


def test_shuffle_buffer_size_zero_is_value_error():
    with pytest.raises(ValueError):
        Dataset.range(3).shuffle(0)


# ---- take / skip / repeat ----


@pytest.mark.parametrize("count", [0, 3, 10, 15, -1])
def test_take_matches_slicing(count):
    expected = list(range(10)) if count < 0 else list(range(10))[:count]
    assert ints(Dataset.range(10).take(count)) == expected


@pytest.mark.parametrize("count", [0, 3, 10, 15, -1])
def test_skip_matches_slicing(count):
    expected = [] if count < 0 else list(range(10))[count:]
    assert ints(Dataset.range(10).skip(count)) == expected


def test_skip_then_take():
    assert ints(Dataset.range(20).skip(5).take(4)) == [5, 6, 7, 8]


@pytest.mark.parametrize("count", [0, 1, 3])
def test_repeat_count(count):
    assert ints(Dataset.range(4).repeat(count)) == list(range(4)) * count


@pytest.mark.parametrize("forever", [lambda ds: ds.repeat(), lambda ds: ds.repeat(None),
                                     lambda ds: ds.repeat(-1)], ids=["()", "None", "-1"])
def test_repeat_forever_with_take(forever):
    got = ints(forever(Dataset.range(3)).take(25))
    assert got == list(itertools.islice(itertools.cycle(range(3)), 25))


def test_repeat_of_an_empty_dataset_forever_ends():
    assert ints(Dataset.range(0).repeat()) == []


def test_repeat_then_batch_crosses_epochs():
    got = [b.tolist() for b in Dataset.range(5).repeat(2).batch(4)]
    assert got == [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4]]


# ---- interleave ----


def interleave_reference(inputs, make, cycle_length, block_length):
    """tf.data's interleave order: positions take block_length elements in
    turn; a position whose dataset ends hands the turn to the next position
    and is refilled from the input when its turn comes back."""
    inputs = iter(inputs)
    slots = [None] * cycle_length
    end_of_input = False
    position = 0
    block_used = 0
    out = []

    def advance():
        nonlocal position, block_used
        position = (position + 1) % cycle_length
        block_used = 0

    while not end_of_input or any(s is not None for s in slots):
        if slots[position] is not None:
            try:
                value = next(slots[position])
            except StopIteration:
                slots[position] = None
                advance()
                continue
            out.append(value)
            block_used += 1
            if block_used == block_length:
                advance()
        elif not end_of_input:
            try:
                slots[position] = iter(make(next(inputs)))
            except StopIteration:
                end_of_input = True
        else:
            advance()
    return out


def test_interleave_reference_on_the_tf_data_documentation_example():
    # tf.data.Dataset.interleave's docstring: range(1, 6), each x repeated 6
    # times, cycle_length=2, block_length=4.
    got = interleave_reference(range(1, 6), lambda x: [x] * 6, 2, 4)
    assert got == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4,
                   5, 5, 5, 5, 5, 5]


def run_interleave(lengths, cycle_length, block_length):
    """Input x (0..n-1) maps to 10x, 10x+1, ... (lengths[x] elements)."""
    ds = Dataset.range(len(lengths)).interleave(
        lambda x: Dataset.range(10 * int(x), 10 * int(x) + lengths[int(x)]),
        cycle_length=cycle_length, block_length=block_length)
    expected = interleave_reference(
        range(len(lengths)), lambda x: range(10 * x, 10 * x + lengths[x]), cycle_length,
        block_length)
    return ints(ds), expected


@pytest.mark.parametrize(
    "lengths, cycle_length, block_length",
    [
        ([3, 3, 3], 2, 1),
        ([4, 4, 4, 4], 2, 2),
        ([2, 2, 2], 3, 1),
        ([2, 0, 2], 1, 1),
        ([5, 1, 3], 1, 2),
        ([3, 3], 5, 1),
        # A position whose dataset ends hands the turn to the next position
        # (and is refilled from the input when its turn comes round again).
        ([1, 2, 3], 2, 1),
        ([1, 2, 3], 2, 2),
        ([3, 3, 3], 2, 2),
        ([0, 4, 1, 0, 2], 2, 1),
        ([5, 2, 7, 1, 3, 4], 3, 2),
        ([6, 6, 6, 6, 6], 2, 4),  # the tf.data documentation example's shape
    ],
)
def test_interleave_matches_tf_data_order(lengths, cycle_length, block_length):
    got, expected = run_interleave(lengths, cycle_length, block_length)
    assert got == expected


def test_interleave_with_num_parallel_calls_is_value_error():
    with pytest.raises(ValueError, match="num_parallel_calls"):
        Dataset.range(3).interleave(lambda x: Dataset.range(2), cycle_length=2,
                                    num_parallel_calls=2)
    with pytest.raises(ValueError, match="num_parallel_calls"):
        Dataset.range(3).interleave(lambda x: Dataset.range(2),
                                    num_parallel_calls=loom.data.AUTOTUNE)


def test_interleave_function_must_return_a_dataset():
    it = iter(Dataset.range(3).interleave(lambda x: [1, 2], cycle_length=2))
    with pytest.raises(loom.errors.Error, match="interleave#1 failed on element 0"):
        next(it)


# ---- with_options ----


def test_with_options_keeps_the_elements_and_sets_the_budget():
    options = Options()
    options.autotune.cpu_budget = 1
    options.threading.max_intra_op_parallelism = 0
    ds = Dataset.range(50).map(lambda x: x * 3, num_parallel_calls=2).with_options(options)
    it = iter(ds)
    got = [int(next(it)) for _ in range(50)]
    stats = it.stats()
    assert got == [3 * i for i in range(50)]
    assert stats["cpu_budget"] == 1
    assert stats["max_intra_op_parallelism"] == 0
    # Options carry through later transformations.
    it2 = iter(ds.batch(5).prefetch(1))
    assert it2.stats()["cpu_budget"] == 1
    assert [b.tolist() for b in it2] == [[3 * i for i in range(k, k + 5)] for k in range(0, 50, 5)]


def test_default_options():
    it = iter(Dataset.range(3).prefetch(1))
    stats = it.stats()
    assert stats["cpu_budget"] == loom.config.threading.get_data_pipeline_threads()
    assert stats["max_intra_op_parallelism"] == 1
    assert ints(it) == [0, 1, 2]


@pytest.mark.parametrize("field, value", [("cpu_budget", -1), ("max_intra_op_parallelism", -2)])
def test_invalid_options_are_value_errors(field, value):
    # Refused when assigned, naming the field (not later, in with_options).
    options = Options()
    with pytest.raises(ValueError, match=field):
        if field == "cpu_budget":
            options.autotune.cpu_budget = value
        else:
            options.threading.max_intra_op_parallelism = value
