"""What a pipeline says it chose: Iterator.stats() and
loom.config.threading.describe()["data_pipelines"] (docs/data.md).

Only the asynchronous stages (a map with num_parallel_calls, prefetch) are
listed; a stage is named "<kind>#<distance from the source>".
"""

import gc
import time

import numpy as np
import pytest

import loom
from loom.data import AUTOTUNE, Dataset, Options

STAGE_KEYS = {"name", "parallelism", "autotuned", "max_parallelism", "buffer_size", "produced",
              "buffered", "in_progress"}


def pool_size():
    return loom.config.threading.get_data_pipeline_threads()


def live_ids():
    return [p["id"] for p in loom.config.threading.describe()["data_pipelines"]]


def check_structure(stats):
    assert set(stats) == {"id", "cpu_budget", "max_intra_op_parallelism", "stages"}
    assert isinstance(stats["id"], int) and stats["id"] >= 1
    for stage in stats["stages"]:
        assert set(stage) == STAGE_KEYS, stage
        assert isinstance(stage["autotuned"], bool)
        assert 1 <= stage["parallelism"] <= stage["max_parallelism"], stage
        assert stage["buffer_size"] >= 1
        assert stage["produced"] >= 0
        assert 0 <= stage["buffered"] <= stage["buffer_size"] + 1, stage
        assert 0 <= stage["in_progress"] <= stage["parallelism"], stage


def test_stats_of_a_map_and_a_prefetch():
    it = iter(Dataset.range(100).map(lambda x: x + 1, num_parallel_calls=2).prefetch(3))
    consumed = [int(next(it)) for _ in range(10)]
    assert consumed == list(range(1, 11))
    stats = it.stats()
    check_structure(stats)
    assert stats["cpu_budget"] == pool_size()
    assert stats["max_intra_op_parallelism"] == 1
    map_stage, prefetch_stage = stats["stages"]
    assert map_stage["name"] == "map#1" and prefetch_stage["name"] == "prefetch#2"
    assert map_stage["autotuned"] is False and prefetch_stage["autotuned"] is False
    assert map_stage["parallelism"] == map_stage["max_parallelism"] == 2
    assert prefetch_stage["parallelism"] == prefetch_stage["max_parallelism"] == 1
    assert prefetch_stage["buffer_size"] == 3
    # The last stage produced exactly what was consumed; the map beneath it
    # at least that, at most a prefetch buffer more.
    assert prefetch_stage["produced"] == 10
    assert 10 <= map_stage["produced"] <= 10 + 3 + 1
    # Left alone, the prefetch fills up and stops: it holds its 3 plus the
    # one it computed meanwhile, and has taken exactly that from the map.
    for _ in range(10_000):
        prefetch_stage = it.stats()["stages"][1]
        if prefetch_stage["buffered"] == 4 and prefetch_stage["in_progress"] == 0:
            break
        time.sleep(0.001)
    assert (prefetch_stage["buffered"], prefetch_stage["in_progress"]) == (4, 0)
    map_stage = it.stats()["stages"][0]
    assert map_stage["produced"] == 10 + 4
    assert 0 <= map_stage["buffered"] <= map_stage["buffer_size"] == 4
    assert int(next(it)) == 11


def test_sequential_stages_are_not_listed_but_count_in_the_names():
    ds = (Dataset.range(64).filter(lambda x: True).map(lambda x: x, num_parallel_calls=AUTOTUNE)
          .batch(4).map(lambda b: b).prefetch(AUTOTUNE))
    it = iter(ds)
    batches = [next(it) for _ in range(16)]
    np.testing.assert_array_equal(np.concatenate(batches), np.arange(64))
    stats = it.stats()
    check_structure(stats)
    assert [s["name"] for s in stats["stages"]] == ["map#2", "prefetch#5"]
    assert [s["autotuned"] for s in stats["stages"]] == [True, True]
    autotuned_map, autotuned_prefetch = stats["stages"]
    # AUTOTUNE never chooses more than the pool or the budget.
    assert autotuned_map["max_parallelism"] == min(pool_size(), stats["cpu_budget"])
    assert autotuned_prefetch["max_parallelism"] == 1
    assert 1 <= autotuned_prefetch["buffer_size"] <= 16
    assert autotuned_prefetch["produced"] == 16


