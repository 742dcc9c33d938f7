// kops::cuda::eval_host past one device: data larger than the device memory
// a call may use (options::max_device_bytes) streamed through it, and the
// reduced axis split across several devices (options::devices).
//
// A streamed pass (one device, stream_on_device):
//   for each block of output rows [r0, r0 + R):          (R: all rows when they fit)
//     copy the block's row arguments in (compute stream)
//     for each piece [j0, j1) of the reduced axis:        (P indices, a shorter tail)
//       host:    wait until staging buffer b = piece % 2 is copied out, then
//                memcpy the piece's reduced-axis arguments into it (pinned)
//       copy:    wait until device piece b is no longer read; staging b -> piece b
//       compute: wait for the copy; pass 1 of GPU_2D over [j0, j1) in chunks
//                of `chunk` (reduce_kernel with first = j0: indices are the
//                axis's own, so arg reductions give global indices) into the
//                scratch slots after the running accumulator (slot 0);
//                pass 2 of GPU_2D folds slot 0 and the piece's chunks, in
//                order, back into slot 0 -- or, after the last piece,
//                finalizes them into the output block, copied out.
// So the host's copy of piece p + 1, the copy engine's of piece p and the
// kernels of piece p - 1 overlap. Every combine takes the earlier indices as
// its first operand, as GPU_2D's: results equal a resident GPU_2D call with
// the same chunk for every reduction whose combine is exact (min, max, arg
// and k-reductions, ties and NaN rules included), and differ from it by the
// summation order only for sums (docs/cuda.md, "Larger than the device").
// The reduced-axis arguments of a piece are read through pointers moved back
// by j0 indices (as integers, never dereferenced outside the piece).
//
// Split across devices (split_columns): device k folds the reduced indices
// [cols k / n, cols (k + 1) / n) of every row as above, in a host thread and
// on a stream of its own, but leaves its accumulators unfinalized; they come
// to the host, then to the first device's scratch, where one GPU_2D combine
// (device order: device k's accumulators before device k + 1's) finalizes them.
//
// streamed_backend runs the passes of the eval front end this way
// (detail/dispatch.hpp): a two-pass gradient's temporary is host memory,
// streamed into its second pass like any argument; a wide output runs in one
// pass (streamed_backend).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/launch.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/detail/storage.hpp>

