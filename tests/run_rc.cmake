# Runs CMD with the ;-separated ARGS; checks the exact exit code the README promises (0 ok,
# 1 a check failed, 2 bad input or arguments) and that stderr contains EXPECT_STDERR.
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout: ${out}\nstderr: ${err}")
endif()
string(FIND "${err}" "${EXPECT_STDERR}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "stderr does not contain '${EXPECT_STDERR}':\n${err}")
endif()
