"""Errors in a loom.data pipeline (include/loom/data.h, "Errors"): a failed
element is delivered in its place, naming the stage and the element's index;
the next call continues with the following element, as in tf.data.

Python exceptions from user functions keep their type (with a note); errors
raised by Loom's C++ stages are loom.errors exceptions.
"""

import numpy as np
import pytest

import loom
from loom.data import AUTOTUNE, Dataset
from conftest import drain_with_errors

PARALLEL = [None, 1, 2, 4, AUTOTUNE]
PARALLEL_IDS = ["sequential", "1", "2", "4", "AUTOTUNE"]


class Failure(Exception):
    """Raised by the test map functions: a type no library raises itself."""


def notes_of(error):
    return list(getattr(error, "__notes__", []))


@pytest.mark.parametrize("num_parallel_calls", PARALLEL, ids=PARALLEL_IDS)
@pytest.mark.parametrize("k", [0, 7, 49])
def test_map_error_is_delivered_in_place_and_iteration_continues(num_parallel_calls, k):
    def fn(x):
        if int(x) == k:
            raise ValueError(f"bad element {int(x)}")
        return x * 2

    ds = Dataset.range(50).map(fn, num_parallel_calls=num_parallel_calls)
    out = drain_with_errors(iter(ds), ValueError)
    assert len(out) == 50
    error = out[k][1]
    assert out[k][0] == "error"
    assert type(error) is ValueError
    assert str(error) == f"bad element {k}"
    notes = notes_of(error)
    assert any("map#1" in n and f"element {k}" in n for n in notes), notes
    # Every other element exactly once, in order.
    others = [int(x) for i, x in enumerate(out) if i != k]
    assert others == [2 * i for i in range(50) if i != k]


@pytest.mark.parametrize("num_parallel_calls", [2, AUTOTUNE], ids=["2", "AUTOTUNE"])
def test_map_errors_behind_a_prefetch_keep_the_map_stage_name(num_parallel_calls):
    failing = {3, 4, 20}

    def fn(x):
        if int(x) in failing:
            raise Failure(int(x))
        return x

    ds = Dataset.range(30).map(fn, num_parallel_calls=num_parallel_calls).prefetch(3)
    out = drain_with_errors(iter(ds), Failure)
    assert len(out) == 30
    for i, item in enumerate(out):
        if i in failing:
            assert item[0] == "error" and item[1].args == (i,)
            assert any("map#1" in n and f"element {i}" in n for n in notes_of(item[1]))
        else:
            assert int(item) == i


def test_the_stage_name_counts_from_the_source():
    def fail_on_twelve(x):
        if int(x) == 12:
            raise Failure("twelve")
        return x

    # range#0 -> map#1 -> filter#2 -> map#3 (the failing one, on its input 2).
    ds = (Dataset.range(5).map(lambda x: x + 10).filter(lambda x: True)
          .map(fail_on_twelve, num_parallel_calls=2))
    out = drain_with_errors(iter(ds), Failure)
    assert len(out) == 5 and out[2][0] == "error"
    assert [int(x) for i, x in enumerate(out) if i != 2] == [10, 11, 13, 14]
    notes = notes_of(out[2][1])
    assert any("map#3" in n and "element 2" in n for n in notes), notes


def test_filter_predicate_error_names_the_filter_and_continues():
    def predicate(x):
        if int(x) == 4:
            raise KeyError(4)
        return int(x) % 2 == 0

    out = drain_with_errors(iter(Dataset.range(10).filter(predicate)), KeyError)
    values = [int(x) if not isinstance(x, tuple) else "error" for x in out]
    assert values == [0, 2, "error", 6, 8]
    assert any("filter#1" in n and "element 4" in n for n in notes_of(out[2][1]))


def test_map_error_keeps_the_exception_object_and_traceback():
    def fn(x):
        raise Failure("from inside fn", int(x))

    it = iter(Dataset.range(3).map(fn, num_parallel_calls=2))
    with pytest.raises(Failure) as info:
        next(it)
    assert info.value.args == ("from inside fn", 0)
    # The traceback reaches the function that raised.
    assert any(entry.name == "fn" for entry in info.traceback)


def test_every_element_failing_still_ends():
    def fn(x):
        raise Failure(int(x))

    out = drain_with_errors(iter(Dataset.range(20).map(fn, num_parallel_calls=4)), Failure)
    assert [item[1].args for item in out] == [(i,) for i in range(20)]


def test_batch_shape_mismatch_is_invalid_argument_error_and_iteration_continues():
    sizes = [1, 1, 1, 2, 1, 1]  # the second batch mixes lengths 1 and 2
    ds = Dataset.range(6).map(lambda x: np.full(sizes[int(x)], int(x))).batch(2)
    out = drain_with_errors(iter(ds), loom.errors.Error)
    assert len(out) == 3
    assert out[0].tolist() == [[0], [1]]
    kind, error = out[1]
    assert kind == "error"
    assert type(error) is loom.errors.InvalidArgumentError
    assert isinstance(error, ValueError)
    assert "batch#2" in str(error) and "element 1" in str(error)
    assert out[2].tolist() == [[4], [5]]


def test_error_of_a_cxx_source_is_invalid_argument_error(tmp_path):
    good = tmp_path / "good.bin"
    good.write_bytes(b"ok")
    missing = tmp_path / "missing.bin"
    ds = Dataset.read_files([str(missing), str(good)]).map(lambda b: b, num_parallel_calls=2)
    out = drain_with_errors(iter(ds), loom.errors.Error)
    assert type(out[0][1]) is loom.errors.InvalidArgumentError
    assert "read_files#0" in str(out[0][1]) and str(missing) in str(out[0][1])
    assert out[1].tobytes() == b"ok"


def test_bad_result_type_from_map_is_value_error_with_the_stage():
    def fn(x):
        return {"not": "the same structure"} if int(x) == 1 else x

    out = drain_with_errors(iter(Dataset.range(3).map(fn)), ValueError)
    assert int(out[0]) == 0 and int(out[2]) == 2
    assert out[1][0] == "error"
    assert "map" in str(out[1][1])


def test_an_error_does_not_stop_later_epochs():
    def fn(x):
        if int(x) == 1:
            raise Failure()
        return x

    out = drain_with_errors(iter(Dataset.range(3).map(fn, num_parallel_calls=2).repeat(2)), Failure)
    values = ["error" if isinstance(x, tuple) else int(x) for x in out]
    assert values == [0, "error", 2, 0, "error", 2]
