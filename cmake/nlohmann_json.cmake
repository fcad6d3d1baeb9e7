# nlohmann/json (header-only; the JSON reports, run stats and config files).
# Debian's nlohmann-json3-dev where it is installed (scripts/install_deps.sh);
# otherwise the same headers from the `nlohmann-json` PyPI package, a build
# requirement in pyproject.toml, so `pip install .` needs no system package
# for them. Either way the target is nlohmann_json::nlohmann_json.
find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  execute_process(
    COMMAND "${LOOM_PYTHON3}" -c
            "import os, nlohmann_json; print(os.path.join(os.path.dirname(nlohmann_json.__file__), 'include'), end='')"
    OUTPUT_VARIABLE _json_include RESULT_VARIABLE _json_rc ERROR_QUIET)
  if(NOT _json_rc EQUAL 0 OR NOT EXISTS "${_json_include}/nlohmann/json.hpp")
    message(FATAL_ERROR
      "nlohmann/json (header-only) not found. Install Debian's nlohmann-json3-dev "
      "(scripts/install_deps.sh), or the nlohmann-json PyPI package into ${LOOM_PYTHON3} "
      "(`pip install .` does that itself), or point nlohmann_json_DIR at its CMake config.")
  endif()
  message(STATUS "nlohmann/json: the nlohmann-json Python package's headers (${_json_include})")
  # Imported, so its headers are SYSTEM: our -Werror does not apply to them.
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${_json_include}")
endif()