namespace kops::cuda::detail {

// The automatic budget leaves this share of the device's memory free:
// what cudaMemGetInfo reports free minus total / 16.
inline constexpr std::size_t device_memory_margin_divisor = 16;
// A streamed piece runs pass 1 in at most this many chunks (blocks along y).
inline constexpr std::int64_t stream_piece_chunks = 16;
// options::devices splits the reduced axis when the output rows are fewer
// than this many per device, the output rows otherwise.
inline constexpr std::int64_t column_split_rows_per_device = 256;

// Pieces streamed in this process (tests read it to check that a call was
// streamed, and in how many pieces). Relaxed: a count, not a synchronisation.
inline unsigned long long& streamed_pieces() {
  static unsigned long long n = 0;
  return n;
}

// The device memory a call may use on the current device (bytes, into
// `budget`): options::max_device_bytes, or what is free less the margin.
[[nodiscard]] inline bool device_budget(const options& opts, const char* where, std::int64_t& budget) {
  if (opts.max_device_bytes > 0) {
    budget = opts.max_device_bytes;
    return true;
  }
  std::size_t free = 0, total = 0;
  if (!check(cudaMemGetInfo(&free, &total), where, "querying the device's free memory (cudaMemGetInfo)"))
    return false;
  const std::size_t margin = total / device_memory_margin_divisor;
  budget = free > margin ? std::int64_t(free - margin) : 0;
  return true;
}

// Where an argument of a pass lives, for streaming.
enum class stream_role { unused, rows, reduced, param };

// One argument of a pass: its role, its bytes per row (per reduced index, or
// in all for a parameter), its host array.
struct stream_arg {
  stream_role role = stream_role::unused;
  std::int64_t bytes = 0;
  const char* host = nullptr;
};

// Bytes per output row, per reduced index and in all of a pass's arguments.
struct stream_sizes {
  std::int64_t row = 0, col = 0, param = 0;
};

inline stream_sizes sizes_of(const stream_arg* args, int n) {
  stream_sizes z;
  for (int k = 0; k < n; ++k) {
    if (args[k].role == stream_role::rows) z.row += args[k].bytes;
    if (args[k].role == stream_role::reduced) z.col += args[k].bytes;
    if (args[k].role == stream_role::param) z.param += args[k].bytes;
  }
  return z;
}

// How a pass is streamed through one device.
struct stream_plan {
  std::int64_t rows;   // output rows per block
  std::int64_t piece;  // reduced indices per piece (0: the range is empty)
  std::int64_t chunk;  // reduced indices per pass-1 block (<= piece)
};

// What a pass streams: the kernels, the arguments and the output's layout.
struct stream_pass {
  const kernel_entry* k;
  void* args;                                         // -> a K::args_type, set per piece
  std::size_t args_size;                              // sizeof(K::args_type)
  void (*set_arg)(void* args, int k, const void* p);  // args->p[k] = p
  const stream_arg* slots;
  int nslots;
  std::int64_t out_row_bytes;  // an output row's stride, in bytes
  std::int64_t out_used;       // bytes the pass writes from the start of a row
};

// The plan of a pass of `rows` rows over `cols` reduced indices within
// `budget` bytes: a block of rows takes its row arguments, its output rows
// and 1 + stream_piece_chunks accumulators each, within half the budget
// (all of it when nothing is streamed along the reduced axis); two pieces
// take the rest. Too small a budget for one row and one index is a
// kops::error naming both.
[[nodiscard]] inline bool plan_stream(const stream_pass& s, std::int64_t rows, std::int64_t cols,
                                      std::int64_t budget, std::int64_t requested_chunk, const char* where,
                                      stream_plan& p) {
  const stream_sizes z = sizes_of(s.slots, s.nslots);
  const std::int64_t per_row = z.row + s.out_row_bytes + std::int64_t(s.k->facts.acc_bytes) * (stream_piece_chunks + 1);
  const std::int64_t per_col = 2 * z.col;
  const std::int64_t need = z.param + per_row + (cols > 0 ? per_col : 0);
  if (budget < need)
    return kops::detail::fail("%s: the device memory the call may use is too small to stream it, expected at least "
                              "%lld bytes (one output row, one reduced index and the accumulators), given %lld "
                              "(options::max_device_bytes, or what the device has free)",
                              where, (long long)need, (long long)budget);
  const std::int64_t room = budget - z.param;
  const std::int64_t row_room = cols > 0 && per_col > 0 ? std::max(room / 2, room - per_col * cols) : room;
  p.rows = std::clamp(row_room / per_row, std::int64_t(1), rows);
  if (cols > 0 && per_col > 0 && room - p.rows * per_row < per_col)
    p.rows = std::max<std::int64_t>(1, (room - per_col) / per_row);
  p.piece = per_col > 0 ? std::min(cols, (room - p.rows * per_row) / per_col) : cols;
  const int tile = s.k->facts.tile;
  if (requested_chunk > 0) {
    p.chunk = requested_chunk;
    if (p.piece > p.chunk * stream_piece_chunks) p.piece = p.chunk * stream_piece_chunks;
    if (p.piece >= p.chunk) p.piece -= p.piece % p.chunk;
  } else {
    p.chunk = ceil_div(ceil_div(std::max<std::int64_t>(p.piece, 1), stream_piece_chunks), tile) * tile;
  }
  if (p.chunk > p.piece) p.chunk = std::max<std::int64_t>(p.piece, 1);
  return true;
}

// Pinned host memory (cudaMallocHost), freed at scope exit.
struct pinned_buffer {
  char* p = nullptr;
  pinned_buffer() = default;
  [[nodiscard]] bool allocate(std::size_t bytes, const char* where) {
    if (bytes == 0) return true;
    void* q = nullptr;
    if (!check(cudaMallocHost(&q, bytes), where, "allocating pinned host memory for the streamed pieces")) return false;
    p = static_cast<char*>(q);
    return true;
  }
  ~pinned_buffer() {
    if (p != nullptr) forget_quiet_failure(cudaFreeHost(p));
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
};

// A CUDA event without timing, destroyed at scope exit.
struct own_event {
  cudaEvent_t e = nullptr;
  [[nodiscard]] bool create(const char* where) {
    return check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), where, "creating an event (cudaEventCreate)");
  }
  ~own_event() {
    if (e != nullptr) forget_quiet_failure(cudaEventDestroy(e));
  }
};

// A stream of its own on the current device, destroyed at scope exit.
struct own_stream {
  cudaStream_t s = nullptr;
  bool ok = false;
  explicit own_stream(const char* where) {
    ok = check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), where, "creating a stream (cudaStreamCreate)");
  }
  ~own_stream() {
    if (s != nullptr) forget_quiet_failure(cudaStreamDestroy(s));
  }
  own_stream(const own_stream&) = delete;
  own_stream& operator=(const own_stream&) = delete;
};

