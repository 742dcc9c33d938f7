// kops::mpi::eval: one reduction over data spread across MPI ranks, each rank
// reducing its own slice of the reduced axis on the CPU (Kokkos backend).
//
//   kops::mpi::eval<Policy...>(red, comm, M, N, out, args...);          // the reduced axis is split
//   kops::mpi::eval<Policy...>(red, comm, split, M, N, out, args...);   // split = kops::mpi::split_i / split_j
//
// Data layout per rank. One axis, the split axis (by default the axis `red`
// reduces over: j for axis_j, i for axis_i), is cut into consecutive slices,
// one per rank in rank order (rank 0 holds the first indices); a slice may be
// empty. Every rank passes
//   - for the split axis: its own size (N_r for j, M_r for i) and its slice of
//     every variable of that category, (N_r, D) / (M_r, D) row-major;
//   - for the other axis: the whole size, the same on every rank, and the
//     whole arrays;
//   - the parameters, whole.
// The whole split axis is the concatenation of the slices, N = sum_r N_r; each
// rank's offset is an MPI_Exscan of the slice sizes. The call is collective:
// every rank of comm calls it with the same reduction and policies.
//
// Reducing over the split axis (the usual case: a kernel sum, a nearest-
// neighbour search over points held by many processes): each rank folds its
// slice into the reduction's partial accumulators for every output row
// (backends/kokkos/partial.hpp: one accumulator per SIMD pack of rows, global
// indices for arg reductions); one MPI_Allreduce merges them with a user
// MPI_Op that runs the reduction's own combine. The op is created
// non-commutative, so MPI merges in rank order and every reduction gives what
// one kops::kokkos::eval over the whole axis gives: min / argmin / k-min
// (indices, ties to the lowest index, NaN rules, index 0 for an argmin over
// all-+inf terms), logsumexp and softmax (max-shifted sums), sums under every
// summation scheme (up to the rounding of another order of additions). Every
// rank receives the whole output, out:(rows, red.dim).
//
// Reducing over the other axis (split = the output rows' axis): each rank
// evaluates its own slice of output rows locally, out:(its rows, red.dim); no
// data moves. Two-pass reductions (kops::grad of logsumexp / sumsoftmaxweight
// w.r.t. a variable of the reduced axis, reductions/chained.hpp) run each pass
// in whichever of the two modes its axis calls for, e.g. with j split, the
// gradient w.r.t. y_j: the forward logsumexp over j (merged across ranks),
// then each rank's own rows y_j.
//
// Front end: eval's (detail/dispatch.hpp, eval_call), as for every backend:
// the compile-time rules and the trailing options are checked and split there
// (the communicator travels as one more option, detail::communicator); the
// run-time checks are this backend's own (mpi_entry, own_checks), made on
// every rank together.
//
// Errors: a kops::error on every rank (without exceptions: the error handler
// called on every rank, which then returns, out untouched), never a hang,
// when a rank rejects its arguments (null pointers, negative sizes,
// overlapping output; the others report which rank), the ranks disagree on
// the size of the unsplit axis or were built with different SIMD widths, the
// whole axis is shorter than a k-min's K, Kokkos or MPI is not initialised, or
// an MPI call returns an error (with MPI_ERRORS_RETURN; MPI's default handler
// aborts first).
//
// Cost: the reduction itself, as kops::kokkos::eval's, on each rank's slice;
// then one MPI_Allreduce of the accumulators, one per SIMD pack of rows (a
// float sum: about 12 bytes per output row, three times the output; a k-min,
// K times more), plus three small collectives that check the arguments.
//
// Limitations: CPU only here (kops::mpi::cuda::eval, include/kops/mpi_cuda.hpp,
// is the GPU variant: the same merge of GPU_2D's accumulators); every rank
// builds the whole output (no root-only variant); the accumulators cross the
// network as bytes, so all ranks must run the same binary, or at least the same SIMD width and policies
// (checked by size); data are not redistributed: the caller chooses the slices;
// a failure after the checks on one rank only (out of memory for the
// accumulators) is not agreed on, so the other ranks would wait in MPI.
//
// Example: a Gaussian sum over points y_j spread across ranks.
//
//   constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
//   // x:(M,3) whole on every rank; y:(N_r,3), b:(N_r,1) this rank's slice; out:(M,1)
//   kops::mpi::eval(conv, MPI_COMM_WORLD, M, N_r, out, px, py_r, pb_r, pg);
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <kops/kokkos.hpp>
#include <kops/backends/kokkos/partial.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/detail/sized.hpp>

