// Argument handling shared by the backends: element type deduction, run-time
// checks of sizes and pointers, and the layout of row-variable tiles.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <kops/core/error.hpp>
#include <kops/core/half.hpp>
#include <kops/detail/storage.hpp>
#include <kops/core/variables.hpp>
#include <kops/reductions/value_index.hpp>

namespace kops::detail {

// The compile-time rules' notes: g++ follows a failed static_assert with
// "note: 'X' evaluates to false", and these names make X say what was
// expected and what was given, e.g. arguments_expected<4>::given<3>, or
// same_element_type<argument<0, float>, argument<2, double>>.
template <int Expected>
struct arguments_expected {
  template <int Given> static constexpr bool given = Expected == Given;
};
template <int I, class T> struct argument {};
template <class First, class Other> inline constexpr bool same_element_type = false;
template <int I, int J, class T>
inline constexpr bool same_element_type<argument<I, T>, argument<J, T>> = true;

// The first argument whose element type differs from argument 0's, as
// argument<index, type> (argument<0, T> when all agree).
template <class T, class... Ts>
constexpr int first_other_element() {
  constexpr bool same[] = {std::is_same_v<std::remove_cv_t<T>, std::remove_cv_t<Ts>>..., false};
  for (int k = 0; k < int(sizeof...(Ts)); ++k)
    if (!same[k]) return k + 1;
  return 0;
}
template <int K, class T, class... Ts>
using nth_type_t = typename type_list<T, Ts...>::template at<K>;

template <class T, class... Ts>
struct common_element {
  static constexpr int other = first_other_element<T, Ts...>();
  static_assert(same_element_type<argument<0, std::remove_cv_t<T>>,
                                  argument<other, std::remove_cv_t<nth_type_t<other, T, Ts...>>>>,
                "kops::eval: all argument pointers must have the same element type (the note below names "
                "argument 0's and the first that differs)");
  using type = std::remove_cv_t<T>;
  static_assert(std::is_same_v<type, float> || std::is_same_v<type, double> || is_16bit_v<type>,
                "kops::eval: arguments must be float, double, kops::half or kops::bfloat16 arrays");
};
template <class... Ts> using common_element_t = typename common_element<Ts...>::type;

// The element type of a call: that of its arguments, or, for a formula that
// reads no variable, that of its output: T for T* and kops::value_index<T>*,
// double for the std::int64_t* of an index reduction (nothing else says).
// (16-bit arguments compute in float: the output may be float, see
// check_eval_call; with no argument, a float output means float.)
template <class Out> struct output_element { using type = Out; };
template <class T> struct output_element<value_index<T>> { using type = T; };
template <> struct output_element<std::int64_t> { using type = double; };
template <class Out, class... Ts> struct call_element : common_element<Ts...> {};
template <class Out> struct call_element<Out> : common_element<typename output_element<std::remove_cv_t<Out>>::type> {};
template <class Out, class... Ts> using call_element_t = typename call_element<Out, Ts...>::type;

template <class S> inline constexpr bool is_unused_slot_v = false;
template <int I> inline constexpr bool is_unused_slot_v<Unused<I>> = true;

// The builder's name of a variable's category: the vi / vj / pm of "vj<1,3>".
inline const char* variable_prefix(category c) { return c == category::i ? "vi" : c == category::j ? "vj" : "pm"; }

// Sum of the dims of the slots of category C (the rows of a tile).
template <class Sig, category C> struct row_dims_impl;
template <category C, class... S>
struct row_dims_impl<type_list<S...>, C> {
  static constexpr int value = (0 + ... + [] {
    if constexpr (is_unused_slot_v<S>) return 0;
    else return S::cat == C ? S::dim : 0;
  }());
};
template <class Sig, category C>
constexpr int row_dims() { return row_dims_impl<Sig, C>::value; }

// Offset (in components) of argument I within the tile of category C.
template <class Sig, category C, int I> struct row_offset_impl;
template <category C, int I, class... S>
struct row_offset_impl<type_list<S...>, C, I> {
  static constexpr int value = (0 + ... + [] {
    if constexpr (is_unused_slot_v<S>) return 0;
    else return (S::cat == C && S::index < I) ? S::dim : 0;
  }());
};
template <class Sig, category C, int I>
constexpr int row_offset() { return row_offset_impl<Sig, C, I>::value; }

// tile[(offset_I + k) * L + l] = arg_I[row0 + l, k] for the slots of category C,
// in the compute type (storage.hpp: load_arg); lanes past `valid` repeat the
// last valid row so that every lane computes finite, harmless values.
template <class Sig, category C, int L, class Pol, class T>
void fill_tile(compute_t<T>* tile, const T* const* args, std::int64_t row0, int valid) {
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!is_unused_slot_v<S>) {
        if constexpr (S::cat == C) {
          constexpr int D = S::dim, off = row_offset<Sig, C, S::index>();
          const T* src = args[S::index];
          for (int l = 0; l < L; ++l) {
            const std::int64_t row = (row0 + (l < valid - 1 ? l : valid - 1)) * D;
            for (int k = 0; k < D; ++k) tile[(off + k) * L + l] = load_arg<Pol, S::index>(src, row + k);
          }
        }
      }
    }(), ...);
  }(Sig{});
}

