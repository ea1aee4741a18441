# Installs the built project into a scratch prefix, builds tests/c_consumer (plain C11) against it
# with find_package(hairswing), writes the ponytail demo avatar with the CLI, runs the C program
# on it and compares its head-turn hashes with `hairswing hash` (the C++ API) for every mode.
include(${CMAKE_CURRENT_LIST_DIR}/consumer_common.cmake)
execute_process(COMMAND ${CLI} make-demo-avatar --variant ponytail -o ${WORK}/ponytail.vrm --force
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make-demo-avatar failed")
endif()
execute_process(COMMAND ${WORK}/build/c_consumer ${WORK}/ponytail.vrm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "c_consumer: ${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "C consumer run failed (${rc}): ${err}")
endif()
foreach(mode arc parent vrm)
  execute_process(COMMAND ${CLI} hash ${WORK}/ponytail.vrm --solver ${mode}
                  OUTPUT_VARIABLE cpp OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT cpp MATCHES "^[0-9a-f]+$")
    message(FATAL_ERROR "hairswing hash --solver ${mode} failed: ${cpp}")
  endif()
  string(FIND "${out}" "hash ${mode} ${cpp}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "C API hash for ${mode} differs from the C++ API's ${cpp}:\n${out}")
  endif()
endforeach()
message(STATUS "C API hashes equal the C++ API's in every mode")
# The README's C quick start on the same avatar.
if(QUICKSTART)
  execute_process(COMMAND ${WORK}/build/quickstart_c ${WORK}/ponytail.vrm RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^[1-9][0-9]* joints stepped; the first at rotation \\(")
    message(FATAL_ERROR "README quick start (C) failed (${rc}): ${out} ${err}")
  endif()
  message(STATUS "README quick start (C): ${out}")
endif()
