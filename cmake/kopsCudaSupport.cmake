# kopsCudaSupport.cmake -- CUDA helpers shared by kops' CMakeLists.txt and the
# installed kopsConfig.cmake.

# kops_cuda_require_std20(<target> [BUILD_INTERFACE])
#
# Makes CUDA sources of <target>'s consumers compile as C++20.
# CMake learnt the nvcc flag for cuda_std_20 only in 3.25.2 (Debian bookworm
# ships 3.25.1, where target_compile_features(cuda_std_20) is a configure
# error), so older CMakes get "-std=c++20" on the CUDA language instead.
# The decision depends on the CMake that *uses* the target, hence it is done
# again by kopsConfig.cmake for the imported kops::cuda; in the build tree the
# requirement is wrapped in $<BUILD_INTERFACE:> so that it is not exported.
function(kops_cuda_require_std20 target)
  cmake_parse_arguments(_A "BUILD_INTERFACE" "" "" ${ARGN})
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.25.2)
    set(_prop INTERFACE_COMPILE_FEATURES)
    set(_val "cuda_std_20")
  else()
    set(_prop INTERFACE_COMPILE_OPTIONS)
    set(_val "$<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>")
  endif()
  if(_A_BUILD_INTERFACE)
    set(_val "$<BUILD_INTERFACE:${_val}>")
  endif()
  set_property(TARGET ${target} APPEND PROPERTY ${_prop} "${_val}")
endfunction()
