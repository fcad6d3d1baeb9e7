#!/usr/bin/env bash
# Sets up the peers for bench/compare, as root on Debian 12. Safe to run again.
#  - .venv-compare (repository root, git-ignored): tensorflow-cpu, onnxruntime,
#    onnx, numpy from PyPI, pinned in bench/compare/requirements.txt;
#  - PyTorch from Debian (python3-torch, for /usr/bin/python3): PyPI's Linux
#    torch wheels bring the CUDA libraries, gigabytes this benchmark never uses;
#  - Loom itself: the release build (scripts/build.sh release).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3-torch
fi
[ -x .venv-compare/bin/python ] || python3 -m venv .venv-compare
.venv-compare/bin/pip install --quiet --disable-pip-version-check -r bench/compare/requirements.txt
[ -x build/release/bin/loom ] || scripts/build.sh release
.venv-compare/bin/python -c "import tensorflow as tf, onnxruntime as ort; print('tensorflow', tf.__version__, '| onnxruntime', ort.__version__)"
/usr/bin/python3 -c "import torch; print('torch', torch.__version__, '(Debian)')"
