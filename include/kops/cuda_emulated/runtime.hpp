// The CUDA runtime subset of kops::cuda_emulated, on the host: devices (two
// emulated H100s by default), memory, streams, events, memory pools, kernel
// launches and occupancy. docs/cuda_emulated.md lists every function and how it
// differs from the real runtime.
//
// Every call completes before it returns: a stream is an in-order queue, so
// running its work at once is one of the schedules the real runtime may
// choose (stream and event synchronisation then have nothing to wait for).
// Kernel launches are serialised process-wide, which also makes `static`
// (the emulation of a __shared__ array) private to the block that runs.
// Errors follow CUDA: the call returns the code and it becomes the calling
// host thread's last error (cudaGetLastError / cudaPeekAtLastError).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <kops/cuda_emulated/scheduler.hpp>

/// CUDA's error codes (the subset the emulator returns), with CUDA's values.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMemoryPoolsSupported = 115,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 1,
  cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3,
  cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5,
  cudaMemPoolAttrReservedMemHigh = 6,
  cudaMemPoolAttrUsedMemCurrent = 7,
  cudaMemPoolAttrUsedMemHigh = 8,
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08

/// What memory a pointer is in (cudaPointerGetAttributes), with CUDA's values.
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

/// CUDA's cudaPointerAttributes (cudaPointerGetAttributes).
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};

struct CUgraph_st;
struct CUgraphExec_st;
typedef CUgraph_st* cudaGraph_t;
typedef CUgraphExec_st* cudaGraphExec_t;

/// Stream capture (CUDA Graphs), with CUDA's values.
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};

struct CUstream_st {
  int device;
  unsigned flags;
  CUgraph_st* capture = nullptr;  // the graph being captured (cudaStreamBeginCapture), or null
  bool capture_invalid = false;   // a forbidden call during the capture: EndCapture fails
  cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point time;
  bool recorded;
  unsigned flags;
};
struct CUmemPoolHandle_st {
  int device;
  std::uint64_t release_threshold;
  std::uint64_t used, used_high;
};
typedef CUstream_st* cudaStream_t;
typedef CUevent_st* cudaEvent_t;
typedef CUmemPoolHandle_st* cudaMemPool_t;

#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

/// The fields of CUDA's cudaDeviceProp that the emulator fills in.
struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int multiProcessorCount;
  int major;
  int minor;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  std::size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  int memoryPoolsSupported;
  int managedMemory;
  int unifiedAddressing;
};

/// CUDA's cudaFuncAttributes: what the emulator knows of a kernel.
struct cudaFuncAttributes {
  std::size_t sharedSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;     // the virtual architecture the kernel was compiled for, x10: 90 (sm_90)
  int binaryVersion;  // the same for its binary: 90
};

namespace kops::cuda_emulated {

/// The emulated device: what the runtime reports (an H100 SXM, sm_90).
struct device_model {
  static constexpr int sms = 132;
  static constexpr int max_threads_per_block = 1024;
  static constexpr int max_threads_per_sm = 2048;
  static constexpr int max_blocks_per_sm = 32;
  static constexpr int registers_per_sm = 65536;
  static constexpr std::size_t shared_per_block = 48 * 1024;          // without opting in
  static constexpr std::size_t shared_per_block_optin = 227 * 1024;   // cudaFuncSetAttribute's limit
  static constexpr std::size_t shared_per_sm = 228 * 1024;
  static constexpr std::size_t shared_reserved_per_block = 1024;      // the runtime's own share
  static constexpr std::size_t global_memory = std::size_t(80) << 30;
  // Registers are not modelled (the host compiler allocates none): occupancy
  // assumes this many per thread.
  static constexpr int assumed_registers_per_thread = 32;
  static constexpr int clock_khz = 1980000;
};

namespace detail {

// The address a kernel parameter holds when it is an object pointer, else null.
template <class T>
const void* pointer_param(const T& v) {
  if constexpr (std::is_pointer_v<T> && std::is_object_v<std::remove_pointer_t<T>>)
    return const_cast<const void*>(static_cast<const volatile void*>(v));
  else
    return nullptr;
}

// A kernel parameter of type T read from the bytes at p (cudaLaunchKernel's
// args[k]), whatever the type of the object there.
template <class T>
T param_bytes(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>, "kernel parameters are trivially copyable");
  T v;
  std::memcpy(static_cast<void*>(&v), p, sizeof(T));
  return v;
}

// What the emulator knows of a range of memory: an allocation of its own, or
// host memory the caller registered (cudaHostRegister). A kernel may reach
// every one of them (pinned host memory is mapped, as under the real
// runtime's unified addressing); anything else is a fault (kernel_may_reach).
struct allocation {
  std::size_t bytes;
  int device;     // -1: host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister)
  bool managed;
  bool registered = false;  // cudaHostRegister: the caller's memory, not freed here
  int owner = 0;            // the device current at the allocation or registration
};

struct runtime_state {
  std::mutex m;
  std::map<std::uintptr_t, allocation> allocations;
  std::set<cudaStream_t> streams;
  std::set<cudaEvent_t> events;
  std::map<const void*, int> max_dynamic_shared;  // kernel -> cudaFuncAttributeMaxDynamicSharedMemorySize
  // kernel -> its typed launch, for cudaLaunchKernel's const void* form (kernels below)
  std::map<const void*, cudaError_t (*)(const void*, dim3, dim3, void**, std::size_t, cudaStream_t)> kernels;
  std::size_t used[64] = {};
  CUmemPoolHandle_st pools[64] = {};
  std::recursive_mutex launch;  // one kernel at a time, process-wide
  std::set<cudaStream_t> capturing;  // streams between cudaStreamBeginCapture and EndCapture
};

inline runtime_state& state() {
  static runtime_state s;
  return s;
}

// Number of emulated devices: 2, or KOPS_EMULATED_DEVICES (1 .. 64).
inline int device_count() {
  static const int n = [] {
    const char* e = std::getenv("KOPS_EMULATED_DEVICES");
    const long v = e ? std::atol(e) : 2;
    return int(v < 1 ? 1 : v > 64 ? 64 : v);
  }();
  return n;
}

// Each device's memory: 80 GiB, or KOPS_EMULATED_DEVICE_MEMORY bytes (at
// least 1 MiB): what cudaMemGetInfo and the device's properties report, and
// where cudaMalloc and cudaMallocAsync start failing (cudaErrorMemoryAllocation),
// so that code that sizes its work by the device's memory can be tested small.
inline std::size_t device_memory() {
  static const std::size_t bytes = [] {
    const char* e = std::getenv("KOPS_EMULATED_DEVICE_MEMORY");
    const unsigned long long v = e ? std::strtoull(e, nullptr, 10) : 0;
    return v == 0 ? device_model::global_memory : std::size_t(v < (1u << 20) ? (1u << 20) : v);
  }();
  return bytes;
}

inline int& current_device() {
  static thread_local int d = 0;
  return d;
}

inline cudaError_t& last_error() {
  static thread_local cudaError_t e = cudaSuccess;
  return e;
}

// Every API function returns through this: a failure becomes the last error.
inline cudaError_t result(cudaError_t e) {
  if (e != cudaSuccess) last_error() = e;
  return e;
}

inline bool valid_stream(runtime_state& s, cudaStream_t st) {
  return st == nullptr || st == cudaStreamLegacy || st == cudaStreamPerThread || s.streams.count(st) != 0;
}

// A stream usable from the current device: the default streams, or one created on it.
inline cudaError_t check_stream(cudaStream_t st) {
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  if (!valid_stream(s, st)) return cudaErrorInvalidResourceHandle;
  if (st != nullptr && st != cudaStreamLegacy && st != cudaStreamPerThread && st->device != current_device())
    return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}

// The allocation or registered range with the greatest base <= p (that base
// in `base`), or null: the one that holds p, if any does.
inline const allocation* allocation_below(runtime_state& s, const void* p, std::uintptr_t& base) {
  auto it = s.allocations.upper_bound(reinterpret_cast<std::uintptr_t>(p));
  if (it == s.allocations.begin()) return nullptr;
  --it;
  base = it->first;
  return &it->second;
}

// The allocation or registered range holding p, or null.
inline const allocation* find_allocation(runtime_state& s, const void* p) {
  std::uintptr_t base = 0;
  const allocation* a = allocation_below(s, p, base);
  return a != nullptr && reinterpret_cast<std::uintptr_t>(p) - base < a->bytes ? a : nullptr;
}

// Whether a kernel may reach p: inside, or one past the end of, memory the
// emulator knows (device, managed, pinned or registered host memory). Null
// is left to the kernel (it faults only if it dereferences it).
inline bool kernel_may_reach(const void* p) {
  if (p == nullptr) return true;
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  std::uintptr_t base = 0;
  const allocation* a = allocation_below(s, p, base);
  return a != nullptr && reinterpret_cast<std::uintptr_t>(p) - base <= a->bytes;
}

// The device allocation holding [p, p + bytes), or null.
inline const allocation* find_device_range(runtime_state& s, const void* p, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin()) return nullptr;
  --it;
  if (it->second.device < 0) return nullptr;
  if (a - it->first > it->second.bytes || bytes > it->second.bytes - (a - it->first)) return nullptr;
  return &it->second;
}

