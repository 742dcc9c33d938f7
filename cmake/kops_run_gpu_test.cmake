# kops_run_gpu_test.cmake -- run a GPU test executable, or skip when there is no GPU.
#
#   cmake -DKOPS_TEST_EXE=<exe> [-DKOPS_TEST_ARGS=<;-list>] -P kops_run_gpu_test.cmake
#
# Prints KOPS_SKIP_NO_GPU (the test's SKIP_REGULAR_EXPRESSION) and exits 0
# when `nvidia-smi -L` lists no GPU; otherwise runs the executable and fails
# when it fails.

if(NOT DEFINED KOPS_TEST_EXE)
  message(FATAL_ERROR "kops_run_gpu_test.cmake: -DKOPS_TEST_EXE=... is required")
endif()

find_program(_kops_nvidia_smi nvidia-smi)
set(_gpus "")
if(_kops_nvidia_smi)
  execute_process(COMMAND "${_kops_nvidia_smi}" -L
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _gpus ERROR_QUIET)
  if(NOT _rc EQUAL 0)
    set(_gpus "")
  endif()
endif()
if(NOT _gpus MATCHES "GPU [0-9]+:")
  message("KOPS_SKIP_NO_GPU: no NVIDIA GPU found (nvidia-smi -L); ${KOPS_TEST_EXE} not run")
  return()
endif()
message("GPUs:\n${_gpus}")

execute_process(COMMAND "${KOPS_TEST_EXE}" ${KOPS_TEST_ARGS} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${KOPS_TEST_EXE} failed (${_rc})")
endif()
