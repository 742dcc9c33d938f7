# kops_doc_snippets.cmake -- every code snippet of the Markdown docs is compiled
# (conventions and the by-hand checker: tests/docs/README.md).
#
#   kops_add_doc_snippets(LIB <cpu target> [WARNINGS <options>...]
#                         [CUDA_LIB <cuda target> CUDA_ARCHITECTURES <archs>])
#
# At configure time tests/docs/snippets.py reads README.md and docs/*.md and
# writes, into <current binary dir>/doc_snippets/:
#   <file>.cpp                one translation unit per Markdown file with its cpp
#                             fragments and toplevel blocks -> an executable and
#                             the ctest test doc_snippets.<file> (label docs);
#   <file>.program_L<n>.cpp   one per whole program (a block with `int main(`)
#                             -> an executable, test doc_snippets.<file>.program_L<n>;
#   <file>.fail_L<n>.cpp      one per `snippet: fail` block -> an object library
#                             excluded from all, and the test doc_snippets.<file>.fail_L<n>
#                             that builds it through kops_expect_compile_failure.cmake
#                             (the build must fail with the block's REGEX);
#   *.cu                      the same for cuda blocks, when CUDA_LIB is given:
#                             object libraries built with everything else (compiled,
#                             never run); cuda fail blocks as above.
# Editing, adding or removing a Markdown file re-runs the configure step.
# A malformed file (an unknown directive, an unterminated fence) stops the
# configure step with the file and line.
function(kops_add_doc_snippets)
  cmake_parse_arguments(ARG "" "LIB;CUDA_LIB" "WARNINGS;CUDA_ARCHITECTURES" ${ARGN})
  if(NOT ARG_LIB)
    message(FATAL_ERROR "kops_add_doc_snippets: LIB <target> is required")
  endif()
  set(_root "${PROJECT_SOURCE_DIR}")
  set(_script "${_root}/tests/docs/snippets.py")
  set(_out "${CMAKE_CURRENT_BINARY_DIR}/doc_snippets")
  file(GLOB _md CONFIGURE_DEPENDS "${_root}/docs/*.md")
  if(EXISTS "${_root}/README.md")
    list(PREPEND _md "${_root}/README.md")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_md} "${_script}")

  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${_script}" --generate "${_out}" --root "${_root}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _o ERROR_VARIABLE _o)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "The code snippets of the docs cannot be read (tests/docs/README.md):\n${_o}")
  endif()

  set(_inc "${_root}/tests/docs" "${_root}/tests/conformance")
  set(_n 0)
  file(STRINGS "${_out}/manifest.txt" _lines)
  foreach(_line IN LISTS _lines)
    # kind, lang, name, generated file, Markdown file
    string(REPLACE "\t" ";" _f "${_line}")
    list(GET _f 0 _kind)
    list(GET _f 1 _lang)
    list(GET _f 2 _name)
    list(GET _f 3 _src)
    string(MAKE_C_IDENTIFIER "${_name}" _id)
    set(_tgt "kops_doc_${_id}")
    set(_test "doc_snippets.${_name}")
    # A whole CUDA program of the docs also runs, on the emulated GPU
    # (kops::cuda_emulated): doc_snippets.<name>.emulated.
    if(_lang STREQUAL "cuda" AND _kind STREQUAL "program" AND TARGET kops::cuda_emulated)
      add_executable(${_tgt}_emulated "${_src}")
      target_include_directories(${_tgt}_emulated PRIVATE ${_inc})
      kops_use_cuda_emulated(${_tgt}_emulated)
      target_compile_options(${_tgt}_emulated PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-O1> ${ARG_WARNINGS})
      # One argument, 2000: a program of the docs that takes its size from the
      # command line runs small here (its default, 1e5 x 1e5 pairs, took the
      # emulator 190 s); the others ignore it.
      add_test(NAME ${_test}.emulated COMMAND ${_tgt}_emulated 2000)
      set_tests_properties(${_test}.emulated PROPERTIES LABELS "docs;gpu_emulated" TIMEOUT 300)
    endif()
    if(_lang STREQUAL "cuda" AND NOT ARG_CUDA_LIB)
      continue()
    endif()
    math(EXPR _n "${_n} + 1")

    if(_kind STREQUAL "fail")
      add_library(${_tgt} OBJECT EXCLUDE_FROM_ALL "${_src}")
    elseif(_lang STREQUAL "cuda")
      add_library(${_tgt} OBJECT "${_src}")
    else()
      add_executable(${_tgt} "${_src}")
    endif()
    target_include_directories(${_tgt} PRIVATE ${_inc})
    if(_lang STREQUAL "cuda")
      target_link_libraries(${_tgt} PRIVATE ${ARG_CUDA_LIB})
      set_target_properties(${_tgt} PROPERTIES CUDA_ARCHITECTURES "${ARG_CUDA_ARCHITECTURES}")
      target_compile_options(${_tgt} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
    else()
      target_link_libraries(${_tgt} PRIVATE ${ARG_LIB})
      # compiling is most of the cost of this test: -O1, one TU per Markdown file
      target_compile_options(${_tgt} PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-O1> ${ARG_WARNINGS})
    endif()

    if(_kind STREQUAL "fail")
      # plain diagnostics, so that the expected regex sees plain text
      target_compile_options(${_tgt} PRIVATE
        $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-fdiagnostics-color=never>
        $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fdiagnostics-color=never>)
      add_test(NAME ${_test}
        COMMAND "${CMAKE_COMMAND}"
          "-DKOPS_BUILD_DIR=${PROJECT_BINARY_DIR}"
          "-DKOPS_TARGET=${_tgt}"
          "-DKOPS_SOURCE=${_src}"
          "-DKOPS_CONFIG=$<CONFIG>"
          -P "${_root}/cmake/kops_expect_compile_failure.cmake")
      # builds in one build tree must not run concurrently
      set_tests_properties(${_test} PROPERTIES LABELS docs RESOURCE_LOCK kops_build_tree TIMEOUT 600)
    elseif(_lang STREQUAL "cpp")
      add_test(NAME ${_test} COMMAND ${_tgt})
      set_tests_properties(${_test} PROPERTIES LABELS docs TIMEOUT 300)
    endif()
  endforeach()
  message(STATUS "kops: ${_n} translation units of doc snippets (tests/docs/README.md)")
endfunction()