inline bool inside_device_memory(runtime_state& s, const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin()) return false;
  --it;
  return it->second.device >= 0 && !it->second.managed && a - it->first < it->second.bytes;
}

inline cudaError_t allocate(void** p, std::size_t bytes, int device, bool managed) {
  if (p == nullptr) return result(cudaErrorInvalidValue);
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  runtime_state& s = state();
  {
    std::lock_guard<std::mutex> lock(s.m);
    const std::size_t used = device >= 0 ? s.used[device] : 0;
    if (device >= 0 && bytes > device_memory() - used) return result(cudaErrorMemoryAllocation);
  }
  // 256-byte alignment, as cudaMalloc; exactly `bytes` usable, so that
  // AddressSanitizer reports the first byte past the end.
  void* q = nullptr;
  if (::posix_memalign(&q, 256, bytes) != 0 || q == nullptr) return result(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(s.m);
  s.allocations[reinterpret_cast<std::uintptr_t>(q)] = allocation{bytes, device, managed, false, current_device()};
  if (device >= 0) {
    s.used[device] += bytes;
    CUmemPoolHandle_st& pool = s.pools[device];
    pool.used += bytes;
    if (pool.used > pool.used_high) pool.used_high = pool.used;
  }
  *p = q;
  return cudaSuccess;
}

// Frees an allocation of the wanted kind (device: device or managed memory; host: cudaMallocHost).
inline cudaError_t release(void* p, bool host) {
  if (p == nullptr) return cudaSuccess;
  runtime_state& s = state();
  {
    std::lock_guard<std::mutex> lock(s.m);
    auto it = s.allocations.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == s.allocations.end() || (it->second.device < 0) != host || it->second.registered)
      return result(cudaErrorInvalidValue);
    if (it->second.device >= 0) {
      s.used[it->second.device] -= it->second.bytes;
      s.pools[it->second.device].used -= it->second.bytes;
    }
    s.allocations.erase(it);
  }
  std::free(p);
  return cudaSuccess;
}

// (run false: the checks only, for a copy recorded into a captured graph.)
inline cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, bool run = true) {
  if (bytes == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return result(cudaErrorInvalidValue);
  if (int(kind) < 0 || int(kind) > 4) return result(cudaErrorInvalidMemcpyDirection);
  runtime_state& s = state();
  {
    std::lock_guard<std::mutex> lock(s.m);
    const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    // A device side must lie inside one allocation; a host side outside device memory.
    if (kind != cudaMemcpyDefault) {
      if (dst_device ? find_device_range(s, dst, bytes) == nullptr : inside_device_memory(s, dst))
        return result(cudaErrorInvalidValue);
      if (src_device ? find_device_range(s, src, bytes) == nullptr : inside_device_memory(s, src))
        return result(cudaErrorInvalidValue);
    }
  }
  if (run) std::memmove(dst, src, bytes);
  return cudaSuccess;
}

inline cudaError_t fill(void* dst, int value, std::size_t bytes, bool run = true) {
  if (bytes == 0) return cudaSuccess;
  runtime_state& s = state();
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (find_device_range(s, dst, bytes) == nullptr) return result(cudaErrorInvalidValue);
  }
  if (run) std::memset(dst, value, bytes);
  return cudaSuccess;
}

