# kops_add_oracle.cmake -- an oracle for JIT engines, generated at the user's build time
# (docs/conformance.md "For JIT-engine authors: the oracle"). Included by kopsConfig.cmake
# (find_package(kops)) and by kops' own CMakeLists.txt (add_subdirectory).
#
#   kops_add_oracle(<name> FORMULAS <file>)
#
# Each line of <file> is a case: a name; a KeOps reduction string; its aliases
# (separated by spaces); float32 or float64 -- the fields separated by ';', '#'
# starting a comment, blank lines skipped:
#
#   gauss; Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0); G=Pm(1) X=Vi(3) Y=Vj(3) B=Vj(1); float32
#
# At configure time the file is read (and read again when it changes) and
# one translation unit is written per case, under <binary dir>/<name>_cases/:
# the reduction is kops::keops_reduction<"...", "G=Pm(1)", ...>, a type, so a
# string KeOps would not parse fails that case's compile with the parser's
# message; nothing is parsed at run time. The executable <name> (linked to
# kops::kokkos) runs them:
#
#   <name> --list
#   <name> run <case> <out.npy> <arg0.npy> <arg1.npy> ...
#
# (kops/io/oracle_cli.hpp; a case's translation unit: kops/oracle.hpp). A malformed
# line is a configure error naming the file and the line.

