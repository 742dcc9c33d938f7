// The public headers through nvcc, with the host compiler's warnings as errors
// (tests/CMakeLists.txt: kops_cuda_header_warnings, built where kops has CUDA).
// The CUDA backend's host-and-device functions (KOPS_HD) are compiled in the
// host pass too: nothing there may warn in a user's -Wall -Wextra build, e.g.
// nvcc's `#pragma unroll`, which GCC does not know.
#include <kops/cluster.hpp>
#include <kops/cuda.hpp>
#include <kops/kops.hpp>
