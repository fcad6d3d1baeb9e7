#!/usr/bin/env bash
# Builds and installs the `loom` Python package from this checkout into the
# python3 on PATH (`pip install .`; scikit-build-core builds in build/python).
# The build dependencies come from scripts/install_deps.sh, hence
# --no-build-isolation: the pinned versions, and an incremental rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys ignore the build directory, so objects from the release
# preset's build (same flags) are reused.
export CCACHE_NOHASHDIR=1
# The compiler CMake picks for the presets; scikit-build-core would find g++
# under its own name, which ccache counts as a different compiler.
export CXX="${CXX:-c++}"
exec python3 -m pip install --no-build-isolation --no-deps --quiet --root-user-action=ignore .
