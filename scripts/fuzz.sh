#!/usr/bin/env bash
# Runs one fuzz target (fuzz/<target>_fuzz.cc) under libFuzzer with ASan and
# UBSan for SECONDS. Usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]
#   scripts/fuzz.sh onnx_model 600
# Builds build/fuzz with clang (scripts/install_deps.sh installs it and
# libFuzzer). Starts from the saved inputs (fuzz/corpus/TARGET, read only);
# new inputs go to build/fuzz/corpus/TARGET, a crash, leak or slow input
# (> 10 s) to build/fuzz/artifacts/TARGET/. Fix the bug, then copy the input
# into fuzz/corpus/TARGET: loom_fuzz_replay_TARGET (ctest) runs every saved
# input in the normal test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]; targets: $(ls fuzz/*_fuzz.cc fuzz/*_fuzz.py | sed 's|fuzz/||; s|_fuzz.cc||; s|_fuzz.py||' | tr '\n' ' ')" >&2
  exit 2
fi
target="$1"
seconds="$2"
shift 2
if [ ! -f "fuzz/${target}_fuzz.cc" ] && [ ! -f "fuzz/${target}_fuzz.py" ]; then
  echo "scripts/fuzz.sh: no fuzz target '$target' (fuzz/${target}_fuzz.cc or .py)" >&2
  exit 2
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "scripts/fuzz.sh: SECONDS must be a positive whole number, got '$seconds'" >&2
  exit 2
fi
corpus="build/fuzz/corpus/${target}"
artifacts="build/fuzz/artifacts/${target}"
mkdir -p "$corpus" "$artifacts"
if [ -f "fuzz/${target}_fuzz.py" ]; then
  # A Python target runs under atheris (python/requirements.txt) against the
  # installed loom package (scripts/build_python.sh): coverage of Python
  # code only; a crash in the extension is caught by libFuzzer's signal
  # handlers, heap misuse by glibc's checks (MALLOC_CHECK_).
  MALLOC_CHECK_=3 python3 "fuzz/${target}_fuzz.py" "$corpus" "fuzz/corpus/${target}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@"
  exit
fi
if ! command -v clang++ >/dev/null; then
  echo "scripts/fuzz.sh: needs clang++ and libFuzzer (scripts/install_deps.sh installs them)" >&2
  exit 1
fi
export CCACHE_NOHASHDIR=1
# -O0: with ASan, UBSan and coverage, clang compiles a kernel file ~2.6x
# faster than at -O1 (reduce_topk.cc: 7.1 vs 18.7 s), for slower executions.
CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1" -DLOOM_SANITIZE=address -DLOOM_FUZZ=ON \
  -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_BENCHMARKS=OFF -DLOOM_BUILD_TOOLS=OFF >/dev/null
cmake --build build/fuzz --target "fuzz_${target}"
dict=()
[ -f "fuzz/${target}.dict" ] && dict=(-dict="fuzz/${target}.dict")
# detect_leaks: a leak is a failure; -timeout: a slow input is a hang;
# -rss_limit_mb: beyond the memory cap the targets set, with room for ASan.
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "build/fuzz/fuzz/fuzz_${target}" "$corpus" "fuzz/corpus/${target}" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "${dict[@]}" "$@"
