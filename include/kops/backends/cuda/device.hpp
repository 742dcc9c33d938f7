// Device-side plumbing of a call: selecting (and restoring) the device,
// per-device facts queried once and cached, and stream-ordered buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <cuda_runtime_api.h>

#include <kops/backends/cuda/error.hpp>

namespace kops::cuda::detail {

// Makes `device` (>= 0) current for the scope and restores the caller's
// device at exit; device < 0 leaves the current device alone. A failure
// throws kops::cuda_error; without exceptions it is reported and ok() is
// false: the caller returns at once, `if (!guard.ok()) return false;`.
class device_guard {
public:
  device_guard(int device, const char* where) {
    if (device < 0) return;
    ok_ = check(cudaGetDevice(&previous_), where, "querying the current device");
    if (ok_ && previous_ != device) {
      if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
        ok_ = report_cuda_error(e, where, "selecting device %d", device);
        return;
      }
      restore_ = true;
    }
  }
  // Restoring cannot report from a destructor; it only fails if the device
  // that was current before the call has become unusable.
  ~device_guard() {
    if (restore_) forget_quiet_failure(cudaSetDevice(previous_));
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  // False when selecting the device failed (reported; only without exceptions).
  [[nodiscard]] bool ok() const { return ok_; }

private:
  int previous_ = -1;
  bool restore_ = false;
  bool ok_ = true;
};

// The current device into `d`; false when CUDA fails (reported, as by check).
[[nodiscard]] inline bool current_device(const char* where, int& d) {
  d = 0;
  return check(cudaGetDevice(&d), where, "querying the current device");
}

// The release threshold kops gives the default memory pool of a device whose
// threshold is still CUDA's default, 0. At 0 the pool hands every freed block
// back to the system at the next synchronisation, so each call's
// cudaMallocAsync maps memory again (GPU_2D's scratch, eval_host's buffers);
// up to this many bytes of freed blocks now stay in the pool for the next
// call. 64 MiB holds a GPU_2D scratch of about 4 waves of resident blocks x
// 192 rows of accumulators (~1e6 on an H100: 4 MB for a float sum of dim 1,
// 24 MB for a double sum of dim 3) and is a small share of any GPU's memory.
inline constexpr std::uint64_t pool_release_threshold = std::uint64_t(64) << 20;

// Raises the release threshold of `device`'s default pool to
// pool_release_threshold if it is 0; a threshold the user has set (non-zero)
// is theirs and is kept, as is any other pool they made current. This only
// saves time: a CUDA call failing here is cleared, never thrown.
inline void keep_pool_memory(int device) noexcept {
  cudaMemPool_t pool = nullptr;
  if (const cudaError_t e = cudaDeviceGetDefaultMemPool(&pool, device); e != cudaSuccess) {
    forget_quiet_failure(e);
    return;
  }
  std::uint64_t threshold = 0;
  if (const cudaError_t e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
      e != cudaSuccess || threshold != 0) {
    forget_quiet_failure(e);
    return;
  }
  threshold = pool_release_threshold;
  forget_quiet_failure(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

struct device_facts {
  int sms = 0;                  // cudaDevAttrMultiProcessorCount
  bool memory_pools = false;    // cudaMallocAsync / cudaFreeAsync supported
  bool pageable_memory = false; // cudaDevAttrPageableMemoryAccess: kernels read malloc'd host memory (HMM, ATS)
};

// Per-device caches: one atomic word per device id below this bound (0 = not
// yet known; a race only repeats an idempotent query). Devices beyond it are
// queried at every call. Lock-free with the compiler's __atomic builtins rather
// than <atomic>/<mutex>/<map>, each of which costs nvcc more compile time than
// the rest of the backend's headers.
inline constexpr int cached_devices = 64;

// The facts of `device`, queried at its first use and cached for the process.
// The first use also sets up the device's default pool (keep_pool_memory):
// once per device and process, before kops' first stream-ordered allocation
// there (every allocating path asks for the facts first). Into `f`; false when
// a query fails (reported, as by check).
[[nodiscard]] inline bool facts_of(int device, const char* where, device_facts& f) {
  static int cache[cached_devices];  // (sms << 2 | pageable << 1 | pools) + 1
  const bool cached = device >= 0 && device < cached_devices;
  if (cached) {
    if (const int w = __atomic_load_n(&cache[device], __ATOMIC_RELAXED); w != 0) {
      f = {(w - 1) >> 2, ((w - 1) & 1) != 0, ((w - 1) & 2) != 0};
      return true;
    }
  }
  f = device_facts{};
  if (!check(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device), where,
             "querying the number of multiprocessors"))
    return false;
  int pools = 0;
  if (!check(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device), where,
             "querying memory-pool support"))
    return false;
  f.memory_pools = pools != 0;
  int pageable = 0;
  if (!check(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device), where,
             "querying access to pageable host memory"))
    return false;
  f.pageable_memory = pageable != 0;
  if (f.memory_pools) keep_pool_memory(device);
  if (cached)
    __atomic_store_n(&cache[device], ((f.sms << 2) | (int(f.pageable_memory) << 1) | int(f.memory_pools)) + 1,
                     __ATOMIC_RELAXED);
  return true;
}