inline int max_dynamic_shared_of(const void* kernel) {
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  auto it = s.max_dynamic_shared.find(kernel);
  return it == s.max_dynamic_shared.end() ? int(device_model::shared_per_block) : it->second;
}

// The checks a GPU makes of a launch configuration.
inline cudaError_t check_launch(const void* kernel, dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream) {
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      std::uint64_t(block.x) * block.y * block.z > std::uint64_t(device_model::max_threads_per_block))
    return result(cudaErrorInvalidConfiguration);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u)
    return result(cudaErrorInvalidConfiguration);
  if (shared > std::size_t(max_dynamic_shared_of(kernel))) return result(cudaErrorInvalidValue);
  if (const cudaError_t e = check_stream(stream); e != cudaSuccess) return result(e);
  if (running_block() != nullptr) return result(cudaErrorNotSupported);  // no dynamic parallelism
  return cudaSuccess;
}

// The checks of a launch, then its blocks in turn.
inline cudaError_t launch(const void* kernel, dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                          void (*body)(void*), void* arg) {
  if (const cudaError_t e = check_launch(kernel, grid, block, shared, stream); e != cudaSuccess) return e;
  std::lock_guard<std::recursive_mutex> lock(state().launch);
  block_runner& r = block_runner::get();
  r.body = body;
  r.body_arg = arg;
  r.grid_dim = grid;
  r.block_dim = block;
  const unsigned threads = block.x * block.y * block.z;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        r.block_idx = uint3{x, y, z};
        void* mem = std::malloc(shared);
        if (mem == nullptr && shared != 0) fatal("cannot allocate %zu bytes of shared memory", shared);
        if (shared != 0) std::memset(mem, 0xff, shared);
        r.dynamic_shared = mem;
        r.dynamic_shared_bytes = shared;
        r.run_block(threads);
        r.dynamic_shared = nullptr;
        std::free(mem);
      }
  return cudaSuccess;
}

// A captured operation, run at each cudaGraphLaunch on the launch's stream.
using graph_node = std::function<cudaError_t(cudaStream_t)>;

// What a captured cudaMallocAsync allocated: the graph's, and its instances',
// for as long as any of them lives (a graph's memory nodes hold their memory
// between launches, as CUDA's graph memory pools do).
struct graph_memory {
  std::vector<void*> blocks;
  bool owns(const void* p) const { return std::find(blocks.begin(), blocks.end(), p) != blocks.end(); }
  graph_memory() = default;
  graph_memory(const graph_memory&) = delete;
  graph_memory& operator=(const graph_memory&) = delete;
  ~graph_memory() {
    for (void* p : blocks) (void)release(p, false);
  }
};

} // namespace detail
} // namespace kops::cuda_emulated

/// A graph captured from a stream (cudaStreamBeginCapture .. EndCapture): its
/// operations in the order they were queued (one stream: a chain).
struct CUgraph_st {
  std::vector<kops::cuda_emulated::detail::graph_node> nodes;
  std::shared_ptr<kops::cuda_emulated::detail::graph_memory> memory =
      std::make_shared<kops::cuda_emulated::detail::graph_memory>();
};
/// An instantiated graph (cudaGraphInstantiate): a copy of its nodes.
struct CUgraphExec_st {
  std::vector<kops::cuda_emulated::detail::graph_node> nodes;
  std::shared_ptr<kops::cuda_emulated::detail::graph_memory> memory;
};

namespace kops::cuda_emulated::detail {

// The graph that work queued on st joins: its capture, or null (the work runs now).
inline CUgraph_st* capture_of(cudaStream_t st) {
  if (st == nullptr || st == cudaStreamLegacy || st == cudaStreamPerThread) return nullptr;
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  return s.streams.count(st) != 0 ? st->capture : nullptr;
}

// Appends an operation to st's capture.
inline cudaError_t record(cudaStream_t st, graph_node node) {
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  st->capture->nodes.push_back(std::move(node));
  return cudaSuccess;
}

// A call that a capture in global or thread-local mode forbids, because it
// would wait for or allocate behind the captured work (cudaMalloc, cudaFree,
// cudaMemcpy, cudaDeviceSynchronize ...): every such capture is invalidated
// and the call fails with cudaErrorStreamCaptureUnsupported, as CUDA answers.
// cudaSuccess when no such capture is open.
inline cudaError_t unsafe_during_capture() {
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  bool any = false;
  for (cudaStream_t st : s.capturing)
    if (st->capture_mode != cudaStreamCaptureModeRelaxed) {
      st->capture_invalid = true;
      any = true;
    }
  return any ? result(cudaErrorStreamCaptureUnsupported) : cudaSuccess;
}

// A wait on a stream under capture (cudaStreamSynchronize, cudaStreamQuery):
// invalidates it and fails; cudaSuccess when st is not capturing.
inline cudaError_t wait_on_capture(cudaStream_t st) {
  if (capture_of(st) == nullptr) return cudaSuccess;
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  st->capture_invalid = true;
  return result(cudaErrorStreamCaptureUnsupported);
}

} // namespace kops::cuda_emulated::detail

// ------------------------------------------------------------------ devices --

inline cudaError_t cudaGetDeviceCount(int* n) {
  if (n == nullptr) return kops::cuda_emulated::detail::result(cudaErrorInvalidValue);
  *n = kops::cuda_emulated::detail::device_count();
  return cudaSuccess;
}

inline cudaError_t cudaGetDevice(int* d) {
  if (d == nullptr) return kops::cuda_emulated::detail::result(cudaErrorInvalidValue);
  *d = kops::cuda_emulated::detail::current_device();
  return cudaSuccess;
}

