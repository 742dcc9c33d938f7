// kops::cuda::eval and kops::cuda::solve take device pointers: each array
// they read or write is asked of CUDA (cudaPointerGetAttributes, one query per
// pointer) before any work, and a pointer into memory a kernel cannot reach --
// plain (pageable) host memory, cudaMemoryTypeUnregistered -- is a kops::error
// that names the array and points to eval_host / solve_host, instead of a
// kernel (a GPU's cudaErrorIllegalAddress at the next synchronisation, which
// also ruins the context). Device, managed and pinned or registered host
// memory pass. A device that reads pageable memory itself (HMM or ATS:
// cudaDevAttrPageableMemoryAccess, cached with the device's facts) skips the
// queries. The cost per call is measured by bench/bench_pointer_check.cu
// (docs/cuda.md).
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/detail/arguments.hpp>

namespace kops::cuda::detail {

// Whether a kernel on the current device can reach p: false only for memory
// CUDA calls unregistered (a failing query, as old runtimes answer such
// memory, counts as unregistered, its error cleared).
inline bool device_reachable(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type != cudaMemoryTypeUnregistered;
}

// True when the output (`out_name`: "output", or a solve's "solution") and
// every argument the call reads (non-empty) are reachable by the device; else
// reported (kops::error, or the handler: its advice names `host_entry`, the
// call that takes host arrays) and false.
[[nodiscard, gnu::noinline]] inline bool check_device_pointers_impl(const char* where,
                                                                    const kops::detail::call_info& c,
                                                                    std::int64_t M, std::int64_t N, const void* out,
                                                                    const void* const* args, const char* out_name,
                                                                    const char* host_entry) {
  constexpr const char* expected =
      "expected device memory (cudaMalloc, cudaMallocAsync, cudaMallocManaged, or host memory from cudaMallocHost "
      "or cudaHostRegister), given host memory that CUDA does not know (cudaMemoryTypeUnregistered); for arrays in "
      "host memory,";
  const std::int64_t rows = c.row_cat == category::i ? M : N;
  if (rows > 0 && !device_reachable(out))
    return kops::detail::reject(nullptr, "%s: the %s pointer is not memory the GPU can reach, %s %s copies them to "
                                "the device", where, out_name, expected, host_entry);
  for (int k = 0; k < c.nslots; ++k) {
    const kops::detail::slot_info& s = c.slots[k];
    const std::int64_t n = s.cat == category::i ? M : s.cat == category::j ? N : 1;
    if (s.used && n > 0 && !device_reachable(args[s.index]))
      return kops::detail::reject(nullptr,
                                  "%s: argument %d (%s<%d,%d>) is not memory the GPU can reach, %s %s copies them "
                                  "to the device",
                                  where, int(s.index), kops::detail::variable_prefix(s.cat), int(s.index),
                                  int(s.dim), expected, host_entry);
  }
  return true;
}

// check_device_pointers_impl for a call of Red on the current device;
// nothing to ask when that device reads pageable memory.
template <class Red, class T, class Out>
[[nodiscard]] bool check_device_pointers(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                                         const T* const* args, const char* out_name = "output",
                                         const char* host_entry = "kops::cuda::eval_host") {
  device_facts facts;
  if (!current_facts(where, facts)) return false;
  if (facts.pageable_memory) return true;
  const void* untyped[Red::signature::size + 1] = {};
  for (int k = 0; k < Red::signature::size; ++k) untyped[k] = args[k];
  return check_device_pointers_impl(where, kops::detail::call_info_of<Red>::value, M, N, out, untyped, out_name,
                                    host_entry);
}

} // namespace kops::cuda::detail