function(kops_add_oracle name)
  cmake_parse_arguments(PARSE_ARGV 1 _ko "" "FORMULAS" "")
  if(NOT _ko_FORMULAS OR _ko_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kops_add_oracle(${name}): expected kops_add_oracle(<name> FORMULAS <file>), "
                        "given extra arguments '${_ko_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT TARGET kops::kokkos)
    message(FATAL_ERROR "kops_add_oracle(${name}): needs kops::kokkos (find_package(kops) with Kokkos)")
  endif()
  get_filename_component(_file "${_ko_FORMULAS}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "kops_add_oracle(${name}): FORMULAS file '${_file}' does not exist")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_file}")
  _kops_oracle_sources(${name} "${_file}" "${CMAKE_CURRENT_BINARY_DIR}/${name}_cases" _sources)
  # Stale cases of a shorter file are left out of the build (not deleted).
  add_executable(${name} ${_sources})
  target_link_libraries(${name} PRIVATE kops::kokkos)
endfunction()

# The sources of oracle <name> from the formula file <file>, written under <dir>
# (main.cpp, case_<k>.cpp), their paths into <out_var>. Needs no target: runs in
# script mode too (tests/oracle/formula_errors.cmake).
function(_kops_oracle_sources name _file _dir out_var)
  # Lines as a CMake list: the file's own ';' become \x1f first (a list separator
  # otherwise) -- the unit separator, ASCII 31 --, '[' and ']' are kept out of list operations the same way.
  string(ASCII 31 _semi)
  string(ASCII 28 _open)
  string(ASCII 29 _close)
  file(READ "${_file}" _text)
  string(REPLACE "\r" "" _text "${_text}")
  string(REPLACE ";" "${_semi}" _text "${_text}")
  string(REPLACE "[" "${_open}" _text "${_text}")
  string(REPLACE "]" "${_close}" _text "${_text}")
  string(REPLACE "\n" ";" _lines "${_text}")

  set(_sources "")
  set(_decls "")
  set(_table "")
  set(_names "")
  set(_lineno 0)
  set(_k 0)
  foreach(_line IN LISTS _lines)
    math(EXPR _lineno "${_lineno} + 1")
    string(REGEX REPLACE "#.*$" "" _line "${_line}")
    string(STRIP "${_line}" _line)
    if(_line STREQUAL "")
      continue()
    endif()
    set(_where "kops_add_oracle(${name}): ${_file}:${_lineno}")
    string(REPLACE "${_open}" "[" _line "${_line}")
    string(REPLACE "${_close}" "]" _line "${_line}")
    string(REPLACE "${_semi}" ";" _shown "${_line}")   # the line as written, for messages
    if(_line MATCHES "[\"\\\\]")
      message(FATAL_ERROR "${_where}: a case holds no '\"' or '\\', given: ${_shown}")
    endif()
    if(_line MATCHES "[][]")
      message(FATAL_ERROR "${_where}: a case holds no '[' or ']', given: ${_shown}")
    endif()
    string(REPLACE "${_semi}" ";" _fields "${_line}")
    list(LENGTH _fields _nfields)
    if(NOT _nfields EQUAL 4)
      message(FATAL_ERROR "${_where}: expected 4 fields separated by ';' (name; reduction; aliases; "
                          "float32|float64), given ${_nfields}: ${_shown}")
    endif()
    list(GET _fields 0 _case)
    list(GET _fields 1 _red)
    list(GET _fields 2 _aliases)
    list(GET _fields 3 _dtype)
    foreach(_f IN ITEMS _case _red _aliases _dtype)
      string(STRIP "${${_f}}" ${_f})
    endforeach()
    if(NOT _case MATCHES "^[A-Za-z_][A-Za-z0-9_.-]*$")
      message(FATAL_ERROR "${_where}: a case's name is letters, digits, '_', '.', '-' (a letter or '_' first), "
                          "given '${_case}'")
    endif()
    list(FIND _names "${_case}" _seen)
    if(_seen GREATER -1)
      message(FATAL_ERROR "${_where}: case '${_case}' is defined twice")
    endif()
    list(APPEND _names "${_case}")
    if(_red STREQUAL "")
      message(FATAL_ERROR "${_where}: case '${_case}' has no reduction string")
    endif()
    if(_dtype STREQUAL "float32")
      set(_type float)
    elseif(_dtype STREQUAL "float64")
      set(_type double)
    else()
      message(FATAL_ERROR "${_where}: case '${_case}': the type is float32 or float64, given '${_dtype}'")
    endif()
    # Aliases: separated by spaces (or tabs), each a template argument of its own.
    string(REGEX MATCHALL "[^ \t]+" _alias_list "${_aliases}")
    list(JOIN _alias_list " " _aliases)
    set(_targs "\"${_red}\"")
    foreach(_a IN LISTS _alias_list)
      string(APPEND _targs ", \"${_a}\"")
    endforeach()

    set(_src "${_dir}/case_${_k}.cpp")
    file(CONFIGURE OUTPUT "${_src}" CONTENT
"// Generated by kops_add_oracle(${name}) from ${_file}, line ${_lineno}: do not edit.
#include <kops/oracle.hpp>

namespace {
constexpr auto red = kops::keops_reduction<${_targs}>;
}

const kops::oracle::case_entry& kops_oracle_case_${_k}() {
  static const kops::oracle::case_entry c =
      kops::oracle::make_case<red, ${_type}>(\"${_case}\", \"${_red}\", \"${_aliases}\");
  return c;
}
" @ONLY)
    list(APPEND _sources "${_src}")
    string(APPEND _decls "const kops::oracle::case_entry& kops_oracle_case_${_k}();\n")
    string(APPEND _table "      &kops_oracle_case_${_k}(),\n")
    math(EXPR _k "${_k} + 1")
  endforeach()
  if(_k EQUAL 0)
    message(FATAL_ERROR "kops_add_oracle(${name}): ${_file} holds no case")
  endif()

  file(CONFIGURE OUTPUT "${_dir}/main.cpp" CONTENT
"// Generated by kops_add_oracle(${name}) from ${_file}: do not edit.
#include <kops/io/oracle_cli.hpp>

${_decls}
int main(int argc, char** argv) {
  const kops::oracle::case_entry* const cases[] = {
${_table}  };
  return kops::oracle::main(argc, argv, cases);
}
" @ONLY)
  set(${out_var} "${_dir}/main.cpp" ${_sources} PARENT_SCOPE)
endfunction()