inline cudaError_t cudaSetDevice(int d) {
  namespace e = kops::cuda_emulated::detail;
  if (d < 0 || d >= e::device_count()) return e::result(cudaErrorInvalidDevice);
  e::current_device() = d;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  namespace e = kops::cuda_emulated::detail;
  using m = kops::cuda_emulated::device_model;
  if (value == nullptr) return e::result(cudaErrorInvalidValue);
  if (device < 0 || device >= e::device_count()) return e::result(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = m::max_threads_per_block; break;
    case cudaDevAttrMaxBlockDimX: *value = 1024; break;
    case cudaDevAttrMaxBlockDimY: *value = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *value = 64; break;
    case cudaDevAttrMaxGridDimX: *value = 2147483647; break;
    case cudaDevAttrMaxGridDimY: *value = 65535; break;
    case cudaDevAttrMaxGridDimZ: *value = 65535; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(m::shared_per_block); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = m::registers_per_sm; break;
    case cudaDevAttrClockRate: *value = m::clock_khz; break;
    case cudaDevAttrMultiProcessorCount: *value = m::sms; break;
    case cudaDevAttrMemoryClockRate: *value = 2619000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = 5120; break;
    case cudaDevAttrL2CacheSize: *value = 50 * 1024 * 1024; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = m::max_threads_per_sm; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(m::shared_per_sm); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = m::registers_per_sm; break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrPageableMemoryAccess: *value = 0; break;  // no HMM: a kernel faults on pageable memory
    case cudaDevAttrConcurrentManagedAccess: *value = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(m::shared_per_block_optin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = m::max_blocks_per_sm; break;
    case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
    default: return e::result(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  namespace e = kops::cuda_emulated::detail;
  using m = kops::cuda_emulated::device_model;
  if (p == nullptr) return e::result(cudaErrorInvalidValue);
  if (device < 0 || device >= e::device_count()) return e::result(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "kops::cuda_emulated H100 (CPU fibers), device %d", device);
  p->totalGlobalMem = kops::cuda_emulated::detail::device_memory();
  p->sharedMemPerBlock = m::shared_per_block;
  p->regsPerBlock = m::registers_per_sm;
  p->warpSize = 32;
  p->maxThreadsPerBlock = m::max_threads_per_block;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->clockRate = m::clock_khz;
  p->multiProcessorCount = m::sms;
  p->major = 9;
  p->minor = 0;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = m::max_threads_per_sm;
  p->sharedMemPerMultiprocessor = m::shared_per_sm;
  p->regsPerMultiprocessor = m::registers_per_sm;
  p->sharedMemPerBlockOptin = m::shared_per_block_optin;
  p->maxBlocksPerMultiProcessor = m::max_blocks_per_sm;
  p->memoryPoolsSupported = 1;
  p->managedMemory = 1;
  p->unifiedAddressing = 1;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize() { return kops::cuda_emulated::detail::unsafe_during_capture(); }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }

inline cudaError_t cudaDriverGetVersion(int* v) {
  if (v == nullptr) return kops::cuda_emulated::detail::result(cudaErrorInvalidValue);
  *v = 13000;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }

// ------------------------------------------------------------------- errors --

inline cudaError_t cudaGetLastError() {
  const cudaError_t e = kops::cuda_emulated::detail::last_error();
  kops::cuda_emulated::detail::last_error() = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return kops::cuda_emulated::detail::last_error(); }

inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define KOPS_EMULATED_ERROR_NAME(x) \
  case x: return #x;
    KOPS_EMULATED_ERROR_NAME(cudaSuccess)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidValue)
    KOPS_EMULATED_ERROR_NAME(cudaErrorMemoryAllocation)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInitializationError)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidConfiguration)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidDevicePointer)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidMemcpyDirection)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidDeviceFunction)
    KOPS_EMULATED_ERROR_NAME(cudaErrorNoDevice)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidDevice)
    KOPS_EMULATED_ERROR_NAME(cudaErrorInvalidResourceHandle)
    KOPS_EMULATED_ERROR_NAME(cudaErrorNotReady)
    KOPS_EMULATED_ERROR_NAME(cudaErrorIllegalAddress)
    KOPS_EMULATED_ERROR_NAME(cudaErrorLaunchOutOfResources)
    KOPS_EMULATED_ERROR_NAME(cudaErrorHostMemoryAlreadyRegistered)
    KOPS_EMULATED_ERROR_NAME(cudaErrorHostMemoryNotRegistered)
    KOPS_EMULATED_ERROR_NAME(cudaErrorLaunchFailure)
    KOPS_EMULATED_ERROR_NAME(cudaErrorNotSupported)
    KOPS_EMULATED_ERROR_NAME(cudaErrorIllegalState)
    KOPS_EMULATED_ERROR_NAME(cudaErrorStreamCaptureUnsupported)
    KOPS_EMULATED_ERROR_NAME(cudaErrorStreamCaptureInvalidated)
    KOPS_EMULATED_ERROR_NAME(cudaErrorStreamCaptureWrongThread)
    KOPS_EMULATED_ERROR_NAME(cudaErrorUnknown)
#undef KOPS_EMULATED_ERROR_NAME
  }
  return "cudaErrorUnknown";
}

inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorHostMemoryAlreadyRegistered: return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered memory region";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorIllegalState: return "the resource is in an invalid state";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureWrongThread:
      return "attempt to terminate a thread-local capture sequence from another thread";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}

// ------------------------------------------------------------------- memory --

