# Installs the already-built project into a scratch prefix, then configures, builds and runs the
# consumer project against it with find_package(hairswing).
include(${CMAKE_CURRENT_LIST_DIR}/consumer_common.cmake)
if(NOT EXISTS ${WORK}/prefix/include/hairswing/io.h)
  message(FATAL_ERROR "headers not installed")
endif()
execute_process(COMMAND ${WORK}/build/consumer ${DATA} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer run failed (${rc}): ${out}")
endif()
message(STATUS "consumer: ${out}")
# The README's quick start on the layered demo avatar: a head-turn moves the hair.
if(QUICKSTART AND CLI)
  execute_process(COMMAND ${CLI} make-demo-avatar --variant layered -o ${WORK}/layered.vrm --force
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "make-demo-avatar failed")
  endif()
  execute_process(COMMAND ${WORK}/build/quickstart ${WORK}/layered.vrm RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^12 chains, hair tips moved up to [1-9][0-9]* mm")
    message(FATAL_ERROR "README quick start (C++) failed (${rc}): ${out} ${err}")
  endif()
  message(STATUS "README quick start (C++): ${out}")
endif()