// What the run-time checks need to know of a reduction, as plain data, so
// that the checking code (string building included) is compiled once per
// translation unit rather than once per reduction.
struct slot_info {
  category cat;
  int index, dim;
  bool used;
};
struct call_info {
  const char* reduction;  // the op's name, for messages
  category row_cat, red_cat;
  std::int64_t min_terms;  // terms each reduced range needs (the k-min family: K)
  const slot_info* slots;
  int nslots;
  int out_dim;  // components per output row
};

template <int N>
struct slot_table {
  slot_info s[N];
};

template <class S>
constexpr slot_info slot_info_of() {
  if constexpr (is_unused_slot_v<S>) return {category::param, S::index, 0, false};
  else return {S::cat, S::index, S::dim, true};
}

// (A named table type: a lambda-local one gave these constants a linkage that
// ld rejected under -fsanitize, "defined in discarded section".)
template <class Red>
struct call_info_of {
  static constexpr auto slots = []<class... S>(type_list<S...>) {
    return slot_table<sizeof...(S) + 1>{{slot_info_of<S>()..., slot_info{category::param, -1, 0, false}}};
  }(typename Red::signature{});
  static constexpr std::int64_t min_terms = [] {
    if constexpr (requires { Red::op::min_terms; }) return std::int64_t(Red::op::min_terms);
    else return std::int64_t(0);
  }();
  static constexpr call_info value{Red::op::name, Red::row_cat, Red::red_cat, min_terms, slots.s,
                                   Red::signature::size, Red::dim};
};

// Bytes of an (n, dim) array of `size`-byte elements, saturating (an extent
// past the address space overlaps everything, which is then reported).
inline std::uint64_t extent_bytes(std::int64_t n, int dim, std::size_t size) {
  const std::uint64_t per_row = std::uint64_t(dim) * size;
  if (n <= 0 || per_row == 0) return 0;
  return std::uint64_t(n) > ~std::uint64_t(0) / per_row ? ~std::uint64_t(0) : std::uint64_t(n) * per_row;
}
// `bytes` times `batches` (>= 0), saturating like extent_bytes.
inline std::uint64_t times_batches(std::uint64_t bytes, std::int64_t batches) {
  if (batches <= 0 || bytes == 0) return 0;
  return bytes > ~std::uint64_t(0) / std::uint64_t(batches) ? ~std::uint64_t(0) : bytes * std::uint64_t(batches);
}
// Do [a, a + na) and [b, b + nb) share a byte? (Addresses compared as integers:
// the buffers are unrelated objects, for which < on pointers is unspecified.)
inline bool overlapping(const void* a, std::uint64_t na, const void* b, std::uint64_t nb) {
  if (na == 0 || nb == 0) return false;
  const std::uint64_t pa = std::uint64_t(reinterpret_cast<std::uintptr_t>(a));
  const std::uint64_t pb = std::uint64_t(reinterpret_cast<std::uintptr_t>(b));
  return pa < pb ? pb - pa < na : pa - pb < nb;
}

// Where a failed check goes: to kops::detail::report (kops::error thrown, or,
// without exceptions, the error handler called) when `why` is null; into *why
// when it is not (kops::mpi collects every rank's verdict before any rank
// reports). Returns false, the check's verdict; the message is built only here.
__attribute__((noinline, cold, format(printf, 2, 3))) inline bool reject(message* why, const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  message m = vformat(fmt, ap);
  va_end(ap);
  if (why == nullptr) return report(m);
  *why = static_cast<message&&>(m);
  return false;
}

// True when the sizes and pointers of a call are fine; else reports the first
// problem (see reject: `why` null reports it, else receives its message) and
// returns false.
[[nodiscard, gnu::noinline]] inline bool check_arguments_impl(const char* where, const call_info& c, std::int64_t M,
                                                               std::int64_t N, const void* out,
                                                               const void* const* args, message* why = nullptr) {
  // The message is built only on the error path: a successful call allocates
  // nothing (examples/embedded counts operator new in its time loop).
  if (M < 0) return reject(why, "%s: M (the number of i rows) must be >= 0, got %lld", where, (long long)M);
  if (N < 0) return reject(why, "%s: N (the number of j rows) must be >= 0, got %lld", where, (long long)N);
  const std::int64_t rows = c.row_cat == category::i ? M : N;
  if (rows > 0 && out == nullptr) return reject(why, "%s: the output pointer is null", where);
  // The k-min family needs K terms in every reduced range.
  const std::int64_t terms = c.red_cat == category::i ? M : N;
  if (rows > 0 && terms < c.min_terms)
    return reject(why, "%s: %s<%lld> needs at least %lld terms per output row, but the reduced axis has %s = %lld",
                  where, c.reduction, (long long)c.min_terms, (long long)c.min_terms,
                  c.red_cat == category::i ? "M" : "N", (long long)terms);
  for (int k = 0; k < c.nslots; ++k) {
    const slot_info& s = c.slots[k];
    if (!s.used) continue;
    const std::int64_t n = s.cat == category::i ? M : s.cat == category::j ? N : 1;
    if (n > 0 && args[s.index] == nullptr)
      return reject(why, "%s: argument %d (%s<%d,%d>) is a null pointer", where, int(s.index),
                    variable_prefix(s.cat), int(s.index), int(s.dim));
  }
  return true;
}

