# Runs PROGRAM (under EMULATOR, a list, when cross-built) and fails unless it
# exits 0 and its output holds the line EXPECTED (when EXPECTED is given).
#   cmake -DPROGRAM=... [-DEMULATOR=...] [-DEXPECTED=...] -P check_output.cmake
# Used by tests/cmake/readme.cmake for the README's C example.
if(NOT PROGRAM)
  message(FATAL_ERROR "check_output.cmake: PROGRAM (the program to run) is not set")
endif()
execute_process(COMMAND ${EMULATOR} ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${status}, expected 0")
endif()
if(DEFINED EXPECTED AND NOT EXPECTED STREQUAL "")
  string(REPLACE "\r" "" out "${out}") # the Windows C runtime writes CRLF
  string(FIND "\n${out}" "\n${EXPECTED}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${PROGRAM} did not print the line \"${EXPECTED}\" (README.md's comment promises it)")
  endif()
endif()
