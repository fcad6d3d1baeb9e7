#!/usr/bin/env bash
# Configures and builds one preset (default: release). Usage: scripts/build.sh [release|asan|tsan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
# ccache keys ignore the build directory, so scripts/build_python.sh
# (build/python, the same flags as release) reuses these objects.
export CCACHE_NOHASHDIR=1
# Test files include a precompiled header (cmake/test_pch.h); ccache caches
# such compiles only with this sloppiness (its manual, "Precompiled headers").
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
