// kops::cuda::resident_sparsity: a block-sparsity structure (core/block_sparsity.hpp)
// checked once on the host and kept on a device, so that the block-sparse
// forms of kops::cuda::eval and eval_host can be captured in a CUDA graph.
//
// A block-sparse GPU call needs the structure twice: on the host (its checks,
// and the task list that cuts the row blocks into GPU blocks: ranges.hpp) and
// on the device (the tasks and intervals the kernels read). A plain
// kops::block_sparsity in device memory is copied to the host at every call
// (a synchronisation), and the tasks are copied back from a host array that
// dies with the call: neither can be captured. A resident_sparsity holds
//
//   the host copy of the structure, and of its transpose (the passes whose
//   rows are of the other axis: a two-pass gradient's first pass), and
//   the same arrays on its device (sparsity(): the kops::block_sparsity to
//   pass to eval, whose pointers identify it), and
//   a cache of the task lists its calls have used, on the device: one per
//   (structure or transpose, kernel block size, output rows, split chunk),
//   filled by the first call that needs it (a blocking copy).
//
// A call given sparsity() finds the object in a process-wide table
// (find_resident), checks the host copy against its sizes (host work, no
// device read) and launches on the cached tasks: no synchronisation, no copy
// of host memory that the call does not own, only stream-ordered scratch. A
// captured call whose task list is not cached yet is refused (a kops::error
// naming the fix: the same call once before the capture), since filling the
// cache allocates and copies. The object must outlive every call, and every
// graph, that uses it. Not copyable; its cache takes a lock of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/detail/sparsity.hpp>

namespace kops::cuda {
class resident_sparsity;
}

namespace kops::cuda::detail {

struct ranged_task {
  std::int64_t row0, row_end;  // rows [row0, row_end)
  std::int64_t t0, t1;         // intervals reduced[t0 .. t1)
};

// A ranged call's arrays on the device (ranges.hpp): its tasks, and for a
// split call its pieces; `reduced`: the intervals the tasks (unsplit) or the
// pieces (split) index.
struct ranged_device {
  const ranged_task* tasks = nullptr;
  std::int64_t ntasks = 0;
  const ranged_task* pieces = nullptr;
  std::int64_t npieces = 0;
  const range* reduced = nullptr;
  bool split = false;  // pieces, then their combine (ranges.hpp's file comment)
};

// Where a ranged call's arrays sit in the one block of bytes that goes to the
// device (tasks, then pieces, then a split call's own intervals), and how many.
struct ranged_layout {
  std::int64_t ntasks = 0, npieces = 0;
  std::size_t pieces_at = 0, reduced_at = 0, bytes = 0;
  bool own_intervals = false;  // the intervals are in the block; else `shared` ones
  bool split = false;
  // The arrays once the block is at `base` on the device; `shared`: the
  // structure's intervals on the device (an unsplit call).
  ranged_device on(const void* base, const range* shared) const {
    const auto* b = static_cast<const unsigned char*>(base);
    ranged_device d;
    d.tasks = reinterpret_cast<const ranged_task*>(b);
    d.ntasks = ntasks;
    d.pieces = npieces > 0 ? reinterpret_cast<const ranged_task*>(b + pieces_at) : nullptr;
    d.npieces = npieces;
    d.reduced = own_intervals ? reinterpret_cast<const range*>(b + reduced_at) : shared;
    d.split = split;
    return d;
  }
};

// What a cached task list was made for: the host view it cuts (a resident
// structure or its transpose), the kernel's block, the output rows, and the
// split chunk (0: unsplit).
struct ranged_key {
  const void* view = nullptr;
  int block = 0;
  std::int64_t rows = 0, chunk = 0;
  friend constexpr bool operator==(const ranged_key&, const ranged_key&) = default;
};

// The process-wide table of live resident_sparsity objects (find_resident):
// slots taken and freed with the compiler's __atomic builtins.
inline constexpr int resident_slots = 64;
inline const kops::cuda::resident_sparsity** resident_table() {
  static const kops::cuda::resident_sparsity* slots[resident_slots] = {};
  return slots;
}

} // namespace kops::cuda::detail

