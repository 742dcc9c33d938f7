# kops_consumer_test.cmake -- build and run tests/consumer against kops, as a user would.
#
#   cmake -DKOPS_MODE=find_package|add_subdirectory -DKOPS_SOURCE_DIR=... -DKOPS_BINARY_DIR=...
#         -DKOPS_CONSUMER_DIR=... -DKOPS_WORK_DIR=... -DKOPS_SETTINGS=<file> [-DKOPS_CONFIG=...]
#         -P kops_consumer_test.cmake
#
# find_package:     cmake --install <kops build> --prefix <work>/prefix, then configure
#                   the consumer with CMAKE_PREFIX_PATH=<work>/prefix.
# add_subdirectory: configure the consumer with -DKOPS_CONSUMER_USE_SUBDIR=ON
#                   -DKOPS_SOURCE_DIR=<kops source>.
# Then build the consumer and run its executable (nonzero exit = mismatch).

foreach(_v IN ITEMS KOPS_MODE KOPS_SOURCE_DIR KOPS_BINARY_DIR KOPS_CONSUMER_DIR KOPS_WORK_DIR KOPS_SETTINGS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "kops_consumer_test.cmake: -D${_v}=... is required")
  endif()
endforeach()
include("${KOPS_SETTINGS}")

set(_config "${KOPS_CONFIG}")
if(NOT _config)
  set(_config "${KOPS_PARENT_CMAKE_BUILD_TYPE}")
endif()
if(NOT _config)
  set(_config Release)
endif()

function(_kops_run what)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message("---- ${what}: ${_pretty}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "FAIL (${KOPS_MODE}): ${what} failed (${_rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${KOPS_WORK_DIR}")
file(MAKE_DIRECTORY "${KOPS_WORK_DIR}")
set(_prefix "${KOPS_WORK_DIR}/prefix")
set(_build "${KOPS_WORK_DIR}/build")

# Initial cache: lists (CMAKE_PREFIX_PATH) do not survive a command line.
set(_init "")
macro(_kops_cache var value type)
  string(REPLACE "\\" "\\\\" _q "${value}")
  string(REPLACE "\"" "\\\"" _q "${_q}")
  string(APPEND _init "set(${var} \"${_q}\" CACHE ${type} \"\")\n")
endmacro()
foreach(_v IN ITEMS CMAKE_CXX_COMPILER CMAKE_CXX_FLAGS CMAKE_MAKE_PROGRAM Kokkos_DIR Boost_DIR
                    KOPS_KOKKOS_INCLUDE_DIR KOPS_KOKKOS_CORE_LIBRARY)
  if(DEFINED KOPS_PARENT_${_v} AND NOT "${KOPS_PARENT_${_v}}" STREQUAL "")
    _kops_cache(${_v} "${KOPS_PARENT_${_v}}" STRING)
  endif()
endforeach()
if(NOT KOPS_PARENT_MULTI_CONFIG)
  _kops_cache(CMAKE_BUILD_TYPE "${_config}" STRING)
endif()
set(_prefix_path "${KOPS_PARENT_CMAKE_PREFIX_PATH}")

if(KOPS_MODE STREQUAL "find_package")
  _kops_run("install kops" "${CMAKE_COMMAND}" --install "${KOPS_BINARY_DIR}" --prefix "${_prefix}" --config "${_config}")
  list(PREPEND _prefix_path "${_prefix}")
  _kops_cache(KOPS_CONSUMER_USE_SUBDIR OFF BOOL)
elseif(KOPS_MODE STREQUAL "add_subdirectory")
  _kops_cache(KOPS_CONSUMER_USE_SUBDIR ON BOOL)
  _kops_cache(KOPS_SOURCE_DIR "${KOPS_SOURCE_DIR}" PATH)
else()
  message(FATAL_ERROR "unknown KOPS_MODE '${KOPS_MODE}'")
endif()
if(_prefix_path)
  _kops_cache(CMAKE_PREFIX_PATH "${_prefix_path}" STRING)
endif()
file(WRITE "${KOPS_WORK_DIR}/init-cache.cmake" "${_init}")
message("---- initial cache (${KOPS_WORK_DIR}/init-cache.cmake):\n${_init}")

set(_gen "")
if(KOPS_PARENT_CMAKE_GENERATOR)
  list(APPEND _gen -G "${KOPS_PARENT_CMAKE_GENERATOR}")
  if(KOPS_PARENT_CMAKE_GENERATOR_PLATFORM)
    list(APPEND _gen -A "${KOPS_PARENT_CMAKE_GENERATOR_PLATFORM}")
  endif()
  if(KOPS_PARENT_CMAKE_GENERATOR_TOOLSET)
    list(APPEND _gen -T "${KOPS_PARENT_CMAKE_GENERATOR_TOOLSET}")
  endif()
endif()

_kops_run("configure consumer" "${CMAKE_COMMAND}" ${_gen} -C "${KOPS_WORK_DIR}/init-cache.cmake"
          -S "${KOPS_CONSUMER_DIR}" -B "${_build}")
_kops_run("build consumer" "${CMAKE_COMMAND}" --build "${_build}" --config "${_config}")

# Locate the executable (single- or multi-config layout).
set(_exe "")
foreach(_cand IN ITEMS "${_build}/kops_consumer" "${_build}/${_config}/kops_consumer"
                       "${_build}/kops_consumer.exe" "${_build}/${_config}/kops_consumer.exe")
  if(EXISTS "${_cand}")
    set(_exe "${_cand}")
    break()
  endif()
endforeach()
if(NOT _exe)
  message(FATAL_ERROR "FAIL (${KOPS_MODE}): kops_consumer executable not found under ${_build}")
endif()
_kops_run("run consumer" "${_exe}")
message("PASS (${KOPS_MODE})")