/// \brief One reduction over data spread across MPI ranks (CPU, Kokkos backend):
/// each rank reduces its slice of an axis, the partial accumulators are merged
/// with the reduction's own combine through a non-commutative MPI_Op
/// (include/kops/mpi.hpp's file comment: layout per rank, errors, cost, limits).
namespace kops::mpi {

/// Which axis is cut into per-rank slices: i (the M rows of i-variables) or j.
template <category C>
struct split_tag {
  static_assert(C == category::i || C == category::j, "kops::mpi::split_tag: the split axis is i or j");
  static constexpr category value = C;
};
/// The i axis (the M rows of the i-variables) is cut into per-rank slices.
inline constexpr split_tag<category::i> split_i{};
/// The j axis (the N rows of the j-variables) is cut into per-rank slices.
inline constexpr split_tag<category::j> split_j{};

namespace detail {

inline constexpr const char* where = "kops::mpi::eval";

// True when `rc` is MPI_SUCCESS; else throws kops::error naming the call and
// MPI's text for the error (without exceptions: reports it and returns false).
[[nodiscard]] inline bool check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return true;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  return kops::detail::fail("%s: %s failed: %.*s", where, call, len, text);
}

// `bytes` contiguous bytes: one partial accumulator slot. A failure throws;
// without exceptions it is reported and ok() is false.
class bytes_type {
 public:
  explicit bytes_type(std::size_t bytes) {
    if (!check_mpi(MPI_Type_contiguous(int(bytes), MPI_BYTE, &type_), "MPI_Type_contiguous")) {
      type_ = MPI_DATATYPE_NULL;
      return;
    }
    const int rc = MPI_Type_commit(&type_);
    if (rc != MPI_SUCCESS) {
      MPI_Type_free(&type_);
      type_ = MPI_DATATYPE_NULL;
      (void)check_mpi(rc, "MPI_Type_commit");
    }
  }
  ~bytes_type() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  bytes_type(const bytes_type&) = delete;
  bytes_type& operator=(const bytes_type&) = delete;
  MPI_Datatype get() const { return type_; }
  [[nodiscard]] bool ok() const { return type_ != MPI_DATATYPE_NULL; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// A user MPI_Op. A failure throws; without exceptions it is reported and ok() is false.
class user_op {
 public:
  user_op(MPI_User_function* fn, bool commutative) {
    if (!check_mpi(MPI_Op_create(fn, commutative ? 1 : 0, &op_), "MPI_Op_create")) op_ = MPI_OP_NULL;
  }
  ~user_op() {
    if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  }
  user_op(const user_op&) = delete;
  user_op& operator=(const user_op&) = delete;
  MPI_Op get() const { return op_; }
  [[nodiscard]] bool ok() const { return op_ != MPI_OP_NULL; }

 private:
  MPI_Op op_ = MPI_OP_NULL;
};

// The MPI_Op's function: inout[e] <- in[e] then inout[e], `in` holding the
// lower ranks' slices (MPI's order for a non-commutative op). MPI's buffers
// need not have the slots' 64-byte alignment (they hold SIMD packs), hence the
// copies into aligned locals.
template <class Part>
void combine_slots(void* in, void* inout, int* len, MPI_Datatype*) {
  using slot = typename Part::slot;
  const auto* lower = static_cast<const unsigned char*>(in);
  auto* upper = static_cast<unsigned char*>(inout);
  for (int e = 0; e < *len; ++e) {
    slot a, b;
    std::memcpy(static_cast<void*>(&a), lower + std::size_t(e) * sizeof(slot), sizeof(slot));
    std::memcpy(static_cast<void*>(&b), upper + std::size_t(e) * sizeof(slot), sizeof(slot));
    Part::combine(a, b);
    std::memcpy(upper + std::size_t(e) * sizeof(slot), static_cast<const void*>(&a), sizeof(slot));
  }
}

// Position of this rank's slice on the whole split axis.
struct slice {
  std::int64_t offset, total;
};

// The range form's extents (detail/sized.hpp), agreed on: true when every
// rank's are right; else each rank reports, its own message where its own
// extents are wrong, else which rank's are. Collective.
inline bool agree_on_ranges(MPI_Comm comm, kops::detail::message& own) {
  int rank = 0;
  if (comm == MPI_COMM_NULL) return kops::detail::fail("%s: the communicator is MPI_COMM_NULL", where);
  if (!check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank")) return false;
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  const std::int64_t mine = own.empty() ? none : -std::int64_t(rank);
  std::int64_t agreed = none;
  if (!check_mpi(MPI_Allreduce(&mine, &agreed, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce")) return false;
  if (!own.empty()) return kops::detail::report(own);
  if (agreed != none)
    return kops::detail::fail("%s: rank %lld rejected the sizes of its ranges (its kops::error says why); no rank "
                              "evaluated the reduction",
                              where, (long long)-agreed);
  return true;
}

// Checks every rank's arguments and agrees on the outcome, so that either
// every rank throws (without exceptions: reports and returns false) or none
// does; the slice into `s`. Collective.
// acc_bytes: the size of the partial accumulators (0 when no pass merges).
// kokkos: the call runs on Kokkos, which must be initialised (kops::mpi::eval;
// kops::mpi::cuda::eval runs on the GPU: mpi_cuda.hpp).
template <class Red, category C, class T, class Out>
[[nodiscard]] bool check_collectively(MPI_Comm comm, std::int64_t M, std::int64_t N, const Out* out,
                                      const T* const* args, std::size_t acc_bytes, slice& s, bool kokkos = true) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return kops::detail::fail("%s: MPI is not initialized (call MPI_Init first, MPI_Finalize last)", where);
  if (comm == MPI_COMM_NULL) return kops::detail::fail("%s: the communicator is MPI_COMM_NULL", where);
  int rank = 0;
  if (!check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank")) return false;

  // This rank's own checks, as kops::kokkos::eval makes them; a k-min's K
  // terms are counted on the whole split axis below. A failed check leaves
  // its message in `own` (reported only once every rank knows the outcome).
  kops::detail::message own;
  {
    auto info = kops::detail::call_info_of<Red>::value;
    if (Red::red_cat == C) info.min_terms = 0;
    const void* untyped[Red::signature::size + 1] = {};
    for (int k = 0; k < Red::signature::size; ++k) untyped[k] = args[k];
    if (kops::detail::check_arguments_impl(where, info, M, N, out, untyped, &own) &&
        kops::detail::check_no_overlap_impl(where, info, M, N, out, untyped, sizeof(Out), sizeof(T), &own) &&
        kokkos && !Kokkos::is_initialized())
      own = kops::detail::format("%s: Kokkos is not initialized (create a Kokkos::ScopeGuard "
                                 "or call Kokkos::initialize first)",
                                 where);
  }

  const std::int64_t local = C == category::i ? M : N;
  const std::int64_t whole = C == category::i ? N : M;
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  // One MPI_MAX gives the first failing rank (as -rank) and min / max of the rest.
  std::int64_t mine[5] = {own.empty() ? none : -std::int64_t(rank), whole, -whole, std::int64_t(acc_bytes),
                          -std::int64_t(acc_bytes)};
  std::int64_t agreed[5];
  if (!check_mpi(MPI_Allreduce(mine, agreed, 5, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce")) return false;
  s = slice{0, 0};
  if (!check_mpi(MPI_Exscan(&local, &s.offset, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan")) return false;
  if (rank == 0) s.offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  if (!check_mpi(MPI_Allreduce(&local, &s.total, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce")) return false;

  if (!own.empty()) return kops::detail::report(own);
  if (agreed[0] != none)
    return kops::detail::fail(
        "%s: rank %lld rejected its arguments (its kops::error says why); no rank evaluated the reduction", where,
        (long long)-agreed[0]);
  const char* name = C == category::i ? "N (the number of j rows" : "M (the number of i rows";
  const char* split = C == category::i ? "i" : "j";
  if (agreed[1] != -agreed[2])
    return kops::detail::fail(
        "%s: the ranks disagree on %s, which every rank passes whole when the %s axis is split): from %lld to %lld",
        where, name, split, (long long)-agreed[2], (long long)agreed[1]);
  if (agreed[3] != -agreed[4])
    return kops::detail::fail(
        "%s: the ranks' partial accumulators differ in size (%lld to %lld bytes per block of rows): every rank "
        "must run a build with the same SIMD width, the same KOPS_CPU_UNROLL and the same policies",
        where, (long long)-agreed[4], (long long)agreed[3]);
  const auto& info = kops::detail::call_info_of<Red>::value;
  const std::int64_t rows = Red::row_cat == category::i ? M : N;
  if (Red::red_cat == C && rows > 0 && s.total < info.min_terms)
    return kops::detail::fail(
        "%s: %s<%lld> needs at least %lld terms per output row, but the split axis has %lld on all ranks together",
        where, info.reduction, (long long)info.min_terms, (long long)info.min_terms, (long long)s.total);
  return true;
}

// Bytes of the partial accumulators of Red's passes that merge across ranks.
template <class Pol, category C, class Red, class T, class Out>
constexpr std::size_t acc_bytes() {
  if constexpr (is_chained_v<Red>) {
    using First = typename Red::first;
    return acc_bytes<Pol, C, First, T, typename First::op::template out_t<T>>() +
           acc_bytes<Pol, C, typename Red::second, T, Out>();
  } else if constexpr (Red::red_cat == C) {
    // Per block of rows: the slot size times the slots per block (the SIMD
    // width and KOPS_CPU_UNROLL both set the layout the ranks must share).
    using Part = kokkos::detail::partial<Red, T, Out, Pol>;
    return sizeof(typename Part::slot) * std::size_t(Part::packs(1));
  } else {
    return 0;
  }
}

// kops::mpi for the front end (detail/dispatch.hpp): a pass that reduces over
// the split axis C merges every rank's partial accumulators; any other pass
// runs on this rank's rows alone, as kops::kokkos::eval's. Temporaries (the
// first pass of a two-pass gradient) are host arrays of this rank's rows of
// First's row category. launch is false after a reported MPI failure (only
// without exceptions; `out` is written only after the last MPI call, so it is
// then untouched).
template <category C>
struct mpi_backend {
  const char* where = detail::where;
  MPI_Comm comm;
  slice s;

  template <class T, class F>
  bool with_temporary(std::size_t n, F&& f) {
    return kokkos::detail::host_temporary<T>(*this, n, f);
  }

  // Every rank's slots merged in rank order into every rank's (MPI_Allreduce
  // with the reduction's combine); false after a reported MPI failure.
  template <class Part>
  bool merge_slots(std::vector<typename Part::slot>& slots) {
    bytes_type type(sizeof(typename Part::slot));
    if (!type.ok()) return false;
    user_op op(&combine_slots<Part>, false);
    if (!op.ok()) return false;
    constexpr std::int64_t most = std::numeric_limits<int>::max();  // MPI counts are int
    for (std::int64_t first = 0; first < std::int64_t(slots.size()); first += most) {
      const int count = int(std::min<std::int64_t>(most, std::int64_t(slots.size()) - first));
      if (!check_mpi(MPI_Allreduce(MPI_IN_PLACE, slots.data() + first, count, type.get(), op.get(), comm),
                     "MPI_Allreduce"))
        return false;
    }
    return true;
  }

  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    if constexpr (Red::red_cat == C) {
      using Part = kokkos::detail::partial<Red, T, Out, Pol>;
      using slot = typename Part::slot;
      std::vector<slot> slots(std::size_t(Part::packs(e.rows)));
      Part::accumulate(typename Part::K{ptrs, nullptr, e.rows, e.cols, s.offset}, slots.data());
      if (!merge_slots<Part>(slots)) return false;
      Part::finalize(slots.data(), e.rows, out);
      return true;
    } else {
      // The rows are split and the reduced axis is whole here: a local pass.
      kokkos::detail::host_backend local(where, kokkos::detail::host_exec{});
      return local.template launch<Pol, Red>(e, out, ptrs);
    }
  }

  // A block-sparse pass; e.sparsity: the structure in global indices (checked
  // on every rank, the same on every rank). Reducing over the split axis:
  // every rank folds the parts of the intervals in its slice into the partial
  // accumulators of the same row tiles (the structure's, so the same on every
  // rank), merged as above. Otherwise: the row blocks cut to this rank's rows.
  template <class Pol, class Red, class T, class Out>
  bool launch_ranged(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    const block_sparsity& g = *e.sparsity;
    const std::int64_t lo = s.offset, hi = s.offset + (C == category::i ? e.M : e.N);
    auto clip = [&](const range& r) {
      const std::int64_t b = std::clamp(r.begin, lo, hi), x = std::clamp(r.end, lo, hi);
      return range{b - lo, x - lo};
    };
    if constexpr (Red::red_cat == C) {
      std::vector<range> mine(std::size_t(kops::detail::sparsity_intervals(g)));
      for (std::size_t t = 0; t < mine.size(); ++t) mine[t] = clip(g.reduced[t]);
      using Part = kokkos::detail::partial<Red, T, Out, Pol>;
      using K = typename Part::K;
      using slot = typename Part::slot;
      const std::vector<kokkos::detail::row_tile> tiles = kokkos::detail::row_tiles(g, K::rows_per_block);
      std::vector<slot> slots(tiles.size() * K::U);
      kokkos::detail::ranged_partial<Part>(K{ptrs, out, e.rows, e.cols, s.offset}, g, mine.data(), tiles,
                                           slots.data());
      if (!merge_slots<Part>(slots)) return false;
      kokkos::detail::ranged_finalize<Part>(K{ptrs, out, e.rows, e.cols, s.offset}, g, tiles, slots.data());
      return true;
    } else {
      std::vector<range> mine(std::size_t(g.row_blocks));
      for (std::int64_t k = 0; k < g.row_blocks; ++k) mine[std::size_t(k)] = clip(g.rows[k]);
      block_sparsity local_s = g;
      local_s.rows = mine.data();
      kops::detail::pass_extent local_e = e;
      local_e.sparsity = &local_s;
      kokkos::detail::host_backend local(where, kokkos::detail::host_exec{});
      return local.template launch_ranged<Pol, Red>(local_e, out, ptrs);
    }
  }
};

// A 63-bit FNV-1a hash of a structure's numbers: ranks that pass different
// structures are told so instead of merging accumulators of different tiles.
inline std::int64_t sparsity_hash(const block_sparsity& g) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::int64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((std::uint64_t(v) >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  mix(g.row_blocks);
  mix(std::int64_t(g.axis));
  const std::int64_t n = g.row_blocks > 0 && g.rows && g.slices ? g.row_blocks : 0;
  for (std::int64_t k = 0; k < n; ++k) mix(g.rows[k].begin), mix(g.rows[k].end), mix(g.slices[k]);
  const std::int64_t t = n > 0 && g.slices[n - 1] > 0 && g.reduced ? g.slices[n - 1] : 0;
  for (std::int64_t k = 0; k < t; ++k) mix(g.reduced[k].begin), mix(g.reduced[k].end);
  return std::int64_t(h >> 1);
}

// The structure g (global indices: Mg i rows, Ng j rows) checked on every
// rank, and the same on every rank; either every rank reports or none does.
template <class Red>
[[nodiscard]] bool check_sparsity_collectively(MPI_Comm comm, const block_sparsity& g, std::int64_t Mg,
                                               std::int64_t Ng) {
  int rank = 0;
  if (!check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank")) return false;
  kops::detail::message own;
  const bool ok = kops::detail::check_sparsity_for<Red>(where, g, Mg, Ng, &own);
  // Hashed only when valid (an invalid one may hold pointers that must not be read).
  const std::int64_t h = ok ? sparsity_hash(g) : 0;
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  std::int64_t mine[3] = {own.empty() ? none : -std::int64_t(rank), h, -h};
  std::int64_t agreed[3];
  if (!check_mpi(MPI_Allreduce(mine, agreed, 3, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce")) return false;
  if (!own.empty()) return kops::detail::report(own);
  if (agreed[0] != none)
    return kops::detail::fail(
        "%s: rank %lld rejected its block_sparsity (its kops::error says why); no rank evaluated the reduction", where,
        (long long)-agreed[0]);
  if (agreed[1] != -agreed[2])
    return kops::detail::fail(
        "%s: the ranks pass different block_sparsity structures; every rank passes the same one, in global indices",
        where);
  return true;
}

// The communicator of a kops::mpi::eval call: a trailing option of the eval
// front end (detail/dispatch.hpp), appended by kops::mpi::eval after the
// user's, which carries it to mpi_entry.
struct communicator {
  MPI_Comm comm = MPI_COMM_NULL;
};

// kops::mpi::eval for the eval front end (detail/dispatch.hpp, eval_call),
// which checks the call at compile time and splits its options off; the
// run-time checks are this call's (own_checks): every rank's arguments
// checked and agreed on (check_collectively), a block_sparsity checked and
// compared across ranks, then the passes on mpi_backend. call() is false after
// a reported failure (only without exceptions; `out` then untouched).
template <category C>
struct mpi_entry {
  using option_types = type_list<block_sparsity, communicator>;
  static constexpr bool own_call = true;
  static constexpr bool own_checks = true;
  const char* where;
  MPI_Comm comm;

  mpi_entry(const char* w, const kops::detail::option_set<block_sparsity, communicator>& o)
      : where(w), comm(kops::detail::get_option<communicator>(o).comm) {}

  template <class Pol, class Red, bool Ranged, bool Batched, class T, class Out>
  [[nodiscard]] bool call(std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                          const kops::detail::call_form& form) {
    constexpr bool wide = !kops::detail::is_16bit_v<T>;
    static_assert(wide, "kops::mpi::eval takes float or double arrays (16-bit storage: kops::kokkos::eval)");
    if constexpr (wide) {
      slice s{0, 0};
      if (!check_collectively<Red, C>(comm, M, N, out, ptrs, acc_bytes<Pol, C, Red, T, Out>(), s)) return false;
      mpi_backend<C> be{where, comm, s};
      if constexpr (Ranged) {
        const block_sparsity& g = *form.sparsity;
        // The structure's indices are global: the split axis has s.total.
        const std::int64_t Mg = C == category::i ? s.total : M, Ng = C == category::j ? s.total : N;
        if (!check_sparsity_collectively<Red>(comm, g, Mg, Ng)) return false;
        return kops::detail::run_checked_sparse_passes<Pol, Red>(be, M, N, out, ptrs, g);
      } else {
        return kops::detail::run_passes<Pol, Red>(be, M, N, out, ptrs);
      }
    } else {
      return false;
    }
  }
};

} // namespace detail

/// \brief Evaluates `red` over data whose `split` axis is cut into consecutive
/// per-rank slices (rank order); collective over `comm`.
///
/// out:(rows, red.dim). M, N: this rank's sizes (its slice on the split axis,
/// the whole other axis, equal on every rank); args: its slices of the split
/// axis' variables, the whole other arrays and parameters. Splitting the
/// reduced axis merges every rank's partial accumulators (MPI_Allreduce with
/// the reduction's combine, in rank order: indices are global, ties go to the
/// lowest index) and every rank receives the whole output; splitting the
/// output rows' axis evaluates each rank's rows locally. Policy: as
/// kops::kokkos::eval's. Throws kops::error on every rank when any rank's
/// arguments are bad or the ranks disagree (never a hang). Without exceptions
/// (-fno-exceptions, KOPS_NO_EXCEPTIONS) every rank calls the
/// kops::set_error_handler handler instead and returns, `out` untouched.
template <auto... Policy, ReductionType Red, category C, class Out, class... Rest>
void eval(Red red, MPI_Comm comm, split_tag<C>, std::int64_t M, std::int64_t N, Out* out, const Rest&... rest) {
  constexpr bool unbatched = !((std::is_same_v<Rest, batch> || kops::detail::is_per_batch_v<Rest>) || ...);
  static_assert(unbatched, "kops::mpi::eval does not take batches (kops::batch, kops::per_batch): "
                           "give each rank its own batches and call kops::kokkos::eval there");
  if constexpr (unbatched)
    kops::detail::eval_call<detail::mpi_entry<C>, Policy...>(detail::where, red, M, N, out, rest...,
                                                             detail::communicator{comm});
}

/// \brief kops::mpi::eval with the reduced axis split: j for an axis_j
/// reduction, i for axis_i (the usual case: a kernel sum or a nearest-neighbour
/// search over points held by many processes).
template <auto... Policy, ReductionType Red, class Out, class... Rest>
void eval(Red red, MPI_Comm comm, std::int64_t M, std::int64_t N, Out* out, const Rest&... rest) {
  eval<Policy...>(red, comm, split_tag<Red::red_cat>{}, M, N, out, rest...);
}

/// The range form (detail/sized.hpp): eval(red, comm[, split], out, x, y, ...)
/// with std::span, std::vector or std::array in place of (M, N, out, pointers):
/// this rank's M and N deduced from its ranges, each range's size checked on
/// this rank (a kops::error naming the argument, the size expected and the
/// size given), then the pointer form, whose checks every rank makes together.
template <auto... Policy, ReductionType Red, category C, kops::detail::SizedArgument O, class... Rest>
void eval(Red red, MPI_Comm comm, split_tag<C> split, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, false>(
      detail::where, -1, -1, [&](kops::detail::message& own) { return detail::agree_on_ranges(comm, own); },
      [&](auto... a) { eval<Policy...>(red, comm, split, a...); }, out, rest...);
}
/// The range form with the reduced axis split (see above).
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval(Red red, MPI_Comm comm, O&& out, const Rest&... rest) {
  eval<Policy...>(red, comm, split_tag<Red::red_cat>{}, out, rest...);
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!Evaluable<F>)
void eval(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
}

} // namespace kops::mpi