// The kernels read every input while they write the output (each reduced-axis
// row is read for every output row): an output that shares bytes with an input
// would change terms not yet read, so it is refused, in-place evaluation
// included. out_size, arg_size: sizeof the output and argument elements; a
// batched call (core/batch.hpp) has `batches` copies of the arguments marked
// per_batch and out_batches of the output.
// True when nothing overlaps; else reports (or, with `why`, returns the
// message, see reject) and returns false.
[[nodiscard, gnu::noinline]] inline bool check_no_overlap_impl(const char* where, const call_info& c,
                                                                std::int64_t M, std::int64_t N, const void* out,
                                                                const void* const* args, std::size_t out_size,
                                                                std::size_t arg_size, message* why = nullptr,
                                                                std::int64_t batches = 1,
                                                                const bool* per_batch = nullptr,
                                                                std::int64_t out_batches = 1) {
  const std::uint64_t out_bytes =
      times_batches(extent_bytes(c.row_cat == category::i ? M : N, c.out_dim, out_size), out_batches);
  // Sizes first: an extent past what any array can span is a wrong M or N,
  // not an overlap.
  constexpr std::uint64_t most = std::uint64_t(PTRDIFF_MAX);
  if (out_bytes > most)
    return reject(why, "%s: the output would span more bytes than any array can (%c x %d elements of %zu bytes, "
                  "M = %lld, N = %lld): M or N is wrong",
                  where, c.row_cat == category::i ? 'M' : 'N', c.out_dim, out_size, (long long)M, (long long)N);
  auto bytes_of = [&](const slot_info& s) {
    const std::int64_t n = s.cat == category::i ? M : s.cat == category::j ? N : 1;
    const std::int64_t copies = per_batch != nullptr && per_batch[s.index] ? batches : 1;
    return times_batches(extent_bytes(n, s.dim, arg_size), copies);
  };
  for (int k = 0; k < c.nslots; ++k) {
    const slot_info& s = c.slots[k];
    if (s.used && bytes_of(s) > most)
      return reject(why, "%s: argument %d (%s<%d,%d>) would span more bytes than any array can (M = %lld, N = "
                    "%lld): M or N is wrong",
                    where, int(s.index), variable_prefix(s.cat), int(s.index), int(s.dim), (long long)M,
                    (long long)N);
  }
  for (int k = 0; k < c.nslots; ++k) {
    const slot_info& s = c.slots[k];
    if (!s.used) continue;
    if (overlapping(out, out_bytes, args[s.index], bytes_of(s)))
      return reject(why,
                    "%s: the output array overlaps argument %d (%s<%d,%d>) with M = %lld, N = %lld; kops reads the "
                    "inputs while it writes the output, so the output needs its own buffer (or, if it has one, M or "
                    "N is larger than the arrays: the range form, std::span arguments, checks every size)",
                    where, int(s.index), variable_prefix(s.cat), int(s.index), int(s.dim), (long long)M,
                    (long long)N);
  }
  return true;
}

// Run-time checks common to every backend's eval: true when the call may run.
// Else throws kops::error naming the function (`where`) and the offending
// argument, or, without exceptions, calls the error handler and returns false:
// the caller then returns at once, `if (!check_arguments<Red>(...)) return;`.
template <class Red, class T, class Out>
[[nodiscard]] bool check_arguments(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                                   const T* const* args) {
  const void* untyped[Red::signature::size + 1] = {};
  for (int k = 0; k < Red::signature::size; ++k) untyped[k] = args[k];
  return check_arguments_impl(where, call_info_of<Red>::value, M, N, out, untyped);
}

// The output must not overlap any input the formula reads (see
// check_no_overlap_impl). Called by the backends' eval after check_arguments;
// true when the call may run (else reported, as by check_arguments).
template <class Red, class T, class Out>
[[nodiscard]] bool check_no_overlap(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                                    const T* const* args) {
  const void* untyped[Red::signature::size + 1] = {};
  for (int k = 0; k < Red::signature::size; ++k) untyped[k] = args[k];
  return check_no_overlap_impl(where, call_info_of<Red>::value, M, N, out, untyped, sizeof(Out), sizeof(T));
}

} // namespace kops::detail