namespace kops::cuda {

/// kops::cuda::resident_sparsity: a kops::block_sparsity checked once and kept
/// on a device, for block-sparse calls that a CUDA graph can capture.
///
/// ```text
///   kops::cuda::resident_sparsity rs(s);              // s: arrays in host memory; the current device
///   kops::cuda::resident_sparsity rs(s, device);      // on that device
///   kops::cuda::eval(red, M, N, out, args..., rs.sparsity(), opts);       // capturable
///   kops::cuda::eval_host(red, M, N, out, args..., rs.sparsity(), opts);  // likewise
/// ```
///
/// The constructor copies the structure (and its transpose) to the host copy
/// it owns and to device memory (blocking: make it before the capture); a
/// structure that no sizes can make valid (unsorted blocks, decreasing
/// slices, a null array) throws kops::error there. Each call still checks
/// the structure against its own M and N, on the host copy. The first call
/// of each (reduction's block size, output rows, split) uploads its task list
/// once (a blocking copy): make that call once outside the capture. The
/// object must outlive the calls and graphs that use it (docs/cuda.md, "CUDA
/// graphs"; docs/block_sparsity.md).
class resident_sparsity {
public:
  /// s: a structure in host memory (copied; the caller's arrays may go);
  /// device: where its device copy lives (-1: the current device).
  explicit resident_sparsity(const block_sparsity& s, int device = -1) {
    constexpr const char* where = "kops::cuda::resident_sparsity";
    detail::device_guard guard(device, where);
    if (!guard.ok() || !detail::current_device(where, device_)) return;
    // Valid for some sizes: every row and term index below 2^62.
    constexpr std::int64_t any = std::int64_t(1) << 62;
    if (!kops::detail::check_sparsity(where, s, any, any, "of the call")) return;
    copy_of(s, own_);
    other_ = kops::detail::transpose_sparsity(own_.view());
    std::size_t bytes = 0;
    for (const kops::detail::sparsity_copy* c : {&own_, &other_})
      bytes += std::size_t(c->row_blocks) * (sizeof(range) + sizeof(std::int64_t)) +
               std::size_t(kops::detail::sparsity_intervals(c->view())) * sizeof(range);
    if (bytes > 0 && !detail::check(cudaMalloc(&device_memory_, bytes), where, "allocating the structure's device copy"))
      return;
    auto* at = static_cast<unsigned char*>(device_memory_);
    if (!upload(own_, at, device_own_) || !upload(other_, at, device_other_)) return;
    const kops::cuda::resident_sparsity** table = detail::resident_table();
    for (int k = 0; k < detail::resident_slots && !registered_; ++k) {
      const resident_sparsity* empty = nullptr;
      registered_ = __atomic_compare_exchange_n(&table[k], &empty, this, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    }
    if (!registered_)
      (void)kops::detail::fail("%s: %d resident structures are alive already, the most kops tracks", where,
                               detail::resident_slots);
  }
  ~resident_sparsity() {
    const kops::cuda::resident_sparsity** table = detail::resident_table();
    for (int k = 0; k < detail::resident_slots && registered_; ++k) {
      const resident_sparsity* self = this;
      if (__atomic_compare_exchange_n(&table[k], &self, nullptr, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) break;
    }
    detail::device_guard guard(device_, "kops::cuda::resident_sparsity");
    for (entry& e : cache_)
      if (e.memory != nullptr) detail::forget_quiet_failure(cudaFree(e.memory));
    if (device_memory_ != nullptr) detail::forget_quiet_failure(cudaFree(device_memory_));
  }
  resident_sparsity(const resident_sparsity&) = delete;
  resident_sparsity& operator=(const resident_sparsity&) = delete;

  /// The structure on the device, to pass to kops::cuda::eval or eval_host:
  /// its pointers tell kops to use this object's checked copies.
  block_sparsity sparsity() const { return device_own_; }
  /// The device the structure lives on.
  int device() const { return device_; }
  /// False when the constructor failed (reported; only without exceptions).
  bool ok() const { return registered_; }

  // kops' side (ranges.hpp, eval.hpp, host.hpp).
  // The host copy when s is sparsity() (or the host copy itself).
  const block_sparsity* host_view_of(const block_sparsity& s) const {
    if (same(s, device_own_) || same(s, own_view_)) return &own_view_;
    return nullptr;
  }
  // The host copy of the transpose when s is the host copy.
  const block_sparsity* transpose_of(const block_sparsity& s) const {
    return same(s, own_view_) ? &other_view_ : same(s, other_view_) ? &own_view_ : nullptr;
  }
  // Whether s is one of this object's host copies.
  bool holds(const block_sparsity& s) const { return same(s, own_view_) || same(s, other_view_); }
  // The device intervals of host copy s (holds(s)).
  const range* device_reduced(const block_sparsity& s) const {
    return same(s, own_view_) ? device_own_.reduced : device_other_.reduced;
  }

  // The cached task list of `key` into `d` (true), or false when there is none.
  bool cached(const detail::ranged_key& key, detail::ranged_device& d) const {
    lock();
    bool found = false;
    for (const entry& e : cache_)
      if (e.memory != nullptr && e.key == key) {
        d = e.arrays;
        found = true;
        break;
      }
    unlock();
    return found;
  }
  // Caches the task list `block` (laid out as `layout`, host memory) under
  // `key`: one blocking copy into a device allocation of its own; into `d`
  // its arrays on the device (`shared`: the structure's intervals there, for
  // an unsplit call). A full cache keeps its entries: then false and `d`
  // untouched (the caller copies per call). A failing CUDA call throws
  // (without exceptions: reported, and `failed` set).
  bool remember(const detail::ranged_key& key, const detail::ranged_layout& layout, const void* block,
                const range* shared, detail::ranged_device& d, const char* where, bool& failed) const {
    failed = false;
    lock();
    entry* slot = nullptr;
    for (entry& e : cache_)
      if (e.memory == nullptr) {
        slot = &e;
        break;
      }
    if (slot == nullptr) {
      unlock();
      return false;
    }
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, layout.bytes);
    if (e == cudaSuccess) e = cudaMemcpy(p, block, layout.bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      if (p != nullptr) detail::forget_quiet_failure(cudaFree(p));
      unlock();
      failed = true;
      return detail::report_cuda_error(e, where, "keeping a block-sparse task list on the device");
    }
    d = layout.on(p, shared);
    *slot = entry{key, d, p};
    unlock();
    return true;
  }

private:
  struct entry {
    detail::ranged_key key;
    detail::ranged_device arrays;
    void* memory = nullptr;  // the task list's device allocation (null: free slot)
  };
  static constexpr int cache_entries = 8;

  static bool same(const block_sparsity& a, const block_sparsity& b) {
    return a.rows == b.rows && a.slices == b.slices && a.reduced == b.reduced && a.row_blocks == b.row_blocks &&
           a.axis == b.axis;
  }
  static void copy_of(const block_sparsity& s, kops::detail::sparsity_copy& c) {
    const std::int64_t n = s.row_blocks, t = kops::detail::sparsity_intervals(s);
    c.rows = kops::detail::owned_array<range>(n);
    c.slices = kops::detail::owned_array<std::int64_t>(n);
    c.reduced = kops::detail::owned_array<range>(t);
    for (std::int64_t k = 0; k < n; ++k) c.rows[k] = s.rows[k], c.slices[k] = s.slices[k];
    for (std::int64_t k = 0; k < t; ++k) c.reduced[k] = s.reduced[k];
    c.row_blocks = n;
    c.axis = s.axis;
  }
  // c's arrays copied to the device at `at` (advanced past them), their view into `dev`.
  bool upload(const kops::detail::sparsity_copy& c, unsigned char*& at, block_sparsity& dev) {
    constexpr const char* where = "kops::cuda::resident_sparsity";
    const std::size_t n = std::size_t(c.row_blocks), t = std::size_t(kops::detail::sparsity_intervals(c.view()));
    auto put = [&](const void* src, std::size_t bytes) -> const void* {
      void* dst = at;
      at += bytes;
      if (bytes > 0 && !detail::check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), where,
                                      "copying the structure to the device"))
        return nullptr;
      return dst;
    };
    const void* rows = put(c.rows.data(), n * sizeof(range));
    const void* slices = put(c.slices.data(), n * sizeof(std::int64_t));
    const void* reduced = put(c.reduced.data(), t * sizeof(range));
    if ((n > 0 && (rows == nullptr || slices == nullptr)) || (t > 0 && reduced == nullptr)) return false;
    dev = {static_cast<const range*>(rows), c.row_blocks, static_cast<const std::int64_t*>(slices),
           static_cast<const range*>(reduced), c.axis};
    if (n == 0) dev = {nullptr, 0, nullptr, nullptr, c.axis};
    (&c == &own_ ? own_view_ : other_view_) = c.view();
    return true;
  }
  void lock() const {
    while (__atomic_exchange_n(&lock_, 1, __ATOMIC_ACQUIRE) != 0) {
    }
  }
  void unlock() const { __atomic_store_n(&lock_, 0, __ATOMIC_RELEASE); }

  kops::detail::sparsity_copy own_, other_;
  block_sparsity own_view_{}, other_view_{};
  block_sparsity device_own_{}, device_other_{};
  void* device_memory_ = nullptr;
  int device_ = -1;
  bool registered_ = false;
  mutable int lock_ = 0;
  mutable entry cache_[cache_entries] = {};
};

} // namespace kops::cuda

namespace kops::cuda::detail {

// The live resident_sparsity whose device structure or host copy s is, or null.
inline const kops::cuda::resident_sparsity* find_resident(const block_sparsity& s) {
  if (s.row_blocks <= 0) return nullptr;
  const kops::cuda::resident_sparsity** table = resident_table();
  for (int k = 0; k < resident_slots; ++k)
    if (const kops::cuda::resident_sparsity* r = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE))
      if (r->host_view_of(s) != nullptr || r->holds(s)) return r;
  return nullptr;
}

} // namespace kops::cuda::detail