// The buffers, streams and events of a pass streamed through the current
// device (file comment); the compute stream is the caller's.
class device_stream {
public:
  device_stream(const stream_pass& s, const stream_plan& p, cudaStream_t compute, bool pools, const char* where)
      : s_(s), p_(p), compute_(compute), copy_(where), where_(where) {
    ok_ = copy_.ok && setup(pools);
  }
  ~device_stream() {
    if (copy_.s != nullptr) forget_quiet_failure(cudaStreamSynchronize(copy_.s));  // before the staging is freed
  }
  [[nodiscard]] bool ok() const { return ok_; }

  // Rows [r0, r0 + n) (n <= plan.rows) over the reduced indices [jb, je):
  // finalized into `out` (host, the pass's first row) when given, else left
  // as accumulators in scratch slot 0 (accumulators()).
  [[nodiscard]] bool run(std::int64_t r0, std::int64_t n, std::int64_t jb, std::int64_t je, char* out) {
    std::int64_t at = 0;
    for (int k = 0; k < s_.nslots; ++k) {
      const stream_arg& a = s_.slots[k];
      if (a.role != stream_role::rows) continue;
      char* dst = rows_.get<char>() + at * p_.rows;
      at += a.bytes;
      s_.set_arg(s_.args, k, dst);
      if (!copy_in(dst, a.host + r0 * a.bytes, std::size_t(n * a.bytes), compute_, "row argument")) return false;
    }
    char* const block_out = out != nullptr ? out + r0 * s_.out_row_bytes : nullptr;
    const std::size_t out_bytes = std::size_t((n - 1) * s_.out_row_bytes + s_.out_used);
    // A pass of a wide output writes some columns of its rows: the others go in and out unchanged.
    if (block_out != nullptr && s_.out_used < s_.out_row_bytes &&
        !copy_in(out_.get(), block_out, out_bytes, compute_, "output block"))
      return false;
    bool first = true;
    for (std::int64_t j0 = jb; first || j0 < je; j0 += p_.piece) {
      const std::int64_t j1 = std::min(je, j0 + p_.piece);
      if (!piece(n, j0, j1, first, j1 >= je, block_out != nullptr)) return false;
      first = false;
    }
    return block_out == nullptr ||
           check(cudaMemcpyAsync(block_out, out_.get(), out_bytes, cudaMemcpyDeviceToHost, compute_), where_,
                 "copying the output to the host");
  }

  // The accumulators of the last run without output: scratch slot 0.
  char* accumulators() const { return scratch_.get<char>(); }

  // Rows [r0, r0 + n): the `parts` accumulator sets at `host` (parts x n,
  // earlier parts first) combined in order and finalized into `out`.
  [[nodiscard]] bool finish(const char* host, int parts, std::int64_t r0, std::int64_t n, char* out) {
    const std::size_t acc = s_.k->facts.acc_bytes;
    char* const block_out = out + r0 * s_.out_row_bytes;
    const std::size_t out_bytes = std::size_t((n - 1) * s_.out_row_bytes + s_.out_used);
    launch_operands o{s_.args, out_.get()};
    return (s_.out_used == s_.out_row_bytes || copy_in(out_.get(), block_out, out_bytes, compute_, "output block")) &&
           copy_in(scratch_.get(), host, std::size_t(parts) * std::size_t(n) * acc, compute_, "accumulators") &&
           launch_combine(*s_.k, o, n, parts, scratch_.get(), out_.get(), nullptr, compute_, where_) &&
           check(cudaMemcpyAsync(block_out, out_.get(), out_bytes, cudaMemcpyDeviceToHost, compute_), where_,
                 "copying the output to the host");
  }

