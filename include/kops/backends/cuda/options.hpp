// The public settings of a CUDA backend call: kops::cuda::options (the stream,
// the device, the scheme, GPU_2D's chunk, eval_host's devices and device
// memory budget), passed as a trailing argument of
// kops::cuda::eval and eval_host, and kops::cuda::scheme with its to_string.
// Plain data, no CUDA call: launch.hpp reads the scheme and chunk when it
// plans a launch, device.hpp's device_guard the device.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <cuda_runtime_api.h>

/// The CUDA GPU backend: eval and solve on device pointers, eval_host and
/// solve_host on host pointers, and their options.
namespace kops::cuda {

/// How a kops::cuda::eval call lays its work out on the GPU: see options::scheme.
enum class scheme {
  automatic,  ///< GPU_2D when the output rows cannot fill the device, else GPU_1D
  gpu_1d,     ///< one thread per output row, the whole reduced axis per block
  gpu_2d,     ///< (row block, reduced-axis chunk) blocks + a combining second pass
};

/// kops::cuda::device_list: the GPUs a kops::cuda::eval_host call splits its
/// work across (options::devices), e.g. `opts.devices = {0, 1};`. Plain data:
/// up to `capacity` device ordinals, no allocation.
struct device_list {
  static constexpr int capacity = 16;
  int ids[capacity] = {};
  int count = 0;      ///< devices listed (0: none, the call runs on options::device)
  int requested = 0;  ///< how many were given (more than capacity is a kops::error at the call)
  constexpr device_list() = default;
  constexpr device_list(std::initializer_list<int> devices) : requested(int(devices.size())) {
    for (int d : devices)
      if (count < capacity) ids[count++] = d;
  }
};

/// kops::cuda::options: how a kops::cuda::eval call runs (the trailing,
/// optional argument of eval and eval_host).
struct options {
  /// stream: the CUDA stream every kernel, allocation and copy of the call
  /// is queued on (nullptr: the default stream)
  cudaStream_t stream = nullptr;
  /// scheme: automatic (default), gpu_1d or gpu_2d; see launch.hpp for the rule
  kops::cuda::scheme scheme = scheme::automatic;
  /// device: >= 0: run on that device and restore the caller's current
  /// device before returning; -1: the current device
  int device = -1;
  /// gpu_2d_chunk: GPU_2D only: reduced-axis indices per block; 0 lets kops
  /// choose (a multiple of the tile length); > 0 is used as given
  /// (tests use it to put many chunk boundaries in small problems)
  std::int64_t gpu_2d_chunk = 0;
  /// devices: kops::cuda::eval_host and solve_host only: two or more split
  /// the work across these GPUs, each on a stream and a host thread of its
  /// own (`device` and `stream` are then not used by eval_host; solve_host
  /// runs CG on the first and splits each product as eval_host does).
  /// eval_host splits the output rows when there are at least 256 per
  /// device, else the reduced axis, the devices' partial accumulators
  /// combined in device order (docs/cuda.md, "Several GPUs"); empty
  /// (default) or one: the call runs on `device`
  device_list devices{};
  /// max_device_bytes: kops::cuda::eval_host only: the device memory (bytes,
  /// per device) the call may use; data larger than this are streamed
  /// through it in pieces (docs/cuda.md, "Larger than the device"). 0
  /// (default): what cudaMemGetInfo reports free, less a margin of 1/16 of
  /// the device's memory
  std::int64_t max_device_bytes = 0;
  /// graph_iterations: kops::cuda::solve and solve_host only: k > 0 records
  /// k conjugate-gradient iterations once into a CUDA graph on `stream` (a
  /// stream of the caller's, not the default one) and replays it, reading
  /// the iteration's state back once per replay instead of twice per
  /// iteration (docs/solve.md, "Captured iterations"); 0 (default): eager
  std::int64_t graph_iterations = 0;
};

/// The name of a scheme: "automatic", "gpu_1d" or "gpu_2d".
inline const char* to_string(scheme s) {
  switch (s) {
    case scheme::automatic: return "automatic";
    case scheme::gpu_1d: return "gpu_1d";
    case scheme::gpu_2d: return "gpu_2d";
  }
  return "?";
}

} // namespace kops::cuda
