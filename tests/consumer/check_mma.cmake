# cmake -DPTX=<tensor_cores.ptx> -P check_mma.cmake: fails unless the PTX holds
# a reduce kernel of the tensor-core traits (kops::cuda::detail::tc_traits,
# what eval's default tensor_cores::automatic takes for a wide Gaussian sum on
# sm_80+) whose body issues mma.sync (HMMA in the SASS ptxas makes of it).
if(NOT PTX OR NOT EXISTS "${PTX}")
  message(FATAL_ERROR "check_mma.cmake: no PTX file '${PTX}'")
endif()
file(READ "${PTX}" _ptx)
set(_kernel ".entry _ZN4kops4cuda6detail13reduce_kernelINS1_9tc_traits")
string(FIND "${_ptx}" "${_kernel}" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "check_mma.cmake: ${PTX} has no tensor-core reduce kernel (reduce_kernel<tc_traits<...>>): "
                      "the default policy did not take the tensor cores")
endif()
string(SUBSTRING "${_ptx}" ${_at} -1 _rest)
string(LENGTH "${_kernel}" _skip)
string(SUBSTRING "${_rest}" ${_skip} -1 _after)
string(FIND "${_after}" ".entry " _next)  # the next kernel, if any
if(_next GREATER -1)
  string(SUBSTRING "${_after}" 0 ${_next} _after)
endif()
string(FIND "${_after}" "mma.sync.aligned.m16n8k8" _mma)
if(_mma EQUAL -1)
  message(FATAL_ERROR "check_mma.cmake: the tensor-core reduce kernel of ${PTX} has no mma.sync.aligned.m16n8k8")
endif()
string(REGEX MATCHALL "mma\\.sync\\.aligned\\.m16n8k8" _all "${_after}")
list(LENGTH _all _n)
message(STATUS "check_mma.cmake: the tensor-core reduce kernel issues ${_n} mma.sync.aligned.m16n8k8 (TF32)")
