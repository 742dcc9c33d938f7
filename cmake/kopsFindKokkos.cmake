# kopsFindKokkos.cmake -- find Kokkos for kops::kokkos, coping with broken installs.
#
# include()d (not a function: it must run in the caller's scope) by kops' own
# CMakeLists.txt and by the installed kopsConfig.cmake. On return:
#
#   KOPS_KOKKOS_FOUND    TRUE/FALSE
#   KOPS_KOKKOS_TARGET   the target to link for Kokkos (Kokkos::kokkos, or
#                        kops_kokkos_imported when no usable CMake package exists)
#   KOPS_KOKKOS_VERSION  version when known
#
# Handles:
#  * a proper Kokkos 4.x (or 3.x) install: find_package(Kokkos CONFIG) and use
#    Kokkos::kokkos as it is;
#  * Debian bookworm's libtrilinos-kokkos-dev (Kokkos 3.4.1, Serial): its
#    Kokkos::kokkos lists INTERFACE_INCLUDE_DIRECTORIES "<libdir>/../include"
#    (/usr/lib/include) which does not exist, so CMake fails at generate time.
#    Non-existent include directories are removed from the imported Kokkos
#    targets and replaced by Kokkos_INCLUDE_DIRS (/usr/include/trilinos) or by a
#    find_path() for Kokkos_Core.hpp;
#  * no Kokkos CMake package at all: an IMPORTED INTERFACE target
#    kops_kokkos_imported built from find_path / find_library.
# Set KOPS_KOKKOS_QUIET to silence the status messages.

set(KOPS_KOKKOS_FOUND FALSE)
set(KOPS_KOKKOS_TARGET "")
set(KOPS_KOKKOS_VERSION "")

