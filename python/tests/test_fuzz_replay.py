"""Replays the Python feed fuzz target's saved inputs (fuzz/corpus/python_feed,
the failures found once among them) through its test function, so what was
fixed stays fixed. The C++ targets' replays are ctest's loom_fuzz_replay_*."""

import importlib.util
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
_CORPUS = sorted((_ROOT / "fuzz" / "corpus" / "python_feed").iterdir())


def _target():
    spec = importlib.util.spec_from_file_location("python_feed_fuzz", _ROOT / "fuzz" / "python_feed_fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_corpus_is_there():
    assert len(_CORPUS) >= 20


@pytest.mark.parametrize("path", _CORPUS, ids=lambda path: path.name)
def test_saved_input(path):
    _target_module.test_one_input(path.read_bytes())


_target_module = _target()