  // Waits for the compute stream, then frees the device buffers.
  [[nodiscard]] bool finish_all() {
    if (!check(cudaStreamSynchronize(compute_), where_, "running the streamed reduction (cudaStreamSynchronize)"))
      return false;
    return out_.release(where_, "the output block") && scratch_.release(where_, "the accumulators") &&
           pieces_[1].release(where_, "a streamed piece") && pieces_[0].release(where_, "a streamed piece") &&
           params_.release(where_, "the parameters") && rows_.release(where_, "the row arguments");
  }

private:
  bool setup(bool pools) {
    const stream_sizes z = sizes_of(s_.slots, s_.nslots);
    const std::size_t acc = s_.k->facts.acc_bytes;
    rows_ = stream_buffer(std::size_t(z.row * p_.rows), compute_, pools, where_, "the row arguments");
    params_ = stream_buffer(std::size_t(z.param), compute_, pools, where_, "the parameters");
    for (auto& b : pieces_)
      b = stream_buffer(std::size_t(z.col * p_.piece), compute_, pools, where_, "a streamed piece");
    scratch_ = stream_buffer(std::size_t(p_.rows) * acc * std::size_t(stream_piece_chunks + 1), compute_, pools, where_,
                             "the accumulators");
    out_ = stream_buffer(std::size_t(p_.rows * s_.out_row_bytes), compute_, pools, where_, "the output block");
    if (!rows_.ok() || !params_.ok() || !pieces_[0].ok() || !pieces_[1].ok() || !scratch_.ok() || !out_.ok())
      return false;
    for (auto& b : staging_)
      if (!b.allocate(std::size_t(z.col * p_.piece), where_)) return false;
    for (auto* e : {&copied_[0], &copied_[1], &used_[0], &used_[1], &ready_})
      if (!e->create(where_)) return false;
    std::int64_t at = 0;
    for (int k = 0; k < s_.nslots; ++k) {
      const stream_arg& a = s_.slots[k];
      if (a.role != stream_role::param) continue;
      s_.set_arg(s_.args, k, params_.get<char>() + at);
      if (!copy_in(params_.get<char>() + at, a.host, std::size_t(a.bytes), compute_, "parameter")) return false;
      at += a.bytes;
    }
    // The copy stream uses buffers allocated on the compute stream.
    return check(cudaEventRecord(ready_.e, compute_), where_, "recording an event") &&
           check(cudaStreamWaitEvent(copy_.s, ready_.e, 0), where_, "waiting for an event");
  }

  bool copy_in(void* dst, const void* src, std::size_t bytes, cudaStream_t st, const char* what) {
    if (bytes == 0) return true;
    if (const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st); e != cudaSuccess)
      return report_cuda_error(e, where_, "copying a streamed %s to the device", what);
    return true;
  }

  // One piece [j0, j1) of rows [0, n) of the block (file comment).
  bool piece(std::int64_t n, std::int64_t j0, std::int64_t j1, bool first, bool last, bool finalize) {
    const int b = int(count_++ % 2);
    __atomic_fetch_add(&streamed_pieces(), 1ull, __ATOMIC_RELAXED);
    const std::int64_t len = j1 - j0;
    if (len > 0) {
      if (!check(cudaEventSynchronize(copied_[b].e), where_, "waiting for a staging buffer (cudaEventSynchronize)") ||
          !check(cudaStreamWaitEvent(copy_.s, used_[b].e, 0), where_, "waiting for an event"))
        return false;
    }
    std::int64_t at = 0;
    for (int k = 0; k < s_.nslots; ++k) {
      const stream_arg& a = s_.slots[k];
      if (a.role != stream_role::reduced) continue;
      const std::size_t offset = std::size_t(at * p_.piece), bytes = std::size_t(len * a.bytes);
      at += a.bytes;
      // Read at index j (global) from the piece: the pointer moved back by j0 indices.
      s_.set_arg(s_.args, k,
                 reinterpret_cast<const void*>(std::uintptr_t(pieces_[b].get<char>() + offset) -
                                               std::uintptr_t(j0 * a.bytes)));
      if (bytes == 0) continue;
      std::memcpy(staging_[b].p + offset, a.host + j0 * a.bytes, bytes);
      if (!copy_in(pieces_[b].get<char>() + offset, staging_[b].p + offset, bytes, copy_.s, "piece")) return false;
    }
    if (len > 0 && (!check(cudaEventRecord(copied_[b].e, copy_.s), where_, "recording an event") ||
                    !check(cudaStreamWaitEvent(compute_, copied_[b].e, 0), where_, "waiting for an event")))
      return false;
    const std::size_t acc = s_.k->facts.acc_bytes;
    const std::int64_t chunks = std::max<std::int64_t>(1, ceil_div(len, p_.chunk));
    const std::int64_t slot = first ? 0 : 1;
    launch_operands o{s_.args, nullptr};
    if (!launch_reduce(*s_.k, o, n, j0, j1, p_.chunk, chunks, scratch_.get<char>() + slot * n * acc, nullptr,
                       compute_, where_, "streamed partial-reduction") ||
        !check(cudaEventRecord(used_[b].e, compute_), where_, "recording an event"))
      return false;
    if (last && finalize)
      return launch_combine(*s_.k, o, n, slot + chunks, scratch_.get(), out_.get(), nullptr, compute_, where_);
    if (slot + chunks == 1) return true;  // the accumulators are in slot 0 already
    return launch_combine(*s_.k, o, n, slot + chunks, scratch_.get(), nullptr, scratch_.get(), compute_, where_);
  }

  stream_pass s_;
  stream_plan p_;
  cudaStream_t compute_;
  own_stream copy_;
  const char* where_;
  bool ok_ = false;
  std::uint64_t count_ = 0;
  stream_buffer rows_, params_, pieces_[2], scratch_, out_;
  pinned_buffer staging_[2];
  own_event copied_[2], used_[2], ready_;
};

