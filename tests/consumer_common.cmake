# Shared by consumer_test.cmake and c_consumer_test.cmake: installs the built project (BUILD_DIR)
# into ${WORK}/prefix, then configures and builds the consumer project SRC against it with
# find_package(hairswing) in ${WORK}/build. A sanitized build needs the sanitizer at link time.
file(REMOVE_RECURSE ${WORK})
# The README's quick start (QUICKSTART: quickstart.cpp or quickstart.c), a fenced block whose first
# line names the file, is built with the consumer project: the documented example is the tested
# one.
set(quickstart_flag "")
if(README AND QUICKSTART)
  file(READ ${README} readme)
  string(REGEX MATCH "```[a-z]+\n((//|/\\*) ${QUICKSTART}:[^`]*)```" found "${readme}")
  if(NOT found)
    message(FATAL_ERROR "${README} has no ${QUICKSTART} block")
  endif()
  file(WRITE ${WORK}/src/${QUICKSTART} "${CMAKE_MATCH_1}")
  set(quickstart_flag "-DQUICKSTART=${WORK}/src/${QUICKSTART}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
set(extra "")
if(SANITIZE)
  set(extra "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix ${extra}
                        ${quickstart_flag}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer configure failed: ${out} ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer build failed: ${out} ${err}")
endif()
