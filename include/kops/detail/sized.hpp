// Arguments that carry their extent: the size-carrying call form of every
// eval and solve entry point (DESIGN.md, third wave).
//
//   kops::kokkos::eval(red, std::span(out), std::span(x), std::span(y), ...[, options])
//   kops::kokkos::eval(red, M, N, std::span(out), std::span(x), ...[, options])
//
// In place of (M, N, out, pointers...), the call passes contiguous ranges:
// std::span and what converts to it (std::vector, std::array, a C array), and
// whatever a backend adds through sized_traits (the Kokkos backend: a
// Kokkos::View of rank 1 or 2, LayoutRight, host space). M and N are deduced
// from the variables' ranges (a variable's range holds rows x dim values), or
// from the output's where no variable is on that axis; given explicitly, they
// are checked like the rest. Every range is checked against them before the
// pointer form runs (check_extents: a kops::error naming the argument, the
// size expected and the size given), so a call in this form never writes past
// its output or reads past an input. The pointer form's checks then run as
// usual (null pointers, an output overlapping an input).
#pragma once

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <utility>

#include <kops/core/batch.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/detail/dispatch.hpp>

namespace kops::detail {

// How a range argument is read: data(a) (a pointer to its first element),
// size(a) (its number of elements) and cols(a) (its number of columns when it
// has two dimensions, else -1). The primary template is undefined: a type with
// no specialisation is not a range argument (a pointer, an option).
template <class A> struct sized_traits;

// Contiguous, sized ranges: std::span, std::vector, std::array, C arrays.
template <class A>
  requires std::ranges::contiguous_range<A> && std::ranges::sized_range<A>
struct sized_traits<A> {
  template <class R> static auto data(R&& a) { return std::ranges::data(a); }
  template <class R> static std::int64_t size(R&& a) { return std::int64_t(std::ranges::size(a)); }
  template <class R> static std::int64_t cols(R&&) { return -1; }
};

template <class A>
concept SizedArgument = requires(A& a) { sized_traits<std::remove_cvref_t<A>>::data(a); };

template <class A> using sized_pointer_t = decltype(sized_traits<std::remove_cvref_t<A>>::data(std::declval<A&>()));

// Number of leading range arguments among a call's trailing arguments.
template <class... Rest>
constexpr std::size_t leading_ranges() {
  constexpr bool is_range[] = {SizedArgument<const Rest>..., false};
  std::size_t k = 0;
  while (k < sizeof...(Rest) && is_range[k]) ++k;
  return k;
}

// An argument's extent, as the checks need it: values held, columns (-1: one
// dimension) -- and whether the slot is the call's unknown (solve: b).
struct extent {
  std::int64_t size = 0, cols = -1;
};
template <class A>
extent extent_of_range(const A& a) {
  using Tr = sized_traits<std::remove_cvref_t<A>>;
  return {Tr::size(a), Tr::cols(a)};
}

// What the output of a call is, for the checks: its category (the rows it has:
// i or j), the components of a row, and its name in messages.
struct output_shape {
  category cat;
  int dim;
  const char* name;     // "the output", "the solution a"
  bool square = false;  // M = N (a solve's K): one gives the other
};

// Where M or N came from, for messages.
struct axis_size {
  std::int64_t value = -1;  // -1: not known yet
  int from = -3;            // -2: given, -1: the output, k >= 0: argument k
  int from_dim = 0;
  category from_cat = category::i;
};

// "(M = 100 from argument 0, vi<0,3>)" and the like, into buf.
inline void describe_axis(char (&buf)[96], char axis, const axis_size& a) {
  if (a.from == -2)
    std::snprintf(buf, sizeof buf, "%c = %lld, as given", axis, (long long)a.value);
  else if (a.from == -1)
    std::snprintf(buf, sizeof buf, "%c = %lld, from the output", axis, (long long)a.value);
  else
    std::snprintf(buf, sizeof buf, "%c = %lld, from argument %d (%s<%d,%d>)", axis, (long long)a.value, a.from,
                  variable_prefix(a.from_cat), a.from, a.from_dim);
}

// Rows of a range that holds `e` values of `dim` components, with the
// column count checked; -1 after a reported problem. `what` names it.
[[nodiscard]] inline std::int64_t rows_of(const char* where, const char* what, const extent& e, int dim,
                                          message* why) {
  if (e.cols >= 0 && e.cols != dim) {
    (void)reject(why, "%s: %s has %lld columns, expected %d", where, what, (long long)e.cols, dim);
    return -1;
  }
  if (dim == 0) return 0;
  if (e.size % dim != 0) {
    (void)reject(why, "%s: %s holds %lld values, not a whole number of rows of %d", where, what, (long long)e.size,
                 dim);
    return -1;
  }
  return e.size / dim;
}

// The sizes of a call in the range form: M and N deduced (or, >= 0, given) and
// every range checked against them (see the file comment). `out` is the
// output's (or the solution's) extent, args[k] argument k's. True with M and N
// set when every extent is right; else reported (see reject) and false.
[[nodiscard, gnu::noinline]] inline bool check_extents(const char* where, const call_info& c,
                                                       const output_shape& o, std::int64_t& M, std::int64_t& N,
                                                       const extent& out, const extent* args,
                                                       message* why = nullptr) {
  axis_size ax[2];  // [0]: M (i rows), [1]: N (j rows)
  if (M >= 0) ax[0] = {M, -2};
  if (N >= 0) ax[1] = {N, -2};
  char what[64], source[96];
  auto name = [&](const slot_info& s) {
    std::snprintf(what, sizeof what, "argument %d (%s<%d,%d>)", s.index, variable_prefix(s.cat), s.index, s.dim);
    return what;
  };
  // Deduce from the variables, then from the output.
  for (int k = 0; k < c.nslots; ++k) {
    const slot_info& s = c.slots[k];
    if (!s.used || s.cat == category::param) continue;
    axis_size& a = ax[s.cat == category::i ? 0 : 1];
    if (a.value >= 0) continue;
    const std::int64_t rows = rows_of(where, name(s), args[s.index], s.dim, why);
    if (rows < 0) return false;
    a = {rows, s.index, s.dim, s.cat};
  }
  axis_size& ao = ax[o.cat == category::i ? 0 : 1];
  if (ao.value < 0) {
    const std::int64_t rows = rows_of(where, o.name, out, o.dim, why);
    if (rows < 0) return false;
    ao = {rows, -1};
  }
  if (o.square && ax[0].value < 0) ax[0] = ax[1];
  if (o.square && ax[1].value < 0) ax[1] = ax[0];
  // (A formula that reads no variable of an axis and has no output rows on it
  // needs M and N given: range_call refuses it at compile time.)
  if (ax[0].value < 0 || ax[1].value < 0)
    return reject(why, "%s: %c cannot be deduced from the ranges; pass M and N before the output", where,
                  ax[0].value < 0 ? 'M' : 'N');
  // Check every range against them.
  for (int k = 0; k < c.nslots; ++k) {
    const slot_info& s = c.slots[k];
    if (!s.used) continue;
    const extent& e = args[s.index];
    if (s.cat == category::param) {
      if (e.size != s.dim || (e.cols >= 0 && e.cols != s.dim))
        return reject(why, "%s: %s holds %lld values, expected %d", where, name(s), (long long)e.size, s.dim);
      continue;
    }
    const bool on_i = s.cat == category::i;
    const axis_size& a = ax[on_i ? 0 : 1];
    if (e.cols >= 0 && e.cols != s.dim)
      return reject(why, "%s: %s has %lld columns, expected %d", where, name(s), (long long)e.cols, s.dim);
    if (e.size / (s.dim > 0 ? s.dim : 1) != a.value || e.size != a.value * s.dim) {
      describe_axis(source, on_i ? 'M' : 'N', a);
      return reject(why, "%s: %s holds %lld values, expected %c x %d = %lld (%s)", where, name(s),
                    (long long)e.size, on_i ? 'M' : 'N', s.dim, (long long)(a.value * s.dim), source);
    }
  }
  const bool on_i = o.cat == category::i;
  if ((out.cols >= 0 && out.cols != o.dim) || out.size != ao.value * o.dim) {
    describe_axis(source, on_i ? 'M' : 'N', ao);
    if (out.cols >= 0 && out.cols != o.dim)
      return reject(why, "%s: %s has %lld columns, expected %d", where, o.name, (long long)out.cols, o.dim);
    return reject(why, "%s: %s holds %lld values, expected %c x %d = %lld: one row per %c row (%s)", where, o.name,
                  (long long)out.size, on_i ? 'M' : 'N', o.dim, (long long)(ao.value * o.dim), on_i ? 'i' : 'j',
                  source);
  }
  M = ax[0].value;
  N = ax[1].value;
  return true;
}

// Whether a call of Red in the range form can deduce M (C = i) or N (C = j):
// a variable of that axis is read, or the output's rows are on it.
template <class Red, category C>
constexpr bool deducible_axis() {
  bool read = false;
  for (const slot_info& s : call_info_of<Red>::slots.s) read = read || (s.used && s.cat == C);
  return Red::row_cat == C || read;
}

// The range form's compile-time rules: the count of ranges (one per argument
// index), no batches; true when they hold.
template <class Red, bool Given, class... Rest>
constexpr bool check_range_call() {
  constexpr int P = int(leading_ranges<Rest...>());
  constexpr bool count = arguments_expected<Red::nargs>::template given<P>;
  static_assert(arguments_expected<Red::nargs>::template given<P>,
                "kops::eval: in the range form, pass one range per argument index of the formula (0 .. max "
                "index), in index order, after the output range -- std::span, std::vector, std::array, or on "
                "the Kokkos backend a Kokkos::View -- then the options (the note below says how many ranges "
                "were expected and how many given)");
  constexpr bool unbatched = !((std::is_same_v<Rest, batch> || is_per_batch_v<Rest>) || ...);
  static_assert(unbatched, "kops::eval: the range form takes no kops::batch yet: pass pointers (M, N, out, "
                           "per_batch(px), ...) for a batched call");
  constexpr bool deducible = Given || (deducible_axis<Red, category::i>() && deducible_axis<Red, category::j>());
  static_assert(deducible, "kops::eval: the range form cannot deduce M or N here (the formula reads no "
                           "variable of that axis, and the output's rows are on the other): pass M and N before "
                           "the output, eval(red, M, N, out, args...)");
  return count && unbatched && deducible;
}

// The range form of an entry: checks the extents (check_extents, with the
// output's shape `shape`), then calls `entry(M, N, out pointer, pointers...,
// options...)` -- the entry's pointer form. M, N: given (>= 0) or -1 to
// deduce. `agree`: nullptr (a failed check is reported here), or a callable
// agree(message& own) -> bool that learns every process's outcome (own: this
// one's message, empty when its extents are right) and reports (kops::mpi).
// Returns entry's result, or R{} after a reported failure.
template <class R, class Red, class Agree, class Entry, class O, class... Rest>
R range_call(const char* where, const output_shape& shape, std::int64_t M, std::int64_t N, Agree&& agree,
             Entry&& entry, O&& out, const Rest&... rest) {
  constexpr std::size_t P = leading_ranges<Rest...>();
  return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) -> R {
    const extent args[P + 1] = {extent_of_range(nth_argument<I>(rest...))..., extent{}};
    bool ok;
    if constexpr (std::is_null_pointer_v<std::remove_cvref_t<Agree>>) {
      ok = check_extents(where, call_info_of<Red>::value, shape, M, N, extent_of_range(out), args);
    } else {
      message own;
      (void)check_extents(where, call_info_of<Red>::value, shape, M, N, extent_of_range(out), args, &own);
      ok = agree(own);
    }
    if (!ok) {
      if constexpr (std::is_void_v<R>) return;
      else return R{};
    }
    return entry(M, N, sized_traits<std::remove_cvref_t<O>>::data(out),
                 sized_traits<std::remove_cvref_t<decltype(nth_argument<I>(rest...))>>::data(nth_argument<I>(rest...))...,
                 nth_argument<P + J>(rest...)...);
  }(std::make_index_sequence<P>{}, std::make_index_sequence<sizeof...(Rest) - P>{});
}

