# kops_consumer_test.cmake -- build and run a separate project against kops, as a user
# would: tests/consumer (ctest consumer_*) and examples/cuda_project (example.cuda_project).
#
#   cmake -DKOPS_MODE=find_package|add_subdirectory -DKOPS_SOURCE_DIR=... -DKOPS_BINARY_DIR=...
#         -DKOPS_CONSUMER_DIR=... -DKOPS_WORK_DIR=... -DKOPS_SETTINGS=<file> [-DKOPS_CONFIG=...]
#         [-DKOPS_CONSUMER_EXE=<name>] [-DKOPS_CONSUMER_ARGS=<;-list>] [-DKOPS_SKIP_RETURN_CODE=<n>]
#         [-DKOPS_CONSUMER_OPTIONS=<;-list of -D settings for the consumer's configure>]
#         [-DKOPS_CONSUMER_CHECK=<;-list: a command run after the executable, @EXE@ its path>]
#         -P kops_consumer_test.cmake
#
# find_package:     cmake --install <kops build> --prefix <work>/prefix, then configure
#                   the consumer with CMAKE_PREFIX_PATH=<work>/prefix.
# add_subdirectory: configure the consumer with -DKOPS_CONSUMER_USE_SUBDIR=ON
#                   -DKOPS_SOURCE_DIR=<kops source>.
# Then build the consumer and run its executable KOPS_CONSUMER_EXE (default
# kops_consumer; nonzero exit = failure). KOPS_SETTINGS is written by
# kops_write_consumer_settings() (kops_consumer_settings.cmake) or an equivalent.
# When the executable exits with KOPS_SKIP_RETURN_CODE (e.g. 77: no GPU), the
# script prints "KOPS_SKIPPED:" (give the test SKIP_REGULAR_EXPRESSION "KOPS_SKIPPED:")
# and, with CMake >= 3.29, exits with that code too (for SKIP_RETURN_CODE).

foreach(_v IN ITEMS KOPS_MODE KOPS_SOURCE_DIR KOPS_BINARY_DIR KOPS_CONSUMER_DIR KOPS_WORK_DIR KOPS_SETTINGS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "kops_consumer_test.cmake: -D${_v}=... is required")
  endif()
endforeach()
include("${KOPS_SETTINGS}")

if(NOT KOPS_CONSUMER_EXE)
  set(KOPS_CONSUMER_EXE kops_consumer)
endif()

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
                    KOPS_KOKKOS_INCLUDE_DIR KOPS_KOKKOS_CORE_LIBRARY
                    CMAKE_CUDA_COMPILER CMAKE_CUDA_HOST_COMPILER CMAKE_CUDA_FLAGS CMAKE_CUDA_ARCHITECTURES
                    CUDAToolkit_ROOT)
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
          ${KOPS_CONSUMER_OPTIONS} -S "${KOPS_CONSUMER_DIR}" -B "${_build}")
_kops_run("build consumer" "${CMAKE_COMMAND}" --build "${_build}" --config "${_config}")

# Locate the executable (single- or multi-config layout).
set(_exe "")
foreach(_cand IN ITEMS "${_build}/${KOPS_CONSUMER_EXE}" "${_build}/${_config}/${KOPS_CONSUMER_EXE}"
                       "${_build}/${KOPS_CONSUMER_EXE}.exe" "${_build}/${_config}/${KOPS_CONSUMER_EXE}.exe")
  if(EXISTS "${_cand}")
    set(_exe "${_cand}")
    break()
  endif()
endforeach()
if(NOT _exe)
  message(FATAL_ERROR "FAIL (${KOPS_MODE}): ${KOPS_CONSUMER_EXE} executable not found under ${_build}")
endif()
# Runs a command of the test: KOPS_SKIP_RETURN_CODE skips, another nonzero status fails.
macro(_kops_run_step what)
  message("---- ${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc)
  if(NOT "${KOPS_SKIP_RETURN_CODE}" STREQUAL "" AND "${_rc}" STREQUAL "${KOPS_SKIP_RETURN_CODE}")
    message("KOPS_SKIPPED: ${what} exited with ${_rc}, its code for 'cannot run here'")
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.29)
      cmake_language(EXIT ${_rc})
    endif()
    return()
  elseif(NOT _rc EQUAL 0)
    message(FATAL_ERROR "FAIL (${KOPS_MODE}): ${what} failed (${_rc})")
  endif()
endmacro()
_kops_run_step("run consumer" "${_exe}" ${KOPS_CONSUMER_ARGS})
# The tensor-core consumer (tests/consumer/tensor_cores.cu), where the project built it.
get_filename_component(_exe_dir "${_exe}" DIRECTORY)
if(EXISTS "${_exe_dir}/kops_consumer_tc")
  _kops_run_step("run tensor-core consumer" "${_exe_dir}/kops_consumer_tc")
endif()
# KOPS_CONSUMER_CHECK: a command run after it, "@EXE@" standing for the executable's path.
if(KOPS_CONSUMER_CHECK)
  string(REPLACE "@EXE@" "${_exe}" _check "${KOPS_CONSUMER_CHECK}")
  _kops_run_step("check" ${_check})
endif()
message("PASS (${KOPS_MODE})")
