"""The type stubs (python/loom/_loom/*.pyi, scripts/gen_stubs.py) match the
built extension and give real types: IDEs and type checkers see what each
function takes, not `object`."""

import ast
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUBS = sorted((ROOT / "python" / "loom" / "_loom").rglob("*.pyi"))


def test_stubs_are_current():
    pytest.importorskip("nanobind")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_stubs.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_stubs_parse_and_type_every_parameter_and_result():
    assert len(STUBS) >= 5 and (ROOT / "python" / "loom" / "py.typed").exists()
    untyped = []
    for path in STUBS:
        text = path.read_text()
        ast.parse(text)
        untyped += [f"{path.name}: {line.strip()}" for line in text.splitlines()
                    if re.search(r"(: object\b|-> object\b)", line)]
    assert untyped == []


def test_the_common_calls_have_their_real_signatures():
    text = (ROOT / "python" / "loom" / "_loom" / "__init__.pyi").read_text()
    # None and lists of arrays: optional and sequence values (test_sequences.py).
    assert ("def run(self, output_names: Sequence[str] | None, "
            "input_feed: Mapping[str, numpy.typing.ArrayLike | None], "
            "run_options: RunOptions | None = None) "
            "-> list[numpy.ndarray | list[numpy.ndarray] | None]") in text
    threading = (ROOT / "python" / "loom" / "_loom" / "config" / "threading.pyi").read_text()
    assert "def set_intra_op_parallelism_threads(num_threads: int | None) -> None" in threading