# Drop non-existent plain paths from a target's INTERFACE_INCLUDE_DIRECTORIES.
# Returns in ${out_removed} whether something was dropped, in ${out_has_core}
# whether one remaining directory holds Kokkos_Core.hpp.
function(_kops_kokkos_clean_includes tgt out_removed out_has_core)
  set(removed FALSE)
  set(has_core FALSE)
  get_target_property(dirs ${tgt} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT dirs)
    set(dirs "")
  endif()
  set(kept "")
  foreach(d IN LISTS dirs)
    if(d MATCHES "\\$<")             # generator expression: keep as is
      list(APPEND kept "${d}")
    elseif(EXISTS "${d}")
      list(APPEND kept "${d}")
      if(EXISTS "${d}/Kokkos_Core.hpp")
        set(has_core TRUE)
      endif()
    else()
      set(removed TRUE)
    endif()
  endforeach()
  if(removed)
    set_property(TARGET ${tgt} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${kept}")
  endif()
  set(${out_removed} ${removed} PARENT_SCOPE)
  set(${out_has_core} ${has_core} PARENT_SCOPE)
endfunction()

if(NOT TARGET Kokkos::kokkos)
  find_package(Kokkos CONFIG QUIET)
endif()

if(TARGET Kokkos::kokkos)
  set(KOPS_KOKKOS_TARGET Kokkos::kokkos)
  if(DEFINED Kokkos_VERSION)
    set(KOPS_KOKKOS_VERSION "${Kokkos_VERSION}")
  endif()
  # Repair every imported Kokkos target we know of (the include directory is
  # checked for all of them at generate time).
  set(_kops_kokkos_fixed FALSE)
  set(_kops_kokkos_has_core FALSE)
  foreach(_kops_t IN ITEMS Kokkos::kokkos Kokkos::kokkoscore Kokkos::kokkoscontainers
                           Kokkos::kokkosalgorithms Kokkos::kokkossimd
                           trilinos_kokkoscore trilinos_kokkoscontainers trilinos_kokkosalgorithms)
    if(NOT TARGET ${_kops_t})
      continue()
    endif()
    get_target_property(_kops_real ${_kops_t} ALIASED_TARGET)
    if(NOT _kops_real)
      set(_kops_real ${_kops_t})
    endif()
    get_target_property(_kops_imp ${_kops_real} IMPORTED)
    if(NOT _kops_imp)                  # Kokkos built in-tree (add_subdirectory): leave it
      set(_kops_kokkos_has_core TRUE)
      continue()
    endif()
    _kops_kokkos_clean_includes(${_kops_real} _kops_removed _kops_core)
    if(_kops_removed)
      set(_kops_kokkos_fixed TRUE)
    endif()
    if(_kops_core)
      set(_kops_kokkos_has_core TRUE)
    endif()
  endforeach()
  if(NOT _kops_kokkos_has_core)
    # Kokkos_Core.hpp is reachable through none of the targets: add its directory
    # to Kokkos::kokkos. Prefer what the package itself says (Kokkos_INCLUDE_DIRS).
    set(_kops_hints "")
    foreach(_kops_d IN LISTS Kokkos_INCLUDE_DIRS)
      if(EXISTS "${_kops_d}/Kokkos_Core.hpp")
        get_filename_component(_kops_d "${_kops_d}" REALPATH)
        list(APPEND _kops_hints "${_kops_d}")
      endif()
    endforeach()
    if(NOT _kops_hints)
      set(_kops_prefix_hints "")
      if(DEFINED Kokkos_DIR)
        list(APPEND _kops_prefix_hints "${Kokkos_DIR}/../../../include" "${Kokkos_DIR}/../../../../include")
      endif()
      find_path(KOPS_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
        HINTS ${_kops_prefix_hints}
        PATH_SUFFIXES trilinos kokkos
        DOC "Directory holding Kokkos_Core.hpp (used to repair a broken Kokkos::kokkos)")
      if(KOPS_KOKKOS_INCLUDE_DIR)
        set(_kops_hints "${KOPS_KOKKOS_INCLUDE_DIR}")
      endif()
    endif()
    if(_kops_hints)
      get_target_property(_kops_real Kokkos::kokkos ALIASED_TARGET)
      if(NOT _kops_real)
        set(_kops_real Kokkos::kokkos)
      endif()
      set_property(TARGET ${_kops_real} APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES ${_kops_hints})
      set(_kops_kokkos_fixed TRUE)
      set(_kops_kokkos_has_core TRUE)
    endif()
  endif()
  if(_kops_kokkos_has_core)
    set(KOPS_KOKKOS_FOUND TRUE)
    if(NOT KOPS_KOKKOS_QUIET)
      if(_kops_kokkos_fixed)
        message(STATUS "kops: Kokkos ${KOPS_KOKKOS_VERSION} found (${Kokkos_DIR}); "
                       "repaired the include directories of its imported target")
      else()
        message(STATUS "kops: Kokkos ${KOPS_KOKKOS_VERSION} found (${Kokkos_DIR})")
      endif()
    endif()
  else()
    set(KOPS_KOKKOS_TARGET "")
    if(NOT KOPS_KOKKOS_QUIET)
      message(STATUS "kops: Kokkos package found but Kokkos_Core.hpp is not; "
                     "set KOPS_KOKKOS_INCLUDE_DIR")
    endif()
  endif()
endif()

if(NOT KOPS_KOKKOS_FOUND)
  # No usable CMake package: header + libraries by hand.
  if(NOT TARGET kops_kokkos_imported)
    find_path(KOPS_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp PATH_SUFFIXES trilinos kokkos
      DOC "Directory holding Kokkos_Core.hpp")
    find_library(KOPS_KOKKOS_CORE_LIBRARY NAMES kokkoscore trilinos_kokkoscore
      DOC "Kokkos core library")
    if(KOPS_KOKKOS_INCLUDE_DIR AND KOPS_KOKKOS_CORE_LIBRARY)
      add_library(kops_kokkos_imported INTERFACE IMPORTED)
      set(_kops_libs "${KOPS_KOKKOS_CORE_LIBRARY}")
      get_filename_component(_kops_libdir "${KOPS_KOKKOS_CORE_LIBRARY}" DIRECTORY)
      foreach(_kops_l IN ITEMS kokkoscontainers trilinos_kokkoscontainers)
        find_library(_kops_found_${_kops_l} NAMES ${_kops_l} HINTS "${_kops_libdir}" NO_CACHE)
        if(_kops_found_${_kops_l})
          list(PREPEND _kops_libs "${_kops_found_${_kops_l}}")
        endif()
      endforeach()
      list(APPEND _kops_libs ${CMAKE_DL_LIBS})
      set_target_properties(kops_kokkos_imported PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${KOPS_KOKKOS_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES "${_kops_libs}")
    endif()
  endif()
  if(TARGET kops_kokkos_imported)
    set(KOPS_KOKKOS_FOUND TRUE)
    set(KOPS_KOKKOS_TARGET kops_kokkos_imported)
    if(NOT KOPS_KOKKOS_QUIET)
      message(STATUS "kops: Kokkos found without a CMake package: ${KOPS_KOKKOS_INCLUDE_DIR}, ${KOPS_KOKKOS_CORE_LIBRARY}")
    endif()
  endif()
endif()

unset(_kops_t)
unset(_kops_real)
unset(_kops_imp)
unset(_kops_removed)
unset(_kops_core)
unset(_kops_hints)
unset(_kops_prefix_hints)
unset(_kops_d)
unset(_kops_kokkos_fixed)
unset(_kops_kokkos_has_core)
unset(_kops_libs)
unset(_kops_libdir)
unset(_kops_l)
