# Runs CMD with the ;-separated ARGS; checks the exit code and that stdout contains every
# |-separated substring of EXPECT_STDOUT. Used for CLI runs whose report is printed.
string(REPLACE "|" ";" _expect "${EXPECT_STDOUT}")
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout: ${out}\nstderr: ${err}")
endif()
foreach(_s IN LISTS _expect)
  string(FIND "${out}" "${_s}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "stdout does not contain '${_s}':\n${out}")
  endif()
endforeach()
