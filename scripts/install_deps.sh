#!/usr/bin/env bash
# Installs everything Loom needs to build and test on a fresh Debian 12, as root.
# Safe to run again: apt skips what is already installed.
set -euo pipefail

APT_PACKAGES=(
  build-essential g++ cmake ninja-build ccache pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libopenblas-dev
  clang-format
  # scripts/fuzz.sh: clang with libFuzzer and its sanitizer runtimes.
  clang libclang-rt-14-dev
  # ONNX import: protobuf and protoc, which generates the parser from the
  # pinned onnx package's schema (src/onnx_import/proto.cmake); the backend test
  # data comes with that package too.
  libprotobuf-dev protobuf-compiler
  # RegexFullMatch: RE2, the regular-expression syntax ONNX specifies (linear
  # time, so a hostile pattern cannot hang a run).
  libre2-dev
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install_deps.sh: run as root (it installs Debian packages)" >&2
  exit 1
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Python package's build and test dependencies (pinned), into the
# python3 on PATH: scikit-build-core, nanobind, numpy, pytest, onnx,
# onnxruntime (the test oracle).
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --root-user-action=ignore --disable-pip-version-check \
  -r python/requirements.txt