// Whether work queued on `stream` is being captured into a CUDA graph
// (cudaStreamIsCapturing): into `capturing`; false after a reported failure.
[[nodiscard]] inline bool stream_capturing(cudaStream_t stream, const char* where, bool& capturing) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (!check(cudaStreamIsCapturing(stream, &status), where, "asking whether the stream is being captured"))
    return false;
  capturing = status != cudaStreamCaptureStatusNone;
  return true;
}

// The calls that cannot be captured into a CUDA graph (docs/cuda.md, "CUDA
// graphs"): true when `stream` is not capturing; else a kops::error saying
// why (`why`: what the call must do that a capture forbids) and what to do
// instead (`instead`), raised before the call queues anything, so that the
// capture stays valid.
[[nodiscard]] inline bool refuse_capture(cudaStream_t stream, const char* where, const char* why,
                                         const char* instead = "make this call outside the capture") {
  bool capturing = false;
  if (!stream_capturing(stream, where, capturing)) return false;
  if (!capturing) return true;
  return kops::detail::fail("%s: %s, which a stream under capture (a CUDA graph) cannot do: %s (docs/cuda.md, "
                            "\"CUDA graphs\")",
                            where, why, instead);
}

// Why a block-sparse call given a plain kops::block_sparsity cannot be
// captured (refuse_capture), and what can.
inline constexpr const char* ranged_capture_refusal =
    "a block-sparse call copies a task list it builds on the host for each call";
inline constexpr const char* ranged_capture_instead =
    "make the structure a kops::cuda::resident_sparsity before the capture and pass its sparsity()";

// The facts of the current device (current_device, then facts_of).
[[nodiscard]] inline bool current_facts(const char* where, device_facts& f) {
  int d = 0;
  return current_device(where, d) && facts_of(d, where, f);
}

// A per-device cache of resident blocks per SM (cached_devices entries, 0 =
// not yet known): the cached value into `n` (true), or false when the query
// must run; then remember(cache, device, n).
inline bool cached_blocks_per_sm(const int* cache, int device, int& n) {
  n = device >= 0 && device < cached_devices ? __atomic_load_n(&cache[device], __ATOMIC_RELAXED) : 0;
  return n != 0;
}
// The query's answer (at least 1) into `n` and the cache; false (reported, as
// by check) when the query failed.
inline bool remember_blocks_per_sm(int* cache, int device, cudaError_t query, const char* where, int& n) {
  if (!check(query, where, "querying the occupancy of the GPU_2D kernel")) return false;
  if (n < 1) n = 1;
  if (device >= 0 && device < cached_devices) __atomic_store_n(&cache[device], n, __ATOMIC_RELAXED);
  return true;
}

// Resident blocks per SM of `kernel` (block threads, `shared` bytes of dynamic
// shared memory) on `device`, from the occupancy calculator; cached per Tag
// (the kernel's traits: two kernels may share a function type) and device.
// Into `n`; false when the query fails (reported, as by check).
template <class Tag, class Kernel>
[[nodiscard]] bool blocks_per_sm(Kernel* kernel, int device, int block, std::size_t shared, const char* where,
                                 int& n) {
  static int cache[cached_devices];
  if (cached_blocks_per_sm(cache, device, n)) return true;
  return remember_blocks_per_sm(cache, device, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block, shared),
                                where, n);
}

// Device allocations kops has made (stream_buffer and scratch_arena) in this
// process: tests read it to check that a solve allocates once, not once per
// iteration. Relaxed: a count, not a synchronisation.
inline unsigned long long& allocation_count() {
  static unsigned long long n = 0;
  return n;
}

// Allocates `bytes` (> 0) on the current device for work queued on `stream`:
// cudaMallocAsync, or cudaMalloc on a device without memory pools.
inline cudaError_t allocate_on(void** p, std::size_t bytes, cudaStream_t stream, bool pools) {
  __atomic_fetch_add(&allocation_count(), 1ull, __ATOMIC_RELAXED);
  return pools ? cudaMallocAsync(p, bytes, stream) : cudaMalloc(p, bytes);
}

