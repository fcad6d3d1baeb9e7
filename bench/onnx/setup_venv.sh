#!/usr/bin/env bash
# Creates .venv (at the repository root, git-ignored) with the pinned peers
# from bench/onnx/requirements.txt. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m venv .venv
.venv/bin/pip install --quiet -r bench/onnx/requirements.txt
.venv/bin/python -c "import onnxruntime, numpy; print('onnxruntime', onnxruntime.__version__, 'numpy', numpy.__version__)"