inline cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::allocate(p, bytes, kops::cuda_emulated::detail::current_device(), false);
}
template <class T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
inline cudaError_t cudaMallocManaged(void** p, std::size_t bytes, unsigned = cudaMemAttachGlobal) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::allocate(p, bytes, kops::cuda_emulated::detail::current_device(), true);
}
template <class T>
cudaError_t cudaMallocManaged(T** p, std::size_t bytes, unsigned flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(p), bytes, flags);
}
inline cudaError_t cudaMallocHost(void** p, std::size_t bytes) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::allocate(p, bytes, -1, false);
}
template <class T>
cudaError_t cudaMallocHost(T** p, std::size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(p), bytes);
}
inline cudaError_t cudaHostAlloc(void** p, std::size_t bytes, unsigned) { return cudaMallocHost(p, bytes); }
// cudaHostRegister(p, bytes, flags): the caller's host memory [p, p + bytes)
// becomes reachable by kernels (mapped, at the same address, as under unified
// addressing); cudaHostUnregister(p) undoes it. A range that overlaps one
// already known: cudaErrorHostMemoryAlreadyRegistered.
inline cudaError_t cudaHostRegister(void* p, std::size_t bytes, unsigned flags) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  if (p == nullptr || bytes == 0 || (flags & ~0x0fu) != 0) return e::result(cudaErrorInvalidValue);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto next = s.allocations.lower_bound(a);  // the first range from p on
  if (e::find_allocation(s, p) != nullptr || (next != s.allocations.end() && next->first - a < bytes))
    return e::result(cudaErrorHostMemoryAlreadyRegistered);
  s.allocations[a] = e::allocation{bytes, -1, false, true, e::current_device()};
  return cudaSuccess;
}
inline cudaError_t cudaHostUnregister(void* p) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  auto it = s.allocations.find(reinterpret_cast<std::uintptr_t>(p));
  if (p == nullptr || it == s.allocations.end() || !it->second.registered)
    return e::result(cudaErrorHostMemoryNotRegistered);
  s.allocations.erase(it);
  return cudaSuccess;
}

/// cudaPointerGetAttributes(attr, p), from the emulator's table of memory:
/// device memory (device, devicePointer), managed (both pointers), pinned or
/// registered host memory (cudaMemoryTypeHost, both pointers: mapped), and
/// anything else cudaMemoryTypeUnregistered (device -2, hostPointer p, no
/// devicePointer: what a kernel cannot reach).
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* p) {
  namespace e = kops::cuda_emulated::detail;
  if (attr == nullptr) return e::result(cudaErrorInvalidValue);
  void* q = const_cast<void*>(p);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  const e::allocation* a = e::find_allocation(s, p);
  if (a == nullptr) {
    *attr = cudaPointerAttributes{cudaMemoryTypeUnregistered, -2, nullptr, q, {}};
  } else if (a->device < 0) {
    *attr = cudaPointerAttributes{cudaMemoryTypeHost, a->owner, q, q, {}};
  } else {
    *attr = cudaPointerAttributes{a->managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice, a->device, q,
                                  a->managed ? q : nullptr, {}};
  }
  return cudaSuccess;
}

inline cudaError_t cudaFree(void* p) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::release(p, false);
}
inline cudaError_t cudaFreeHost(void* p) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::release(p, true);
}

inline cudaError_t cudaMallocAsync(void** p, std::size_t bytes, cudaStream_t stream) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t s = e::check_stream(stream); s != cudaSuccess) return e::result(s);
  CUgraph_st* g = e::capture_of(stream);
  const cudaError_t r = e::allocate(p, bytes, e::current_device(), false);
  // Under capture: the graph's memory for its lifetime (allocated once, here).
  if (g != nullptr && r == cudaSuccess && *p != nullptr) {
    std::lock_guard<std::mutex> lock(e::state().m);
    g->memory->blocks.push_back(*p);
  }
  return r;
}
template <class T>
cudaError_t cudaMallocAsync(T** p, std::size_t bytes, cudaStream_t stream) {
  return cudaMallocAsync(reinterpret_cast<void**>(p), bytes, stream);
}
inline cudaError_t cudaFreeAsync(void* p, cudaStream_t stream) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t s = e::check_stream(stream); s != cudaSuccess) return e::result(s);
  if (CUgraph_st* g = e::capture_of(stream)) {
    {
      std::lock_guard<std::mutex> lock(e::state().m);
      if (g->memory->owns(p)) return cudaSuccess;  // the graph's own: freed with it
    }
    return e::record(stream, [p](cudaStream_t) { return e::release(p, false); });
  }
  return e::release(p, false);
}

inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::copy(dst, src, bytes, kind);
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t stream = nullptr) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t s = e::check_stream(stream); s != cudaSuccess) return e::result(s);
  if (e::capture_of(stream) != nullptr) {
    if (const cudaError_t c = e::copy(dst, src, bytes, kind, false); c != cudaSuccess) return c;
    return e::record(stream, [=](cudaStream_t) { return e::copy(dst, src, bytes, kind); });
  }
  return e::copy(dst, src, bytes, kind);
}
inline cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  if (const cudaError_t c = kops::cuda_emulated::detail::unsafe_during_capture(); c != cudaSuccess) return c;
  return kops::cuda_emulated::detail::fill(dst, value, bytes);
}
inline cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream = nullptr) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t s = e::check_stream(stream); s != cudaSuccess) return e::result(s);
  if (e::capture_of(stream) != nullptr) {
    if (const cudaError_t c = e::fill(dst, value, bytes, false); c != cudaSuccess) return c;
    return e::record(stream, [=](cudaStream_t) { return e::fill(dst, value, bytes); });
  }
  return e::fill(dst, value, bytes);
}

inline cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  namespace e = kops::cuda_emulated::detail;
  if (free_bytes == nullptr || total == nullptr) return e::result(cudaErrorInvalidValue);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  *total = e::device_memory();
  *free_bytes = *total - s.used[e::current_device()];
  return cudaSuccess;
}

// --------------------------------------------------------------- mem pools --

inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  namespace e = kops::cuda_emulated::detail;
  if (pool == nullptr) return e::result(cudaErrorInvalidValue);
  if (device < 0 || device >= e::device_count()) return e::result(cudaErrorInvalidDevice);
  *pool = &e::state().pools[device];
  (*pool)->device = device;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  return cudaDeviceGetDefaultMemPool(pool, device);
}

inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  namespace e = kops::cuda_emulated::detail;
  if (pool == nullptr || value == nullptr) return e::result(cudaErrorInvalidValue);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: pool->release_threshold = *static_cast<std::uint64_t*>(value); break;
    case cudaMemPoolAttrUsedMemHigh:
    case cudaMemPoolAttrReservedMemHigh: pool->used_high = pool->used; break;  // only reset to 0 is allowed
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: break;
    default: return e::result(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  namespace e = kops::cuda_emulated::detail;
  if (pool == nullptr || value == nullptr) return e::result(cudaErrorInvalidValue);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: *static_cast<std::uint64_t*>(value) = pool->release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent: *static_cast<std::uint64_t*>(value) = pool->used; break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: *static_cast<std::uint64_t*>(value) = pool->used_high; break;
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: *static_cast<int*>(value) = 1; break;
    default: return e::result(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// ------------------------------------------------------------------ streams --

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* st, unsigned flags) {
  namespace e = kops::cuda_emulated::detail;
  if (st == nullptr) return e::result(cudaErrorInvalidValue);
  *st = new CUstream_st{e::current_device(), flags};
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  s.streams.insert(*st);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t* st) { return cudaStreamCreateWithFlags(st, cudaStreamDefault); }
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* st, unsigned flags, int) {
  return cudaStreamCreateWithFlags(st, flags);
}

inline cudaError_t cudaStreamDestroy(cudaStream_t st) {
  namespace e = kops::cuda_emulated::detail;
  auto& s = e::state();
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (st == nullptr || s.streams.erase(st) == 0) return e::result(cudaErrorInvalidResourceHandle);
    s.capturing.erase(st);
  }
  delete st->capture;
  delete st;
  return cudaSuccess;
}

// Every operation completed when it was queued: there is nothing to wait for.
inline cudaError_t cudaStreamSynchronize(cudaStream_t st) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t c = e::wait_on_capture(st); c != cudaSuccess) return c;
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  return e::valid_stream(s, st) ? cudaSuccess : e::result(cudaErrorInvalidResourceHandle);
}
inline cudaError_t cudaStreamQuery(cudaStream_t st) { return cudaStreamSynchronize(st); }

// ------------------------------------------------------------------- events --

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* ev, unsigned flags) {
  namespace e = kops::cuda_emulated::detail;
  if (ev == nullptr) return e::result(cudaErrorInvalidValue);
  *ev = new CUevent_st{{}, false, flags};
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  s.events.insert(*ev);
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t* ev) { return cudaEventCreateWithFlags(ev, cudaEventDefault); }

inline cudaError_t cudaEventDestroy(cudaEvent_t ev) {
  namespace e = kops::cuda_emulated::detail;
  auto& s = e::state();
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (s.events.erase(ev) == 0) return e::result(cudaErrorInvalidResourceHandle);
  }
  delete ev;
  return cudaSuccess;
}

inline cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t st = nullptr) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t r = e::check_stream(st); r != cudaSuccess) return e::result(r);
  if (e::capture_of(st) != nullptr) {
    {
      std::lock_guard<std::mutex> lock(e::state().m);
      if (e::state().events.count(ev) == 0) return e::result(cudaErrorInvalidResourceHandle);
    }
    return e::record(st, [ev](cudaStream_t stream) { return cudaEventRecord(ev, stream); });
  }
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  if (s.events.count(ev) == 0) return e::result(cudaErrorInvalidResourceHandle);
  ev->time = std::chrono::steady_clock::now();
  ev->recorded = true;
  return cudaSuccess;
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
  namespace e = kops::cuda_emulated::detail;
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  return s.events.count(ev) ? cudaSuccess : e::result(cudaErrorInvalidResourceHandle);
}
inline cudaError_t cudaEventQuery(cudaEvent_t ev) { return cudaEventSynchronize(ev); }

inline cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned = 0) {
  namespace e = kops::cuda_emulated::detail;
  if (const cudaError_t r = e::check_stream(st); r != cudaSuccess) return e::result(r);
  if (e::capture_of(st) != nullptr) {  // one stream per capture: its work is in order already
    std::lock_guard<std::mutex> lock(e::state().m);
    return e::state().events.count(ev) != 0 ? cudaSuccess : e::result(cudaErrorInvalidResourceHandle);
  }
  return cudaEventSynchronize(ev);
}

inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  namespace e = kops::cuda_emulated::detail;
  if (ms == nullptr) return e::result(cudaErrorInvalidValue);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  if (s.events.count(start) == 0 || s.events.count(end) == 0) return e::result(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return e::result(cudaErrorInvalidResourceHandle);
  if ((start->flags | end->flags) & cudaEventDisableTiming) return e::result(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return cudaSuccess;
}

// ------------------------------------------------------------------- graphs --
//
// Stream capture: between cudaStreamBeginCapture and cudaStreamEndCapture, the
// work queued on the stream (kernels, async copies and sets, stream-ordered
// allocations and frees, event records) is recorded into a graph instead of
// run; cudaGraphInstantiate and cudaGraphLaunch then run it, as often as
// wanted, on any stream. What CUDA forbids during a capture fails as CUDA
// fails it, and invalidates the capture (EndCapture then answers
// cudaErrorStreamCaptureInvalidated): a wait on the capturing stream
// (cudaStreamSynchronize, cudaStreamQuery), and in global or thread-local mode
// the calls that would wait for or allocate behind the captured work anywhere
// (cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaFree, cudaFreeHost,
// cudaHostRegister / Unregister, cudaMemcpy, cudaMemset, cudaDeviceSynchronize).
// Memory a captured cudaMallocAsync returns is allocated once, at capture,
// and belongs to the graph (and its instances) until they are destroyed.
// One stream per capture: cross-stream capture through events is not modelled.

inline cudaError_t cudaStreamBeginCapture(cudaStream_t st, cudaStreamCaptureMode mode) {
  namespace e = kops::cuda_emulated::detail;
  if (st == nullptr || st == cudaStreamLegacy || st == cudaStreamPerThread)
    return e::result(cudaErrorStreamCaptureUnsupported);  // the legacy stream cannot be captured
  if (const cudaError_t r = e::check_stream(st); r != cudaSuccess) return e::result(r);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  if (st->capture != nullptr) return e::result(cudaErrorIllegalState);
  st->capture = new CUgraph_st{};
  st->capture_invalid = false;
  st->capture_mode = mode;
  s.capturing.insert(st);
  return cudaSuccess;
}

inline cudaError_t cudaStreamEndCapture(cudaStream_t st, cudaGraph_t* graph) {
  namespace e = kops::cuda_emulated::detail;
  if (graph == nullptr) return e::result(cudaErrorInvalidValue);
  *graph = nullptr;
  auto& s = e::state();
  CUgraph_st* g = nullptr;
  bool invalid = false;
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (!e::valid_stream(s, st) || st == nullptr || st == cudaStreamLegacy || st == cudaStreamPerThread ||
        st->capture == nullptr)
      return e::result(cudaErrorIllegalState);
    g = st->capture;
    invalid = st->capture_invalid;
    st->capture = nullptr;
    st->capture_invalid = false;
    s.capturing.erase(st);
  }
  if (invalid) {
    delete g;
    return e::result(cudaErrorStreamCaptureInvalidated);
  }
  *graph = g;
  return cudaSuccess;
}

