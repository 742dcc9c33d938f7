# kops_expect_compile_failure.cmake -- run by ctest for each tests/compile_fail/*.cpp:
#
#   cmake -DKOPS_BUILD_DIR=<build tree> -DKOPS_TARGET=<object target>
#         -DKOPS_SOURCE=<the .cpp> [-DKOPS_CONFIG=<config>] -P kops_expect_compile_failure.cmake
#
# The source's first line is "// expect: <regex>" (a CMake regular expression).
# Passes only if building KOPS_TARGET FAILS and the build output matches <regex>.
# An optional second line "// errors: <n>" also requires exactly n compiler
# errors (": error: " lines): the rule broken and no noise after it.
# The compiler output is printed either way.

foreach(_v IN ITEMS KOPS_BUILD_DIR KOPS_TARGET KOPS_SOURCE)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "kops_expect_compile_failure.cmake: -D${_v}=... is required")
  endif()
endforeach()

file(STRINGS "${KOPS_SOURCE}" _lines LIMIT_COUNT 2)
list(GET _lines 0 _first)
set(_errors "")
list(LENGTH _lines _nlines)
if(_nlines GREATER 1)
  list(GET _lines 1 _second)
  if(_second MATCHES "^[ \t]*//[ \t]*errors:[ \t]*([0-9]+)[ \t]*$")
    set(_errors "${CMAKE_MATCH_1}")
  endif()
endif()
if(NOT _first MATCHES "^[ \t]*//[ \t]*expect:[ \t]*(.*[^ \t])[ \t]*$")
  message(FATAL_ERROR "${KOPS_SOURCE}: the first line must be '// expect: <regex>', got: '${_first}'")
endif()
set(_regex "${CMAKE_MATCH_1}")

set(_cmd "${CMAKE_COMMAND}" --build "${KOPS_BUILD_DIR}" --target "${KOPS_TARGET}")
if(KOPS_CONFIG)
  list(APPEND _cmd --config "${KOPS_CONFIG}")
endif()
execute_process(COMMAND ${_cmd}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)

message("---- build output of ${KOPS_TARGET} (exit code ${_rc}) ----\n${_out}\n---- end of build output ----")
message("expected regex: ${_regex}")
if(_rc EQUAL 0)
  message(FATAL_ERROR "FAIL: ${KOPS_SOURCE} compiled, but it must not")
endif()
if(NOT _out MATCHES "${_regex}")
  message(FATAL_ERROR "FAIL: ${KOPS_SOURCE} failed to compile, but the output does not match '${_regex}'")
endif()
if(NOT _errors STREQUAL "")
  string(REGEX MATCHALL ": error: " _all "${_out}")
  list(LENGTH _all _count)
  if(NOT _count EQUAL _errors)
    message(FATAL_ERROR "FAIL: ${KOPS_SOURCE}: ${_count} compiler errors, expected ${_errors}")
  endif()
endif()
message("PASS: compilation failed with the expected diagnostic")
