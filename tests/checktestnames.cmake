# cmake -DTEST_BINARY=FILE -P checktestnames.cmake: fails when a Catch2 test case's name holds a
# ';'. catch_discover_tests hands each name to CTest as a list, which cuts it at the ';': the cut
# name matches no test case, and the test then passes without running anything.
# Catch2 2.x exits with the number of test cases it lists, so the output is what tells.
execute_process(COMMAND "${TEST_BINARY}" --list-test-names-only OUTPUT_VARIABLE names)
if(names STREQUAL "")
    message(FATAL_ERROR "${TEST_BINARY} --list-test-names-only listed nothing")
endif()
string(REGEX MATCH "[^\n]*;[^\n]*" named "${names}")
if(named)
    message(FATAL_ERROR "a test case's name holds ';', where CTest would cut it: ${named}")
endif()
