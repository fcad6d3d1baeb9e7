"""loom.data.Options: tf.data's fields, checked when assigned, and what
deterministic and autotune.enabled do."""

import time

import numpy as np
import pytest

import loom
from loom.data import AUTOTUNE, AutotuneOptions, Dataset, Options, ThreadingOptions


@pytest.mark.parametrize("target, field", [
    (lambda o: o.autotune, "cpu_bugdet"),
    (lambda o: o.threading, "max_intra_op_paralellism"),
    (lambda o: o, "determinstic"),
])
def test_an_unknown_option_is_an_attribute_error_naming_the_valid_ones(target, field):
    options = Options()
    with pytest.raises(AttributeError, match=f"'{field}'.*valid options"):
        setattr(target(options), field, 5)


@pytest.mark.parametrize("path, value", [
    ("autotune.cpu_budget", "two"), ("autotune.cpu_budget", 2.0), ("autotune.cpu_budget", True),
    ("autotune.enabled", "yes"), ("autotune.enabled", 1), ("deterministic", 1),
    ("threading.max_intra_op_parallelism", "1"), ("autotune", 3),
])
def test_a_wrong_type_is_a_type_error_naming_the_field_at_assignment(path, value):
    options = Options()
    *groups, field = path.split(".")
    target = options
    for group in groups:
        target = getattr(target, group)
    with pytest.raises(TypeError, match=field):
        setattr(target, field, value)


def test_defaults_are_none_and_valid_values_stick():
    options = Options()
    assert (options.deterministic, options.autotune.enabled, options.autotune.cpu_budget,
            options.threading.max_intra_op_parallelism) == (None, None, None, None)
    options.autotune.cpu_budget = np.int64(2)
    options.autotune.enabled = False
    options.deterministic = False
    options.threading = ThreadingOptions()
    options.autotune = AutotuneOptions()
    assert options.autotune.cpu_budget is None


def test_with_options_merges_and_options_reads_them_back():
    first = Options()
    first.autotune.cpu_budget = 1
    second = Options()
    second.deterministic = False
    ds = Dataset.range(3).with_options(first).with_options(second)
    assert ds.options().autotune.cpu_budget == 1
    assert ds.options().deterministic is False
    it = iter(ds)
    assert it.stats()["cpu_budget"] == 1
    assert [int(x) for x in it] == [0, 1, 2]


def slow_first(x):
    if int(x) == 0:
        time.sleep(0.3)
    return x


def test_deterministic_false_lets_a_parallel_map_deliver_in_completion_order():
    if loom.config.threading.get_data_pipeline_threads() < 2:
        pytest.skip("needs two data threads")
    options = Options()
    options.deterministic = False
    out = [int(x) for x in Dataset.range(6).map(slow_first, num_parallel_calls=2)
           .with_options(options)]
    assert sorted(out) == list(range(6)) and out[0] != 0
    # The default, and an explicit argument over the option, keep the order.
    assert [int(x) for x in Dataset.range(6).map(slow_first, num_parallel_calls=2)] == list(
        range(6))
    explicit = Dataset.range(6).map(slow_first, num_parallel_calls=2, deterministic=True)
    assert [int(x) for x in explicit.with_options(options)] == list(range(6))


def test_autotune_disabled_fixes_autotune_to_the_budget_and_one_buffer():
    options = Options()
    options.autotune.enabled = False
    options.autotune.cpu_budget = 1
    ds = (Dataset.range(50).map(lambda x: x, num_parallel_calls=AUTOTUNE)
          .prefetch(AUTOTUNE).with_options(options))
    it = iter(ds)
    next(it)
    stages = it.stats()["stages"]
    assert [s["autotuned"] for s in stages] == [False, False]
    assert stages[0]["parallelism"] == 1
    assert stages[1]["buffer_size"] == 1


def test_with_options_needs_an_options_object():
    with pytest.raises(TypeError, match="Options"):
        Dataset.range(3).with_options({"deterministic": False})
