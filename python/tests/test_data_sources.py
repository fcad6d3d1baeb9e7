"""loom.data sources (docs/data.md, "What there is"): range, from_tensor_slices,
from_tensors, from_generator, read_files, read_lines / TextLineDataset and
list_files.

Every expected value is computed here with plain Python or NumPy; file
contents are compared byte for byte with what was written.
"""

import os

import numpy as np
import pytest

import loom
from loom.data import Dataset, TextLineDataset, list_files
from conftest import drain_with_errors


def drain(ds):
    return list(ds)


def ints(ds):
    """The elements of a dataset of int64 scalars, as Python ints (checking
    that each is one)."""
    out = []
    for element in ds:
        assert isinstance(element, np.ndarray)
        assert element.shape == () and element.dtype == np.int64, (element.shape, element.dtype)
        out.append(int(element))
    return out


@pytest.mark.parametrize(
    "args",
    [(5,), (0,), (-3,), (2, 7), (7, 2), (1, 10, 3), (10, 0, -3), (0, 5, -1), (-5, 5, 4),
     (10, -10, -7)],
)
def test_range_matches_python_range(args):
    assert ints(Dataset.range(*args)) == list(range(*args))


def test_range_accepts_numpy_integers_and_large_values():
    start = 2**40
    assert ints(Dataset.range(np.int64(start), start + 3)) == [start, start + 1, start + 2]
    assert ints(Dataset.range(np.int32(3))) == [0, 1, 2]


@pytest.mark.parametrize("args", [(), (1, 2, 3, 4)])
def test_range_with_wrong_argument_count_is_value_error(args):
    with pytest.raises(ValueError, match=f"got {len(args)} arguments"):
        Dataset.range(*args)


def test_range_with_zero_step_is_value_error():
    with pytest.raises(ValueError, match="step"):
        Dataset.range(0, 10, 0)


def test_a_dataset_can_be_iterated_many_times():
    ds = Dataset.range(4)
    assert ints(ds) == ints(ds) == [0, 1, 2, 3]


# ---- from_tensor_slices ----


def test_from_tensor_slices_of_an_array_yields_its_rows(rng):
    source = rng.standard_normal((5, 3, 2)).astype(np.float32)
    elements = drain(Dataset.from_tensor_slices(source))
    assert len(elements) == 5
    for i, element in enumerate(elements):
        assert element.dtype == np.float32
        assert element.shape == (3, 2)
        np.testing.assert_array_equal(element, source[i])


def test_from_tensor_slices_of_a_1d_array_yields_scalars():
    source = np.array([7, -1, 12], dtype=np.int32)
    elements = drain(Dataset.from_tensor_slices(source))
    assert [e.shape for e in elements] == [(), (), ()]
    assert [e.dtype for e in elements] == [np.int32] * 3
    assert [int(e) for e in elements] == [7, -1, 12]


def test_from_tensor_slices_of_a_tuple_keeps_each_dtype(rng):
    a = rng.integers(-100, 100, size=(4, 2)).astype(np.int32)
    b = rng.standard_normal(4)
    c = rng.integers(0, 256, size=(4, 3, 1)).astype(np.uint8)
    d = np.array([True, False, False, True])
    elements = drain(Dataset.from_tensor_slices((a, b, c, d)))
    assert len(elements) == 4
    for i, element in enumerate(elements):
        assert isinstance(element, tuple) and len(element) == 4
        for got, source in zip(element, (a, b, c, d)):
            assert got.dtype == source.dtype
            assert got.shape == source.shape[1:]
            np.testing.assert_array_equal(got, source[i])


def test_from_tensor_slices_of_lists():
    elements = drain(Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]))
    expected = np.array([[1, 2], [3, 4], [5, 6]])
    assert len(elements) == 3
    for got, want in zip(elements, expected):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    pairs = drain(Dataset.from_tensor_slices(([1, 2], [0.5, 1.5])))
    assert [(int(x), float(y)) for x, y in pairs] == [(1, 0.5), (2, 1.5)]
    assert [y.dtype for _, y in pairs] == [np.float64, np.float64]


def test_from_tensor_slices_with_mismatched_first_dims_names_both_shapes():
    with pytest.raises(ValueError) as info:
        Dataset.from_tensor_slices((np.zeros(3), np.zeros((4, 2))))
    message = str(info.value)
    assert "[3]" in message and "[4, 2]" in message, message
    assert isinstance(info.value, loom.errors.InvalidArgumentError)


def test_from_tensor_slices_of_a_scalar_is_value_error():
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices(np.float32(1.0))


def test_from_tensor_slices_copies_its_input(rng):
    source = rng.standard_normal((3, 4))
    original = source.copy()
    ds = Dataset.from_tensor_slices(source)
    source[:] = -1.0  # after building: must not show in the elements
    for i, element in enumerate(drain(ds)):
        np.testing.assert_array_equal(element, original[i])