def test_a_pipeline_without_asynchronous_stages_lists_none():
    it = iter(Dataset.range(5).map(lambda x: x).batch(2))
    assert it.stats()["stages"] == []
    assert [b.tolist() for b in it] == [[0, 1], [2, 3], [4]]


def test_autotune_is_bounded_by_the_cpu_budget():
    options = Options()
    options.autotune.cpu_budget = 1
    ds = Dataset.range(200).map(lambda x: x, num_parallel_calls=AUTOTUNE).with_options(options)
    it = iter(ds)
    assert [int(x) for x in it] == list(range(200))
    (stage,) = it.stats()["stages"]
    assert stage["autotuned"] is True
    assert stage["max_parallelism"] == 1 and stage["parallelism"] == 1
    assert stage["produced"] == 200


def test_fixed_parallelism_is_reported_as_asked():
    it = iter(Dataset.range(10).map(lambda x: x, num_parallel_calls=3))
    list(it)
    (stage,) = it.stats()["stages"]
    assert (stage["parallelism"], stage["max_parallelism"], stage["autotuned"]) == (3, 3, False)
    assert stage["produced"] == 10


def test_describe_lists_live_iterators_and_drops_deleted_ones():
    it = iter(Dataset.range(50).map(lambda x: x, num_parallel_calls=2).prefetch(2))
    next(it)
    own = it.stats()["id"]
    described = [p for p in loom.config.threading.describe()["data_pipelines"] if p["id"] == own]
    assert len(described) == 1
    assert [s["name"] for s in described[0]["stages"]] == ["map#1", "prefetch#2"]
    assert described[0]["cpu_budget"] == pool_size()
    del it
    gc.collect()
    assert own not in live_ids()


def test_describe_drops_closed_iterators():
    it = iter(Dataset.range(50).prefetch(2))
    next(it)
    own = it.stats()["id"]
    other = iter(Dataset.range(50).prefetch(1))
    other_id = other.stats()["id"]
    assert own != other_id
    assert {own, other_id} <= set(live_ids())
    it.close()
    ids = live_ids()
    assert own not in ids and other_id in ids
    other.close()
    assert other_id not in live_ids()


def test_an_exhausted_iterator_is_still_listed_until_dropped():
    it = iter(Dataset.range(3).prefetch(1))
    assert [int(x) for x in it] == [0, 1, 2]
    own = it.stats()["id"]
    assert own in live_ids()
    del it
    assert own not in live_ids()


def test_each_iterator_has_its_own_id_and_counts():
    ds = Dataset.range(30).prefetch(2)
    a, b = iter(ds), iter(ds)
    for _ in range(7):
        next(a)
    for _ in range(3):
        next(b)
    sa, sb = a.stats(), b.stats()
    assert sa["id"] != sb["id"]
    assert sa["stages"][0]["produced"] == 7 and sb["stages"][0]["produced"] == 3


def test_as_numpy_iterator_is_an_iterator_too():
    it = Dataset.range(4).prefetch(1).as_numpy_iterator()
    assert [int(x) for x in it] == [0, 1, 2, 3]
    assert it.stats()["stages"][0]["produced"] == 4


@pytest.mark.parametrize("budget", [1, 2])
def test_stats_report_the_budget_of_with_options(budget):
    options = Options()
    options.autotune.cpu_budget = budget
    it = iter(Dataset.range(3).prefetch(1).with_options(options))
    assert it.stats()["cpu_budget"] == budget
    list(it)
