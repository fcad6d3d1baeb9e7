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

run_ctest() {  # preset, extra ctest args...
  local preset="$1"; shift
  echo "== ctest ($preset) =="
  ctest --test-dir "build/$preset" --output-on-failure -j "$jobs" --timeout 300 "$@"
}

echo "== clang-format --dry-run =="
git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run -Werror

scripts/build.sh release
run_ctest release
scripts/build_python.sh
echo "== pytest (python/tests) =="
python3 -m pytest -q python/tests

if [ "${LOOM_TEST_QUICK:-0}" != "1" ]; then
  scripts/build.sh tsan
  # halt_on_error: a race is a failure, not a log line.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" run_ctest tsan
  scripts/build.sh asan
  ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" run_ctest asan
fi
echo "all tests passed"
