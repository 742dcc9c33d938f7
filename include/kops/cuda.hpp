// The CUDA GPU backend: kops::cuda::eval(red, M, N, out, args...[, opts]) on
// device pointers, kops::cuda::eval_host(...) on host pointers. Include it from
// .cu files compiled by nvcc (C++20, --expt-relaxed-constexpr); the kernels are
// instantiated in the including translation unit. See docs/cuda.md. Built
// against the CMake target kops::cuda_emulated instead, the same source runs its
// kernels on CPU fibers (docs/cuda_emulated.md).
#pragma once

#if !defined(__CUDACC__) && !defined(KOPS_CUDA_EMULATED)
#error "<kops/cuda.hpp> must be compiled by a CUDA compiler (a .cu file built with nvcc), or with kops::cuda_emulated"
#endif

#include <kops/kops.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/eval.hpp>
#include <kops/backends/cuda/fast_math.hpp>
#include <kops/backends/cuda/host.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/backends/cuda/resident_sparsity.hpp>
#include <kops/backends/cuda/solve.hpp>
#include <kops/backends/cuda/tied.hpp>
#include <kops/solve/grad.hpp>
