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
