# The ONNX protobuf classes (onnx::ModelProto, ...), generated at build time
# by protoc (Debian protobuf-compiler) from the .proto file of the pinned
# `onnx` PyPI package (python/requirements.txt). One schema for the whole
# project: the importer, the conformance runner and the tests parse with it,
# so an IR or field that exporters write today is never older here than in
# the Python package the tests compare against.
#
# The file is copied to loom_onnx/onnx.proto, so the header is
# "loom_onnx/onnx.pb.h": no clash with a system ONNX's "onnx/onnx-ml.pb.h".
# onnx-ml.proto is the superset (it adds TypeProto.Opaque to onnx.proto).
find_package(Protobuf REQUIRED)
# The interpreter that has the pinned onnx: the one scikit-build-core runs
# (it sets Python3_EXECUTABLE), else python3 on PATH.
if(DEFINED Python3_EXECUTABLE)
  set(LOOM_PYTHON3 "${Python3_EXECUTABLE}" CACHE FILEPATH "python3 with the pinned onnx package")
else()
  find_program(LOOM_PYTHON3 python3 REQUIRED)
endif()

set(LOOM_ONNX_PROTO "" CACHE FILEPATH
    "onnx-ml.proto to generate the ONNX parser from (empty: the one in python3's onnx package)")
set(_onnx_proto "${LOOM_ONNX_PROTO}")
if(NOT _onnx_proto)
  execute_process(
    COMMAND "${LOOM_PYTHON3}" -c
            "import os, onnx; print(os.path.join(os.path.dirname(onnx.__file__), 'onnx-ml.proto'), end='')"
    OUTPUT_VARIABLE _onnx_proto RESULT_VARIABLE _onnx_rc ERROR_QUIET)
  if(NOT _onnx_rc EQUAL 0)
    message(FATAL_ERROR "ONNX parser: `${LOOM_PYTHON3} -c 'import onnx'` failed; run "
                        "scripts/install_deps.sh (it installs the pinned onnx package), or set "
                        "LOOM_ONNX_PROTO to an onnx-ml.proto")
  endif()
endif()
if(NOT EXISTS "${_onnx_proto}")
  message(FATAL_ERROR "ONNX parser: ${_onnx_proto} does not exist")
endif()
message(STATUS "ONNX parser generated from ${_onnx_proto}")

set(_proto_root "${CMAKE_CURRENT_BINARY_DIR}/proto")
set(_proto_copy "${_proto_root}/loom_onnx/onnx.proto")
configure_file("${_onnx_proto}" "${_proto_copy}" COPYONLY)
add_custom_command(
  OUTPUT "${_proto_root}/loom_onnx/onnx.pb.cc" "${_proto_root}/loom_onnx/onnx.pb.h"
  COMMAND protobuf::protoc --cpp_out=${_proto_root} --proto_path=${_proto_root} ${_proto_copy}
  DEPENDS "${_proto_copy}" protobuf::protoc
  COMMENT "protoc: the ONNX schema (loom_onnx/onnx.proto)"
  VERBATIM)

# Generated code: built without the project's warning flags.
add_library(loom_onnx_proto STATIC "${_proto_root}/loom_onnx/onnx.pb.cc")
target_include_directories(loom_onnx_proto SYSTEM PUBLIC "${_proto_root}")
target_link_libraries(loom_onnx_proto PUBLIC protobuf::libprotobuf)
