// Device-side plumbing of a call: selecting (and restoring) the device,
// per-device facts queried once and cached, and stream-ordered buffers.
#pragma once

#include <cstddef>
#include <utility>
#include <cuda_runtime_api.h>

#include <kops/backends/cuda/error.hpp>

namespace kops::cuda::detail {

// Makes `device` (>= 0) current for the scope and restores the caller's
// device at exit; device < 0 leaves the current device alone.
class device_guard {
public:
  device_guard(int device, const char* where) {
    if (device < 0) return;
    check(cudaGetDevice(&previous_), where, "querying the current device");
    if (previous_ != device) {
      if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
        throw_cuda_error(e, where, "selecting device %d", device);
      restore_ = true;
    }
  }
  // Restoring cannot throw from a destructor; it only fails if the device
  // that was current before the call has become unusable.
  ~device_guard() {
    if (restore_) (void)cudaSetDevice(previous_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

private:
  int previous_ = -1;
  bool restore_ = false;
};

inline int current_device(const char* where) {
  int d = 0;
  check(cudaGetDevice(&d), where, "querying the current device");
  return d;
}

struct device_facts {
  int sms = 0;                  // cudaDevAttrMultiProcessorCount
  bool memory_pools = false;    // cudaMallocAsync / cudaFreeAsync supported
};

// Per-device caches: one atomic word per device id below this bound (0 = not
// yet known; a race only repeats an idempotent query). Devices beyond it are
// queried at every call. Lock-free with the compiler's __atomic builtins rather
// than <atomic>/<mutex>/<map>, each of which costs nvcc more compile time than
// the rest of the backend's headers.
inline constexpr int cached_devices = 64;

// The facts of `device`, queried at its first use and cached for the process.
inline device_facts facts_of(int device, const char* where) {
  static int cache[cached_devices];  // (sms << 1 | pools) + 1
  const bool cached = device >= 0 && device < cached_devices;
  if (cached) {
    if (const int w = __atomic_load_n(&cache[device], __ATOMIC_RELAXED); w != 0)
      return {(w - 1) >> 1, ((w - 1) & 1) != 0};
  }
  device_facts f;
  check(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device), where,
        "querying the number of multiprocessors");
  int pools = 0;
  check(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device), where,
        "querying memory-pool support");
  f.memory_pools = pools != 0;
  if (cached) __atomic_store_n(&cache[device], ((f.sms << 1) | int(f.memory_pools)) + 1, __ATOMIC_RELAXED);
  return f;
}

// Resident blocks per SM of `kernel` (block threads, `shared` bytes of dynamic
// shared memory) on `device`, from the occupancy calculator; cached per Tag
// (the kernel's traits: two kernels may share a function type) and device.
template <class Tag, class Kernel>
int blocks_per_sm(Kernel* kernel, int device, int block, std::size_t shared, const char* where) {
  static int cache[cached_devices];  // 0 = not yet known
  const bool cached = device >= 0 && device < cached_devices;
  if (cached) {
    if (const int n = __atomic_load_n(&cache[device], __ATOMIC_RELAXED); n != 0) return n;
  }
  int n = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block, shared), where,
        "querying the occupancy of the GPU_2D kernel");
  if (n < 1) n = 1;
  if (cached) __atomic_store_n(&cache[device], n, __ATOMIC_RELAXED);
  return n;
}

// A device buffer whose lifetime follows `stream`: allocated with
// cudaMallocAsync and freed with cudaFreeAsync on the stream, so it is freed
// after the work queued before the free, without blocking the host. Devices
// without memory pools get cudaMalloc, and the free synchronises the stream
// first (cudaStreamSynchronize + cudaFree).
// release() frees and reports failure; the destructor frees what was not
// released (exception paths) and cannot report.
class stream_buffer {
public:
  stream_buffer() = default;
  // `what` names the buffer in error messages; with index >= 0 it is followed
  // by the index ("argument", 2: "argument 2").
  stream_buffer(std::size_t bytes, cudaStream_t stream, bool pools, const char* where, const char* what,
                int index = -1)
      : stream_(stream), pools_(pools) {
    if (bytes == 0) return;
    const cudaError_t e = pools_ ? cudaMallocAsync(&p_, bytes, stream_) : cudaMalloc(&p_, bytes);
    if (e != cudaSuccess) {
      if (index < 0) throw_cuda_error(e, where, "allocating %zu bytes for %s", bytes, what);
      throw_cuda_error(e, where, "allocating %zu bytes for %s %d", bytes, what, index);
    }
  }
  stream_buffer(stream_buffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), stream_(o.stream_), pools_(o.pools_) {}
  stream_buffer& operator=(stream_buffer&& o) noexcept {
    if (this != &o) {
      free_quietly();
      p_ = std::exchange(o.p_, nullptr);
      stream_ = o.stream_;
      pools_ = o.pools_;
    }
    return *this;
  }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  ~stream_buffer() { free_quietly(); }

  template <class T = void> T* get() const { return static_cast<T*>(p_); }

  void release(const char* where, const char* what) {
    void* p = std::exchange(p_, nullptr);
    if (p == nullptr) return;
    if (pools_) {
      if (const cudaError_t e = cudaFreeAsync(p, stream_); e != cudaSuccess)
        throw_cuda_error(e, where, "freeing %s", what);
    } else {
      const cudaError_t s = cudaStreamSynchronize(stream_);
      const cudaError_t f = cudaFree(p);
      if (s != cudaSuccess) throw_cuda_error(s, where, "synchronising the stream before freeing %s", what);
      if (f != cudaSuccess) throw_cuda_error(f, where, "freeing %s", what);
    }
  }

private:
  void free_quietly() noexcept {
    void* p = std::exchange(p_, nullptr);
    if (p == nullptr) return;
    if (pools_) {
      (void)cudaFreeAsync(p, stream_);
    } else {
      (void)cudaStreamSynchronize(stream_);
      (void)cudaFree(p);
    }
  }

  void* p_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool pools_ = false;
};

} // namespace kops::cuda::detail
