# LOOM_PYTHON3: the interpreter whose packages the build reads — the pinned
# onnx (its onnx-ml.proto, src/onnx_import/proto.cmake; its backend test data,
# src/onnx_import/conformance) and, where the system has no nlohmann/json, the
# headers of the nlohmann-json package (nlohmann_json.cmake).
#
# scikit-build-core sets Python3_EXECUTABLE to the interpreter running
# `pip install .`: in pip's isolated build environment that one has
# pyproject.toml's build-system.requires. FORCE: a build folder reused by
# another interpreter (another venv) must not keep the first one. Otherwise:
# python3 on PATH, which scripts/install_deps.sh gives python/requirements.txt.
if(DEFINED Python3_EXECUTABLE)
  set(LOOM_PYTHON3 "${Python3_EXECUTABLE}" CACHE FILEPATH "python3 with the pinned onnx package" FORCE)
else()
  find_program(LOOM_PYTHON3 python3 REQUIRED)
endif()
