"""Every code block in README.md and docs/*.md works as written on a fresh
clone after the setup command:

- ```sh and ```python blocks run, file by file, in a fresh temporary folder:
  the shell blocks first, in order (with the built `loom` on PATH), then the
  file's Python blocks as one script in a fresh interpreter (a later block may
  use what an earlier one defined, as a reader would);
- ```cpp blocks are excerpts of the complete programs in examples/, which
  ctest compiles and runs: every line of a block must appear there;
- a block right after a line `<!-- not run in tests: REASON -->` is skipped
  (the setup and test commands themselves, a build by hand).
Blocks without a language are output, not code."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC_FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
SKIP_MARK = re.compile(r"<!-- not run in tests: (.+) -->")


def code_blocks(path):
    """(language, code, first line number, skip reason or None) per fenced block."""
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```(\S*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        previous = lines[i - 1] if i > 0 else ""
        skip = SKIP_MARK.search(previous)
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        blocks.append((fence.group(1), "\n".join(lines[i + 1:end]) + "\n", i + 1,
                       skip.group(1) if skip else None))
        i = end + 1
    return blocks


def normalized(line):
    return " ".join(line.split())


def ids(paths):
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.mark.parametrize("path", DOC_FILES, ids=ids(DOC_FILES))
def test_cpp_blocks_are_excerpts_of_compiled_examples(path):
    examples = "\n".join(normalized(line) for f in sorted((ROOT / "examples").glob("*.cc"))
                         for line in f.read_text().splitlines())
    missing = []
    for language, code, line, skip in code_blocks(path):
        if language != "cpp" or skip:
            continue
        for text in code.splitlines():
            if text.strip() and normalized(text) not in examples:
                missing.append(f"line {line}: {text.strip()}")
    assert missing == [], "C++ lines not in any examples/*.cc (write the example, then quote it)"


def loom_on_path_env():
    env = dict(os.environ)
    built = ROOT / "build" / "release" / "bin"
    if (built / "loom").exists():
        env["PATH"] = f"{built}{os.pathsep}{env['PATH']}"
    return env


@pytest.mark.parametrize("path", DOC_FILES, ids=ids(DOC_FILES))
def test_shell_and_python_blocks_run_as_written(path, tmp_path):
    blocks = [b for b in code_blocks(path) if b[0] in ("sh", "python") and not b[3]]
    if not blocks:
        pytest.skip("no runnable blocks")
    env = loom_on_path_env()
    if any(lang == "sh" for lang, *_ in blocks) and shutil.which("loom", path=env["PATH"]) is None:
        pytest.skip("the loom command is not built (scripts/build.sh release)")
    for language, code, line, _ in blocks:
        if language != "sh":
            continue
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{path.name} line {line}:\n{code}\n{done.stderr}"
    script = "".join(code for language, code, *_ in blocks if language == "python")
    if script:
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{path.name}:\n{script}\n{done.stderr}"


def test_the_setup_and_test_commands_open_the_readme():
    blocks = code_blocks(ROOT / "README.md")
    language, code, _, skip = blocks[0]
    assert language == "sh" and skip
    assert code.splitlines()[0].startswith("./scripts/setup.sh")
    assert code.splitlines()[1].startswith("./scripts/test.sh")