// Frees `p` from allocate_on after the work queued on `stream`: cudaFreeAsync,
// or, without memory pools, cudaStreamSynchronize then cudaFree. Returns the
// first failure; *step (if given) names the step that failed.
inline cudaError_t free_on(void* p, cudaStream_t stream, bool pools, const char** step = nullptr) {
  if (pools) {
    if (step) *step = "freeing";
    return cudaFreeAsync(p, stream);
  }
  const cudaError_t s = cudaStreamSynchronize(stream);
  const cudaError_t f = cudaFree(p);
  if (step) *step = s != cudaSuccess ? "synchronising the stream before freeing" : "freeing";
  return s != cudaSuccess ? s : f;
}

// Scratch reuse across the launches of one synchronous call (a solve: one
// product with K per iteration, each GPU_2D product with its own scratch).
// While an arena is installed on this host thread, a stream_buffer queued on
// the arena's stream borrows one of its blocks instead of allocating, and gives
// it back instead of freeing: one allocation per call, not one per iteration.
// Reuse needs no synchronisation: the block's next user is queued on the same
// stream, after the work of the one before. A block too small for a request is
// freed (stream-ordered) and replaced; with every block lent, a buffer
// allocates as usual. The arena is installed inside the call's device_guard,
// so every buffer it serves is on one device.
class scratch_arena {
public:
  scratch_arena(cudaStream_t stream, bool pools) : stream_(stream), pools_(pools), outer_(active()) {
    active() = this;
  }
  // Frees what release() did not (error paths); cannot report.
  ~scratch_arena() {
    active() = outer_;
    for (block& b : blocks_)
      if (b.p != nullptr) forget_quiet_failure(free_on(std::exchange(b.p, nullptr), stream_, pools_));
  }
  scratch_arena(const scratch_arena&) = delete;
  scratch_arena& operator=(const scratch_arena&) = delete;

  // Uninstalls the arena and frees its blocks; on failure throws (without
  // exceptions: reports, frees the other blocks quietly, returns false).
  [[nodiscard]] bool release(const char* where) {
    active() = outer_;
    bool ok = true;
    for (block& b : blocks_) {
      void* p = std::exchange(b.p, nullptr);
      const char* step = nullptr;
      if (p == nullptr) continue;
      if (!ok) forget_quiet_failure(free_on(p, stream_, pools_));
      else if (const cudaError_t e = free_on(p, stream_, pools_, &step); e != cudaSuccess)
        ok = report_cuda_error(e, where, "%s the scratch of the call", step);
    }
    return ok;
  }

  // The arena of this host thread, or null.
  static scratch_arena*& active() {
    static thread_local scratch_arena* a = nullptr;
    return a;
  }
  cudaStream_t stream() const { return stream_; }

  // A block of at least `bytes` (> 0) lent to the caller until give_back, in
  // `p`, or null in `p` when every block is lent. Throws (naming `what`) if it
  // must allocate and cannot; without exceptions reports and returns false.
  [[nodiscard]] bool lend(std::size_t bytes, const char* where, const char* what, int index, void*& p) {
    p = nullptr;
    block* fit = nullptr;    // the smallest free block that holds `bytes`
    block* spare = nullptr;  // else a free block to replace: the smallest
    for (block& b : blocks_) {
      if (b.lent) continue;
      if (b.bytes >= bytes && (fit == nullptr || b.bytes < fit->bytes)) fit = &b;
      if (spare == nullptr || b.bytes < spare->bytes) spare = &b;
    }
    if (fit == nullptr) {
      if (spare == nullptr) return true;
      if (void* old = std::exchange(spare->p, nullptr); old != nullptr) {
        spare->bytes = 0;
        const char* step = nullptr;
        if (const cudaError_t e = free_on(old, stream_, pools_, &step); e != cudaSuccess)
          return report_cuda_error(e, where, "%s a scratch block too small for %s", step, what);
      }
      if (const cudaError_t e = allocate_on(&spare->p, bytes, stream_, pools_); e != cudaSuccess) {
        spare->p = nullptr;
        if (index < 0) return report_cuda_error(e, where, "allocating %zu bytes for %s", bytes, what);
        return report_cuda_error(e, where, "allocating %zu bytes for %s %d", bytes, what, index);
      }
      spare->bytes = bytes;
      fit = spare;
    }
    fit->lent = true;
    p = fit->p;
    return true;
  }
  void give_back(void* p) noexcept {
    for (block& b : blocks_)
      if (b.p == p) b.lent = false;
  }

private:
  // Two are in use at once at most (a two-pass gradient's temporary and a
  // GPU_2D scratch); the others spare a reallocation when sizes alternate.
  static constexpr int max_blocks = 4;
  struct block {
    void* p = nullptr;
    std::size_t bytes = 0;
    bool lent = false;
  };
  block blocks_[max_blocks];
  cudaStream_t stream_;
  bool pools_;
  scratch_arena* outer_;
};

