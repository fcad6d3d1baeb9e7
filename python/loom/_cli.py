"""The `loom` command that pip puts on PATH ([project.scripts] in
pyproject.toml): it runs the CLI binary shipped inside this package
(loom/bin/loom, built from tools/loom) with the same arguments.

A wheel can put only Python entry points on PATH, hence this shim; it
replaces itself with the binary (os.execv), so flags, output, signals and
the exit status are the binary's own, as for build/release/bin/loom.
"""

import os
import sys
from pathlib import Path


def binary_path() -> Path:
    """Where the bundled binary belongs; it is absent from a package built
    with LOOM_BUILD_TOOLS=OFF."""
    return Path(__file__).resolve().parent / "bin" / "loom"


def main() -> None:
    binary = binary_path()
    if not os.access(binary, os.X_OK):
        sys.exit(
            f"loom: the command-line tool is not part of this installation ({binary} is "
            "missing): this package was built without it (LOOM_BUILD_TOOLS=OFF). Reinstall "
            "with `pip install .` from a checkout, or use build/release/bin/loom from a C++ "
            "build (scripts/build.sh)."
        )
    os.execv(binary, [sys.argv[0], *sys.argv[1:]])
