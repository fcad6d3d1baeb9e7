#!/usr/bin/env bash
# Configures and builds one preset (default: release). Usage: scripts/build.sh [release|asan|tsan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
# ccache keys ignore the build directory, so scripts/build_python.sh
# (build/python, the same flags as release) reuses these objects.
export CCACHE_NOHASHDIR=1
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
