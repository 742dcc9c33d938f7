// Configuration macros of kops: the only header that defines KOPS_ macros.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KOPS_HD __host__ __device__
#define KOPS_DEVICE_COMPILER 1
#else
#define KOPS_HD
#define KOPS_DEVICE_COMPILER 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KOPS_INLINE inline __attribute__((always_inline))
// A lambda's call operator, always inlined: `[&](int i) KOPS_INLINE_LAMBDA { ... }`
// (the loop bodies the backends' tile walks call: a body the compiler left
// out of line moved the CPU kernels' code, bench/compile/cpu_code.sh).
#define KOPS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define KOPS_INLINE inline
#define KOPS_INLINE_LAMBDA
#endif

// SIMD packs per row block of the CPU backend (backends/kokkos/block_kernel.hpp):
// their evaluations are independent and interleave (docs/backends.md). Every
// translation unit of a program, and every rank of a kops::mpi job, must agree.
#ifndef KOPS_CPU_UNROLL
#define KOPS_CPU_UNROLL 2
#endif

// Sums over at least this many coordinates (sqdist, dot, sqnorm2 of wide
// variables) are evaluated in chunks of the dimension (lowering/chunk.hpp), on
// the CPU and on the GPU backend respectively (docs/concepts.md "Wide
// variables" has the measurements behind 16 and 128). A value past every
// dimension used turns chunking off. Every translation unit of a program must
// agree (the kernels' types depend on them).
#ifndef KOPS_CPU_CHUNK_MIN_DIM
#define KOPS_CPU_CHUNK_MIN_DIM 16
#endif
#ifndef KOPS_GPU_CHUNK_MIN_DIM
#define KOPS_GPU_CHUNK_MIN_DIM 128
#endif
// Reductions whose formula is at least this wide (a sum of k(x, y) b_j with a
// wide b_j) are run as passes of 32 output components (detail/output_chunks.hpp),
// on the CPU and on the GPU backend respectively.
#ifndef KOPS_CPU_OUTPUT_CHUNK_MIN_DIM
#define KOPS_CPU_OUTPUT_CHUNK_MIN_DIM 128
#endif
#ifndef KOPS_GPU_OUTPUT_CHUNK_MIN_DIM
#define KOPS_GPU_OUTPUT_CHUNK_MIN_DIM 64
#endif

// SIMD target of the CPU backend's vector math (backends/kokkos/simd/): KOPS_SIMD_X86
// is 1 on x86 with SSE2 (simd/x86.hpp then includes the intrinsics), KOPS_SIMD_AVX512
// is 1 where AVX-512F is enabled as well (one-register intrinsic paths, simd/avx512.hpp).
// KOPS_KERNEL_BODIES: 1 where the bodies of kops' __global__ functions are
// compiled: nvcc's device pass (__CUDA_ARCH__ defined), the emulated backend,
// and any non-CUDA compiler. nvcc's host pass (cudafe++, then the host
// compiler) sees empty bodies: it replaces every kernel body with a launch stub
// anyway, and without them its EDG front end does not instantiate the device
// code of every kernel a second time (each kernel's signature, and hence which
// kernels exist, is the same in both passes, as CUDA requires).
#if defined(__CUDA_ARCH__) || defined(KOPS_CUDA_EMULATED) || !defined(__CUDACC__)
#define KOPS_KERNEL_BODIES 1
#else
#define KOPS_KERNEL_BODIES 0
#endif

#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
#define KOPS_SIMD_X86 1
#else
#define KOPS_SIMD_X86 0
#endif
#if KOPS_SIMD_X86 && defined(__AVX512F__)
#define KOPS_SIMD_AVX512 1
#else
#define KOPS_SIMD_AVX512 0
#endif

// kops::cuda_emulated (CMake target; it defines KOPS_CUDA_EMULATED): .cu sources
// built as C++ by the host compiler, the CUDA kernels run on CPU fibers
// (include/kops/cuda_emulated/). The emulator cooperates with the sanitizers it
// runs under: fiber switches are announced to ASan and TSan, and its scheduler's
// own bookkeeping is hidden from TSan (KOPS_EMULATED_NO_TSAN), which is then left
// to see only the kernels' accesses and the barriers' happens-before edges.
#if defined(KOPS_CUDA_EMULATED)
#if defined(__SANITIZE_THREAD__)
#define KOPS_EMULATED_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KOPS_EMULATED_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KOPS_EMULATED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KOPS_EMULATED_ASAN 1
#endif
#endif
#if defined(KOPS_EMULATED_TSAN)
#define KOPS_EMULATED_NO_TSAN inline __attribute__((no_sanitize("thread")))
#else
#define KOPS_EMULATED_NO_TSAN inline
#endif
#endif

// Exceptions: kops reports bad input by throwing kops::error, or, in a build
// without exceptions (-fno-exceptions, detected through __cpp_exceptions, or
// KOPS_NO_EXCEPTIONS defined by the user to force it), by calling the handler
// installed with kops::set_error_handler and returning without touching the
// output (core/error.hpp). KOPS_EXCEPTIONS is 1 or 0 accordingly.
#if defined(KOPS_NO_EXCEPTIONS) || !defined(__cpp_exceptions)
#define KOPS_EXCEPTIONS 0
#else
#define KOPS_EXCEPTIONS 1
#endif

#define KOPS_VERSION_MAJOR 0
#define KOPS_VERSION_MINOR 1
#define KOPS_VERSION_PATCH 0
