#!/usr/bin/env bash
# README command 2: the whole test suite.
#  1. release build: every test; then the Python package, built from this
#     checkout and installed (`pip install .`), and its pytest suite;
#  2. ThreadSanitizer build: every test, threading ones above all (pools,
#     ParallelFor, config, runtime) — concurrency code must be race-free;
#  3. ASan+UBSan build: every test.
# First of all, every tracked C++ file must be as clang-format writes it
# (.clang-format at the root).
# Set LOOM_TEST_QUICK=1 to run only step 1 (after the format check).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"

# Each step's header says when it started (seconds since this script did):
# CI allows the whole run 90 minutes on a 2-core machine, so its log should
# show where they went.
step() { echo "== $* (at ${SECONDS} s) =="; }

run_ctest() {  # preset, extra ctest args...
  local preset="$1"; shift
  step "ctest ($preset)"
  ctest --test-dir "build/$preset" --output-on-failure -j "$jobs" --timeout 300 "$@"
}

step "clang-format --dry-run"
git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run -Werror

step "build (release)"
scripts/build.sh release
run_ctest release
step "Python package"
scripts/build_python.sh
step "pytest (python/tests)"
python3 -m pytest -q python/tests

if [ "${LOOM_TEST_QUICK:-0}" != "1" ]; then
  step "build (tsan)"
  scripts/build.sh tsan
  # halt_on_error: a race is a failure, not a log line.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" run_ctest tsan
  step "build (asan)"
  scripts/build.sh asan
  ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" run_ctest asan
fi
echo "all tests passed (${SECONDS} s)"
