# The ONNX protobuf classes (onnx::ModelProto, ...), generated at build time
# by protoc (Debian protobuf-compiler) from the .proto file of the pinned
# `onnx` PyPI package (python/requirements.txt; for `pip install .`, a
# build requirement in pyproject.toml). One schema for the whole project: the
# importer, the conformance runner and the tests parse with it, so an IR or
# field that exporters write today is never older here than in the Python
# package the tests compare against.
#
# The file is copied to loom_onnx/onnx.proto, so the header is
# "loom_onnx/onnx.pb.h": no clash with a system ONNX's "onnx/onnx-ml.pb.h".
# onnx-ml.proto is the superset (it adds TypeProto.Opaque to onnx.proto).

# protobuf for C++: libprotobuf with its headers, and protoc of the same
# version. PyPI has neither (the `protobuf` wheel is Python's own runtime),
# so this is the one build dependency `pip install .` cannot fetch.
find_package(Protobuf)
if(NOT Protobuf_FOUND OR NOT TARGET protobuf::protoc)
  message(FATAL_ERROR
    "ONNX parser: protobuf for C++ not found (library: '${Protobuf_LIBRARY}', "
    "protoc: '${Protobuf_PROTOC_EXECUTABLE}'). The build generates the parser from onnx.proto "
    "with protoc and links it to libprotobuf; both come from the system, not from PyPI "
    "(the `protobuf` wheel is Python-only). Debian/Ubuntu, as root: "
    "apt-get install libprotobuf-dev protobuf-compiler (or scripts/install_deps.sh). "
    "Without root: docs/install.md, 'Without root', unpacks those packages into a folder "
    "given as CMAKE_PREFIX_PATH.")
endif()
# LOOM_PYTHON3: cmake/build_python3.cmake.

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
                        "LOOM_ONNX_PROTO to an onnx-ml.proto (`pip install .` installs onnx "
                        "into its build environment itself)")
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

# onnx-data.proto beside it: SequenceProto and OptionalProto, the test data
# of sequence and optional values (the conformance runner reads them). Its
# import of onnx/onnx-ml.proto is pointed at the copy above.
get_filename_component(_onnx_proto_dir "${_onnx_proto}" DIRECTORY)
set(_onnx_data_proto "${_onnx_proto_dir}/onnx-data.proto")
if(NOT EXISTS "${_onnx_data_proto}")
  message(FATAL_ERROR "ONNX parser: ${_onnx_data_proto} does not exist")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_onnx_data_proto}")
file(READ "${_onnx_data_proto}" _onnx_data_text)
string(REPLACE "import \"onnx/onnx-ml.proto\";" "import \"loom_onnx/onnx.proto\";"
       _onnx_data_text "${_onnx_data_text}")
set(_proto_data_copy "${_proto_root}/loom_onnx/onnx_data.proto")
file(CONFIGURE OUTPUT "${_proto_data_copy}" CONTENT "${_onnx_data_text}" @ONLY)
add_custom_command(
  OUTPUT "${_proto_root}/loom_onnx/onnx_data.pb.cc" "${_proto_root}/loom_onnx/onnx_data.pb.h"
  COMMAND protobuf::protoc --cpp_out=${_proto_root} --proto_path=${_proto_root}
          ${_proto_data_copy}
  DEPENDS "${_proto_data_copy}" "${_proto_copy}" protobuf::protoc
  COMMENT "protoc: the ONNX data schema (loom_onnx/onnx_data.proto)"
  VERBATIM)

# Generated code: built without the project's warning flags.
add_library(loom_onnx_proto STATIC "${_proto_root}/loom_onnx/onnx.pb.cc"
                                   "${_proto_root}/loom_onnx/onnx_data.pb.cc")
target_include_directories(loom_onnx_proto SYSTEM PUBLIC "${_proto_root}")
target_link_libraries(loom_onnx_proto PUBLIC protobuf::libprotobuf)