inline cudaError_t cudaStreamIsCapturing(cudaStream_t st, cudaStreamCaptureStatus* status) {
  namespace e = kops::cuda_emulated::detail;
  if (status == nullptr) return e::result(cudaErrorInvalidValue);
  if (const cudaError_t r = e::check_stream(st); r != cudaSuccess) return e::result(r);
  *status = cudaStreamCaptureStatusNone;
  if (e::capture_of(st) != nullptr) {
    std::lock_guard<std::mutex> lock(e::state().m);
    *status = st->capture_invalid ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  }
  return cudaSuccess;
}

inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long = 0) {
  namespace e = kops::cuda_emulated::detail;
  if (exec == nullptr || graph == nullptr) return e::result(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(e::state().m);
  *exec = new CUgraphExec_st{graph->nodes, graph->memory};
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                 unsigned long long flags = 0) {
  return cudaGraphInstantiate(exec, graph, flags);
}

// Runs the graph's operations in their order, on `st`; the first failure ends
// the launch and is returned (the real runtime reports a failed kernel at the
// next synchronisation; here the launch returns it).
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t st) {
  namespace e = kops::cuda_emulated::detail;
  if (exec == nullptr) return e::result(cudaErrorInvalidValue);
  if (const cudaError_t r = e::check_stream(st); r != cudaSuccess) return e::result(r);
  if (e::capture_of(st) != nullptr)  // a graph launched into a capture: its operations, recorded
    return e::record(st, [nodes = exec->nodes, memory = exec->memory](cudaStream_t s) mutable {
      for (auto& node : nodes)
        if (const cudaError_t r = node(s); r != cudaSuccess) return r;
      return cudaSuccess;
    });
  for (auto& node : exec->nodes)
    if (const cudaError_t r = node(st); r != cudaSuccess) return e::result(r);
  return cudaSuccess;
}

inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}

// The number of operations a graph holds (cudaGraphGetNodes with a null node
// array): what a test counts to see that a call was captured, not run.
inline cudaError_t cudaGraphGetNodes(cudaGraph_t graph, void* nodes, std::size_t* count) {
  namespace e = kops::cuda_emulated::detail;
  if (graph == nullptr || count == nullptr || nodes != nullptr) return e::result(cudaErrorInvalidValue);
  *count = graph->nodes.size();
  return cudaSuccess;
}

// ------------------------------------------------------------------ kernels --

// A kernel is a plain function here, and an address (cudaLaunchKernel's const
// void* form, the real runtime's own signature) does not say its parameter types.
// So the emulator keeps a registry, address -> the typed launch of that kernel,
// filled whenever a typed call sees the kernel (the typed cudaLaunchKernel,
// cudaFuncSetAttribute, cudaFuncGetAttributes, the occupancy query) and by
// KOPS_EMULATED_KERNEL(k) / register_kernel(k), for a kernel that is only ever
// launched by address. An address the registry does not hold is
// cudaErrorInvalidDeviceFunction, as the real runtime answers a pointer that is
// no kernel.

template <class... P>
cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args, std::size_t shared = 0,
                             cudaStream_t stream = nullptr);

namespace kops::cuda_emulated {
namespace detail {

using untyped_launch = cudaError_t (*)(const void*, dim3, dim3, void**, std::size_t, cudaStream_t);

// The typed launch of the kernel at address k, of type void(P...).
template <class... P>
cudaError_t launch_as(const void* k, dim3 grid, dim3 block, void** args, std::size_t shared, cudaStream_t stream) {
  return ::cudaLaunchKernel(reinterpret_cast<void (*)(P...)>(const_cast<void*>(k)), grid, block, args, shared,
                            stream);
}

template <class... P>
void note_kernel(void (*kernel)(P...)) {
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  s.kernels.emplace(reinterpret_cast<const void*>(kernel), &launch_as<P...>);
}

inline untyped_launch find_kernel(const void* kernel) {
  runtime_state& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  auto it = s.kernels.find(kernel);
  return it == s.kernels.end() ? nullptr : it->second;
}

} // namespace detail

/// register_kernel(k): makes the kernel k launchable by its address,
/// cudaLaunchKernel((const void*)k, ...), before any typed call has seen it
/// (KOPS_EMULATED_KERNEL(k) does it at static initialisation). Returns true.
template <class... P>
bool register_kernel(void (*kernel)(P...)) {
  if (kernel != nullptr) detail::note_kernel(kernel);
  return true;
}

} // namespace kops::cuda_emulated

#define KOPS_EMULATED_CAT_(a, b) a##b
#define KOPS_EMULATED_CAT(a, b) KOPS_EMULATED_CAT_(a, b)
/// KOPS_EMULATED_KERNEL(kernel); at namespace scope, after the kernel's
/// definition: registers it at static initialisation, so that
/// cudaLaunchKernel((const void*)kernel, ...) finds it even when no typed call
/// has seen it (a template instance is written whole: KOPS_EMULATED_KERNEL(k<float, 4>)).
/// Emulator only: guard it with #ifdef KOPS_CUDA_EMULATED in a .cu that nvcc builds too.
#define KOPS_EMULATED_KERNEL(...)                                                       \
  [[maybe_unused]] static const bool KOPS_EMULATED_CAT(kops_emulated_kernel_, __COUNTER__) = \
      ::kops::cuda_emulated::register_kernel(__VA_ARGS__)