// The range form of an eval entry (Given: M and N were passed): `entry` is
// called as the pointer form, entry(M, N, out, pointers..., options...).
// (`agree`: see range_call.)
template <class Red, bool Given, class Agree, class Entry, class O, class... Rest>
void eval_range_call(const char* where, std::int64_t M, std::int64_t N, Agree&& agree, Entry&& entry, O&& out,
                     const Rest&... rest) {
  if constexpr (check_range_call<Red, Given, Rest...>())
    range_call<void, Red>(where, {Red::row_cat, call_info_of<Red>::value.out_dim, "the output"}, M, N, agree, entry,
                          out, rest...);
}

// The range form of a solve entry: `a` the solution's range (the unknown V's
// rows); `entry` is called as the pointer form, entry(M, N, a, pointers...,
// options...). M = N: either axis gives the other.
template <class Red, class V, class R, class Entry, class A, class... Rest>
R solve_range_call(const char* where, std::int64_t M, std::int64_t N, Entry&& entry, A&& a, const Rest&... rest) {
  if constexpr (check_range_call<Red, true, Rest...>())
    return range_call<R, Red>(where, {V::cat, V::dim, "the solution a", true}, M, N, nullptr, entry, a, rest...);
  else
    return R{};
}

} // namespace kops::detail