// Runs part(k) for k in [0, parts) in host threads of their own; true when
// every part returned true. The first exception of a part is rethrown once
// every thread has finished.
template <class F>
[[nodiscard]] bool on_threads(int parts, F&& part) {
  std::vector<char> ok(std::size_t(parts), 0);
#if KOPS_EXCEPTIONS
  std::vector<std::exception_ptr> error(static_cast<std::size_t>(parts));
#endif
  std::vector<std::thread> threads;
  threads.reserve(std::size_t(parts));
  for (int k = 0; k < parts; ++k)
    threads.emplace_back([&, k] {
#if KOPS_EXCEPTIONS
      try {
        ok[std::size_t(k)] = part(k);
      } catch (...) {
        error[std::size_t(k)] = std::current_exception();
      }
#else
      ok[std::size_t(k)] = part(k);
#endif
    });
  for (auto& t : threads) t.join();
#if KOPS_EXCEPTIONS
  for (auto& e : error)
    if (e) std::rethrow_exception(e);
#endif
  return std::all_of(ok.begin(), ok.end(), [](char b) { return b != 0; });
}

// The pass of `rows` rows over the reduced indices [jb, je) on `device`
// (-1: the current one) and `stream`: finalized into `out` (host), or, with
// `acc` (host, rows accumulators), left unfinalized there. Streams under
// capture are refused (the host waits for its staging buffers).
[[nodiscard]] inline bool stream_on_device(const stream_pass& s, const options& opts, int device, cudaStream_t stream,
                                           std::int64_t rows, std::int64_t jb, std::int64_t je, char* out, char* acc,
                                           const char* where) {
  device_guard guard(device, where);
  if (!guard.ok()) return false;
  if (!refuse_capture(stream, where, "a streamed call (data larger than options::max_device_bytes, or split across "
                                     "devices) waits on the host for its staging buffers"))
    return false;
  device_facts facts;
  std::int64_t budget = 0;
  stream_plan plan;
  if (!current_facts(where, facts) || !device_budget(opts, where, budget) ||
      !plan_stream(s, rows, je - jb, budget, opts.gpu_2d_chunk, where, plan))
    return false;
  if (acc != nullptr && plan.rows < rows)
    return kops::detail::fail("%s: options::devices: the reduced axis is split across devices only when every "
                              "device holds all %lld output rows at once, expected at most %lld rows, given %lld",
                              where, (long long)rows, (long long)plan.rows, (long long)rows);
  device_stream ds(s, plan, stream, facts.memory_pools, where);
  if (!ds.ok()) return false;
  for (std::int64_t r0 = 0; r0 < rows; r0 += plan.rows)
    if (!ds.run(r0, std::min(plan.rows, rows - r0), jb, je, out)) return false;
  if (acc != nullptr &&
      !check(cudaMemcpyAsync(acc, ds.accumulators(), std::size_t(rows) * s.k->facts.acc_bytes, cudaMemcpyDeviceToHost,
                             stream),
             where, "copying the partial accumulators to the host"))
    return false;
  return ds.finish_all();
}