def test_unsupported_dtype_is_value_error():
    with pytest.raises(ValueError, match="complex64"):
        Dataset.from_tensor_slices(np.arange(3, dtype=np.complex64))


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.uint32, np.uint64])
def test_sixteen_bit_and_unsigned_dtypes_slice(dtype):
    data = np.array([[0, np.iinfo(dtype).max], [np.iinfo(dtype).min, 7]], dtype=dtype)
    elements = drain(Dataset.from_tensor_slices(data))
    assert [e.dtype for e in elements] == [np.dtype(dtype)] * 2
    np.testing.assert_array_equal(np.stack(elements), data)


# ---- from_tensors ----


def test_from_tensors_is_one_element(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    (element,) = drain(Dataset.from_tensors(a))
    assert element.shape == (2, 3) and element.dtype == np.float32
    np.testing.assert_array_equal(element, a)

    b = np.arange(5, dtype=np.int64)
    ((x, y),) = drain(Dataset.from_tensors((a, b)))
    np.testing.assert_array_equal(x, a)
    np.testing.assert_array_equal(y, b)


def test_from_tensors_elements_are_copies(rng):
    a = rng.standard_normal(4)
    original = a.copy()
    ds = Dataset.from_tensors(a)
    a += 100.0
    (first,) = drain(ds)
    np.testing.assert_array_equal(first, original)
    first[:] = 0.0  # the consumer may write into what it gets...
    (second,) = drain(ds)  # ...and the next pass still sees the original
    np.testing.assert_array_equal(second, original)


def test_from_tensors_repeated_is_the_same_value_each_time():
    values = [int(x) for x in Dataset.from_tensors(np.int64(9)).repeat(4)]
    assert values == [9, 9, 9, 9]


# ---- from_generator ----


def test_from_generator_is_called_afresh_for_each_iteration():
    calls = []

    def gen():
        calls.append(1)
        for i in range(3):
            yield np.int64(i * 10)

    ds = Dataset.from_generator(gen)
    assert calls == []  # nothing runs before iterating
    assert ints(ds) == [0, 10, 20]
    assert ints(ds) == [0, 10, 20]
    assert len(calls) == 2


def test_from_generator_passes_args():
    def gen(start, stop, scale):
        for i in range(start, stop):
            yield np.float64(i * scale)

    values = [float(x) for x in Dataset.from_generator(gen, args=(2, 6, 0.5))]
    assert values == [1.0, 1.5, 2.0, 2.5]


def test_from_generator_accepts_any_callable_returning_an_iterable():
    values = [int(x) for x in Dataset.from_generator(lambda: [np.int64(4), np.int64(2)])]
    assert values == [4, 2]


def test_from_generator_yielding_tuples(rng):
    rows = rng.standard_normal((4, 3)).astype(np.float32)

    def gen():
        for i in range(4):
            yield np.int32(i), rows[i]

    elements = drain(Dataset.from_generator(gen))
    assert len(elements) == 4
    for i, (label, row) in enumerate(elements):
        assert label.dtype == np.int32 and int(label) == i
        assert row.dtype == np.float32
        np.testing.assert_array_equal(row, rows[i])


def test_from_generator_error_reaches_the_consumer_with_a_note():
    def gen():
        for i in range(10):
            if i == 3:
                raise KeyError("missing-key")
            yield np.int64(i)

    out = drain_with_errors(iter(Dataset.from_generator(gen)), KeyError)
    assert [int(x) for x in out[:3]] == [0, 1, 2]
    assert len(out) == 4, "a generator that raised is finished: the error, then the end"
    error = out[3][1]
    assert type(error) is KeyError
    assert error.args == ("missing-key",)
    notes = getattr(error, "__notes__", [])
    assert any("from_generator#0" in n and "element 3" in n for n in notes), notes


def test_from_generator_with_an_iterator_instead_of_a_callable_is_value_error():
    with pytest.raises(ValueError, match="callable"):
        Dataset.from_generator(iter([np.int64(1)]))


def test_from_generator_yielding_an_unsupported_value_fails_at_the_consumer():
    it = iter(Dataset.from_generator(lambda: iter([object()])))
    with pytest.raises(ValueError):
        next(it)


# ---- files ----


@pytest.fixture
def binary_files(tmp_path, rng):
    """Three files with random bytes (newlines and NULs included) and one
    empty file, named so that sorted order differs from creation order."""
    contents = {
        "c.bin": rng.integers(0, 256, size=1000, dtype=np.uint8).tobytes() + b"\n\x00\r\n",
        "a.bin": b"hello\nworld\x00",
        "b.bin": bytes(range(256)) * 3,
        "d.bin": b"",
    }
    paths = {}
    for name, data in contents.items():
        path = tmp_path / name
        path.write_bytes(data)
        paths[name] = path
    return paths, contents


def test_read_files_yields_each_file_bytes_exactly(binary_files):
    paths, contents = binary_files
    order = ["c.bin", "a.bin", "d.bin", "b.bin"]
    elements = drain(Dataset.read_files([str(paths[n]) for n in order]))
    assert len(elements) == 4
    for name, element in zip(order, elements):
        assert element.dtype == np.uint8 and element.ndim == 1
        assert element.tobytes() == contents[name]


def test_read_files_accepts_path_objects(binary_files):
    paths, contents = binary_files
    (element,) = drain(Dataset.read_files([paths["b.bin"]]))
    assert element.tobytes() == contents["b.bin"]


def test_read_files_with_a_glob_pattern_reads_the_sorted_matches(binary_files, tmp_path):
    paths, contents = binary_files
    (tmp_path / "other.txt").write_bytes(b"not matched")
    elements = drain(Dataset.read_files(str(tmp_path / "*.bin")))
    assert [e.tobytes() for e in elements] == [contents[n] for n in sorted(contents)]


def test_read_files_missing_file_fails_its_element_then_continues(binary_files, tmp_path):
    paths, contents = binary_files
    missing = tmp_path / "does-not-exist.bin"
    it = iter(Dataset.read_files([str(paths["a.bin"]), str(missing), str(paths["b.bin"])]))
    out = drain_with_errors(it, ValueError)
    assert len(out) == 3
    assert out[0].tobytes() == contents["a.bin"]
    assert out[1][0] == "error"
    assert str(missing) in str(out[1][1])
    assert out[2].tobytes() == contents["b.bin"]


def test_read_files_behind_a_prefetch_reads_on_the_pool(binary_files):
    paths, contents = binary_files
    order = sorted(contents)
    ds = Dataset.read_files([str(paths[n]) for n in order]).prefetch(2)
    assert [e.tobytes() for e in ds] == [contents[n] for n in order]


def expected_lines(data):
    """tf.data's TextLineDataset: split at \\n, a trailing \\r dropped, no
    element after a final newline."""
    if not data:
        return []
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        parts.pop()
    return [p[:-1] if p.endswith(b"\r") else p for p in parts]


@pytest.fixture
def text_files(tmp_path):
    contents = {
        "1.txt": b"first line\nsecond\r\n\nafter an empty line\n",
        "2.txt": b"no final newline",
        "3.txt": b"",
        "4.txt": "caf\u00e9 \u2603\n\tindented\r\n".encode(),
    }
    paths = {}
    for name, data in contents.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    return paths, contents


def test_expected_lines_reference():
    # The reference itself, on a case worked out by hand.
    assert expected_lines(b"a\r\n\nb") == [b"a", b"", b"b"]
    assert expected_lines(b"x\n") == [b"x"]


@pytest.mark.parametrize("make", [Dataset.read_lines, TextLineDataset],
                         ids=["read_lines", "TextLineDataset"])
def test_read_lines_yields_every_line_of_every_file(text_files, make):
    paths, contents = text_files
    order = ["1.txt", "2.txt", "3.txt", "4.txt"]
    elements = drain(make([str(paths[n]) for n in order]))
    expected = [line for n in order for line in expected_lines(contents[n])]
    assert all(e.dtype == np.uint8 and e.ndim == 1 for e in elements)
    assert [e.tobytes() for e in elements] == expected


def test_read_lines_with_a_glob_pattern(text_files, tmp_path):
    paths, contents = text_files
    elements = drain(Dataset.read_lines(str(tmp_path / "[12].txt")))
    expected = expected_lines(contents["1.txt"]) + expected_lines(contents["2.txt"])
    assert [e.tobytes() for e in elements] == expected


def test_read_lines_missing_file_fails_then_remaining_files_are_read(text_files, tmp_path):
    paths, contents = text_files
    missing = tmp_path / "gone.txt"
    it = iter(TextLineDataset([str(paths["2.txt"]), str(missing), str(paths["1.txt"])]))
    out = drain_with_errors(it, ValueError)
    errors = [i for i, x in enumerate(out) if isinstance(x, tuple)]
    assert errors == [1]
    assert str(missing) in str(out[1][1])
    lines = [x.tobytes() for x in out if not isinstance(x, tuple)]
    assert lines == expected_lines(contents["2.txt"]) + expected_lines(contents["1.txt"])


def test_list_files_returns_sorted_paths(tmp_path):
    names = ["b.csv", "a.csv", "c.csv", "a.txt"]
    for name in names:
        (tmp_path / name).write_text(name)
    got = list_files(str(tmp_path / "*.csv"))
    assert got == sorted(str(tmp_path / n) for n in names if n.endswith(".csv"))
    assert all(isinstance(p, str) for p in got)
    # The list feeds read_files.
    assert [e.tobytes().decode() for e in Dataset.read_files(got)] == ["a.csv", "b.csv", "c.csv"]


def test_list_files_without_a_match_is_value_error(tmp_path):
    pattern = str(tmp_path / "*.nothing")
    with pytest.raises(ValueError) as info:
        list_files(pattern)
    assert pattern in str(info.value)


def test_read_files_pattern_without_a_match_is_value_error(tmp_path):
    with pytest.raises(ValueError):
        Dataset.read_files(os.path.join(str(tmp_path), "*.none"))
