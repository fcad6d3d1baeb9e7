#!/usr/bin/env bash
# README command 1: install dependencies, build, install the Python package
# (`import loom`), and run the main job (`loom`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh release
scripts/build_python.sh
exec build/release/bin/loom "$@"