// The pass split along the reduced axis across opts.devices (file comment):
// each device's accumulators to the host, then combined and finalized on the
// first device.
[[nodiscard]] inline bool split_columns(const stream_pass& s, const options& opts, int parts, std::int64_t rows,
                                        std::int64_t cols, char* out, const char* where) {
  const std::size_t acc = s.k->facts.acc_bytes;
  std::vector<char> partial(std::size_t(parts) * std::size_t(rows) * acc);
  // Each thread sets its own copy of the kernel's arguments (aligned as the
  // original: words aligned as max_align_t -- a named type: nvcc 13.0's front
  // end crashes on a vector of glibc's unnamed max_align_t struct).
  struct alignas(std::max_align_t) arg_word {
    unsigned char bytes[sizeof(std::max_align_t)];
  };
  const std::size_t words = (s.args_size + sizeof(arg_word) - 1) / sizeof(arg_word);
  std::vector<arg_word> args(std::size_t(parts) * words);
  const bool ok = on_threads(parts, [&](int k) {
    device_guard guard(opts.devices.ids[k], where);
    if (!guard.ok()) return false;
    own_stream stream(where);
    if (!stream.ok) return false;
    stream_pass mine = s;
    mine.args = args.data() + std::size_t(k) * words;
    std::memcpy(mine.args, s.args, s.args_size);
    return stream_on_device(mine, opts, -1, stream.s, rows, cols * k / parts, cols * (k + 1) / parts, nullptr,
                            partial.data() + std::size_t(k) * std::size_t(rows) * acc, where);
  });
  if (!ok) return false;
  device_guard guard(opts.devices.ids[0], where);
  if (!guard.ok()) return false;
  own_stream stream(where);
  device_facts facts;
  std::int64_t budget = 0;
  stream_plan plan;
  if (!stream.ok || !current_facts(where, facts) || !device_budget(opts, where, budget) ||
      !plan_stream(s, rows, 0, budget, 0, where, plan))
    return false;
  if (plan.rows < rows)
    return kops::detail::fail("%s: options::devices: combining the devices' accumulators needs every output row on "
                              "the first device at once, expected at most %lld rows, given %lld",
                              where, (long long)plan.rows, (long long)rows);
  device_stream ds(s, plan, stream.s, facts.memory_pools, where);
  return ds.ok() && ds.finish(partial.data(), parts, 0, rows, out) && ds.finish_all();
}

// The passes of an eval_host call streamed (file comment), for the eval
// front end's run_passes. No output chunks (device_backend's passes of 32
// components read the wide arguments through moved pointers that are no
// variables of the pass: nothing a pass could stream): a wide output is one
// pass with whole-width accumulators.
struct streamed_backend {
  const char* where;
  options opts;

  // A two-pass gradient's temporary: host memory, streamed into the second pass.
  template <class T, class F>
  bool with_temporary(std::size_t n, F&& f) {
    std::vector<T> buffer(n);
    return f(*this, buffer.data());
  }

  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    using K = pass_traits_t<Pol, Red, T, Out>;
    using Args = typename K::args_type;
    Args a{};
    stream_arg slots[Red::nargs > 0 ? Red::nargs : 1];
    [&]<class... S>(type_list<S...>) {
      ([&] {
        if constexpr (!kops::detail::is_unused_slot_v<S>) {
          constexpr std::int64_t element =
              kops::detail::computed_slot_v<Pol, T, S::index> ? sizeof(kops::detail::compute_t<T>) : sizeof(T);
          const stream_role role = S::cat == Red::row_cat      ? stream_role::rows
                                   : S::cat == category::param ? stream_role::param
                                                               : stream_role::reduced;
          slots[S::index] = {role, S::dim * element, reinterpret_cast<const char*>(ptrs[S::index])};
        }
      }(), ...);
    }(typename Red::signature{});
    const stream_pass s{&kernel_entry_from_v<K>, &a, sizeof(Args),
                        [](void* args, int k, const void* p) {
                          auto* x = static_cast<Args*>(args);
                          x->p[k] = static_cast<std::remove_cvref_t<decltype(x->p[k])>>(p);
                        },
                        slots, Red::nargs, std::int64_t(kops::out_stride_v<Red> * sizeof(Out)),
                        std::int64_t(Red::dim * sizeof(Out))};
    char* const host_out = reinterpret_cast<char*>(out);
    const device_list& dl = opts.devices;
    const int parts = int(std::min<std::int64_t>(dl.count, e.cols));
    if (parts >= 2 && e.rows < column_split_rows_per_device * dl.count)
      return split_columns(s, opts, parts, e.rows, e.cols, host_out, where);
    if (dl.count >= 2) {  // too few reduced indices, or enough rows for kops::cuda::eval_host to have split them
      device_guard guard(dl.ids[0], where);
      if (!guard.ok()) return false;
      own_stream stream(where);
      return stream.ok && stream_on_device(s, opts, -1, stream.s, e.rows, 0, e.cols, host_out, nullptr, where);
    }
    return stream_on_device(s, opts, opts.device, opts.stream, e.rows, 0, e.cols, host_out, nullptr, where);
  }
};

} // namespace kops::cuda::detail