/// cudaLaunchKernel(kernel, grid, block, args, shared, stream): args[k] points at
/// the k-th parameter, as for the real runtime; the parameters are copied at the
/// launch (each thread then receives its own copy, as kernel parameters are).
/// The kernel is registered for the const void* form below.
template <class... P>
cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args, std::size_t shared,
                             cudaStream_t stream) {
  namespace e = kops::cuda_emulated::detail;
  if (kernel == nullptr) return e::result(cudaErrorInvalidDeviceFunction);
  e::note_kernel(kernel);
  if (sizeof...(P) > 0 && args == nullptr) return e::result(cudaErrorInvalidValue);
  using params_t = std::tuple<std::remove_cvref_t<P>...>;
  struct call {
    void (*kernel)(P...);
    params_t params;
    static void run(void* self) {
      auto* c = static_cast<call*>(self);
      std::apply(c->kernel, c->params);
    }
  };
  // Each parameter's bytes, copied as the real runtime copies them (by the
  // kernel's parameter sizes): the caller may hold a pointer parameter in an
  // object of another pointer type (kops' untyped launch path holds void*).
  call c{kernel, [&]<std::size_t... I>(std::index_sequence<I...>) {
           return params_t{e::param_bytes<std::remove_cvref_t<P>>(args[I])...};
         }(std::index_sequence_for<P...>{})};
  // A pointer parameter into memory no kernel may reach (pageable host
  // memory, say): the fault a GPU would raise, cudaErrorIllegalAddress, and
  // the kernel does not run.
  const bool reachable =
      std::apply([](const auto&... v) { return (e::kernel_may_reach(e::pointer_param(v)) && ...); }, c.params);
  if (!reachable) return e::result(cudaErrorIllegalAddress);
  const void* address = reinterpret_cast<const void*>(kernel);
  if (e::capture_of(stream) != nullptr) {  // checked now, run at each cudaGraphLaunch
    if (const cudaError_t r = e::check_launch(address, grid, block, shared, stream); r != cudaSuccess) return r;
    return e::record(stream, [c, address, grid, block, shared](cudaStream_t s) mutable {
      return e::launch(address, grid, block, shared, s, &call::run, &c);
    });
  }
  return e::launch(address, grid, block, shared, stream, &call::run, &c);
}

/// cudaLaunchKernel((const void*)kernel, grid, block, args, shared, stream): the
/// real runtime's signature. The kernel at that address runs exactly as through
/// the typed form (the same parameter copies, checks and errors), once the
/// emulator knows its type: a typed call has seen it, or it was registered
/// (KOPS_EMULATED_KERNEL, above). Any other address, null included:
/// cudaErrorInvalidDeviceFunction.
inline cudaError_t cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args, std::size_t shared = 0,
                                    cudaStream_t stream = nullptr) {
  namespace e = kops::cuda_emulated::detail;
  const e::untyped_launch typed = kernel == nullptr ? nullptr : e::find_kernel(kernel);
  if (typed == nullptr) return e::result(cudaErrorInvalidDeviceFunction);
  return typed(kernel, grid, block, args, shared, stream);
}

template <class... P>
cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attr, int value) {
  namespace e = kops::cuda_emulated::detail;
  if (kernel == nullptr) return e::result(cudaErrorInvalidDeviceFunction);
  e::note_kernel(kernel);
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) return cudaSuccess;
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
      std::size_t(value) > kops::cuda_emulated::device_model::shared_per_block_optin)
    return e::result(cudaErrorInvalidValue);
  auto& s = e::state();
  std::lock_guard<std::mutex> lock(s.m);
  s.max_dynamic_shared[reinterpret_cast<const void*>(kernel)] = value;
  return cudaSuccess;
}

template <class... P>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, void (*kernel)(P...)) {
  namespace e = kops::cuda_emulated::detail;
  if (a == nullptr) return e::result(cudaErrorInvalidValue);
  if (kernel == nullptr) return e::result(cudaErrorInvalidDeviceFunction);
  e::note_kernel(kernel);
  *a = cudaFuncAttributes{0,
                          e::max_dynamic_shared_of(reinterpret_cast<const void*>(kernel)),
                          kops::cuda_emulated::device_model::max_threads_per_block,
                          kops::cuda_emulated::device_model::assumed_registers_per_thread,
                          90,
                          90};
  return cudaSuccess;
}

/// Resident blocks per SM of an H100 for `block` threads and `shared` bytes of
/// dynamic shared memory: the thread, block-count and shared-memory limits,
/// and registers at device_model::assumed_registers_per_thread (not modelled).
template <class... P>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void (*kernel)(P...), int block,
                                                          std::size_t shared) {
  namespace e = kops::cuda_emulated::detail;
  using m = kops::cuda_emulated::device_model;
  if (n == nullptr || block <= 0) return e::result(cudaErrorInvalidValue);
  if (kernel == nullptr) return e::result(cudaErrorInvalidDeviceFunction);
  e::note_kernel(kernel);
  if (block > m::max_threads_per_block ||
      shared > std::size_t(e::max_dynamic_shared_of(reinterpret_cast<const void*>(kernel)))) {
    *n = 0;
    return cudaSuccess;
  }
  const int warps = (block + 31) / 32;
  int blocks = m::max_blocks_per_sm;
  blocks = std::min(blocks, m::max_threads_per_sm / (warps * 32));
  blocks = std::min(blocks, m::registers_per_sm / (warps * 32 * m::assumed_registers_per_thread));
  blocks = std::min(blocks, int(m::shared_per_sm / (shared + m::shared_reserved_per_block)));
  *n = blocks;
  return cudaSuccess;
}