// Makes `a` (null: none) the scratch arena of this host thread for the scope
// and restores the one before at exit (a captured solve's own arena, active
// only while its graph is recorded: solve.hpp).
class arena_scope {
public:
  explicit arena_scope(scratch_arena* a) : saved_(std::exchange(scratch_arena::active(), a)) {}
  ~arena_scope() { scratch_arena::active() = saved_; }
  arena_scope(const arena_scope&) = delete;
  arena_scope& operator=(const arena_scope&) = delete;

private:
  scratch_arena* saved_;
};

// A device buffer whose lifetime follows `stream`: allocated with
// cudaMallocAsync and freed with cudaFreeAsync on the stream, so it is freed
// after the work queued before the free, without blocking the host. Devices
// without memory pools get cudaMalloc, and the free synchronises the stream
// first (cudaStreamSynchronize + cudaFree). Under a scratch_arena of the same
// stream the memory is borrowed from the arena and given back to it.
// release() frees and reports failure; the destructor frees what was not
// released (error paths) and cannot report. A failed allocation throws; without
// exceptions it is reported and ok() is false (the caller returns at once).
class stream_buffer {
public:
  stream_buffer() = default;
  // `what` names the buffer in error messages; with index >= 0 it is followed
  // by the index ("argument", 2: "argument 2").
  stream_buffer(std::size_t bytes, cudaStream_t stream, bool pools, const char* where, const char* what,
                int index = -1)
      : stream_(stream), pools_(pools) {
    if (bytes == 0) return;
    if (scratch_arena* a = scratch_arena::active(); a != nullptr && a->stream() == stream) {
      if (!a->lend(bytes, where, what, index, p_)) {
        ok_ = false;
        return;
      }
      if (p_ != nullptr) {
        arena_ = a;
        return;
      }
    }
    if (const cudaError_t e = allocate_on(&p_, bytes, stream_, pools_); e != cudaSuccess) {
      p_ = nullptr;
      if (index < 0) ok_ = report_cuda_error(e, where, "allocating %zu bytes for %s", bytes, what);
      else ok_ = report_cuda_error(e, where, "allocating %zu bytes for %s %d", bytes, what, index);
    }
  }
  stream_buffer(stream_buffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), stream_(o.stream_), pools_(o.pools_), arena_(o.arena_), ok_(o.ok_) {}
  stream_buffer& operator=(stream_buffer&& o) noexcept {
    if (this != &o) {
      free_quietly();
      p_ = std::exchange(o.p_, nullptr);
      stream_ = o.stream_;
      pools_ = o.pools_;
      arena_ = o.arena_;
      ok_ = o.ok_;
    }
    return *this;
  }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  ~stream_buffer() { free_quietly(); }

  template <class T = void> T* get() const { return static_cast<T*>(p_); }
  // False when the allocation failed (reported; only without exceptions).
  [[nodiscard]] bool ok() const { return ok_; }

  // Frees the buffer; false when that fails (thrown, or reported without exceptions).
  [[nodiscard]] bool release(const char* where, const char* what) {
    void* p = std::exchange(p_, nullptr);
    if (p == nullptr) return true;
    if (arena_ != nullptr) {
      arena_->give_back(p);
      return true;
    }
    const char* step = nullptr;
    if (const cudaError_t e = free_on(p, stream_, pools_, &step); e != cudaSuccess)
      return report_cuda_error(e, where, "%s %s", step, what);
    return true;
  }

private:
  void free_quietly() noexcept {
    void* p = std::exchange(p_, nullptr);
    if (p == nullptr) return;
    if (arena_ != nullptr) arena_->give_back(p);
    else forget_quiet_failure(free_on(p, stream_, pools_));
  }

  void* p_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool pools_ = false;
  scratch_arena* arena_ = nullptr;  // lent by this arena, or null: allocated here
  bool ok_ = true;                  // false: the allocation failed (without exceptions)
};

} // namespace kops::cuda::detail
