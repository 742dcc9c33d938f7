// Dimensions known only at run time: a formula's dims are template arguments,
// so a program that reads its data's dimension from a file instantiates the
// kernels for a list of dimensions it supports and picks one when it runs.
//
//   kops::with_dim<1, 2, 3, 4, 8>(d, [&](auto D) { ... kops::vi<0, D> ... });
//   kops::with_dims<kops::dims<2, 3>, kops::dims<1, 4, 16>>(point_dim, feature_dim,
//                                                           [&](auto P, auto F) { ... });
//
// f receives std::integral_constant<int, D> for the listed D equal to d (usable
// as a template argument: kops::vi<0, D>, and D() or decltype(D)::value as a
// number); any other d is a kops::error naming the list. Each listed dimension
// instantiates f once: its kernels are compiled once per entry (per combination
// for with_dims), which is the compile-time price of the list
// (docs/performance.md, compile time).
#pragma once

#include <cstdio>
#include <type_traits>
#include <utility>

#include <kops/core/dims.hpp>
#include <kops/core/error.hpp>

namespace kops {

namespace detail {

template <int... Ds>
constexpr bool valid_dim_list() {
  constexpr int d[] = {Ds..., 0};
  if (sizeof...(Ds) == 0) return false;
  for (std::size_t a = 0; a < sizeof...(Ds); ++a) {
    if (d[a] < 1) return false;
    for (std::size_t b = 0; b < a; ++b)
      if (d[a] == d[b]) return false;
  }
  return true;
}

// "1, 2, 3": the list, for messages (built only on the error path).
template <int... Ds>
struct dim_list {
  char text[16 * sizeof...(Ds) + 1] = {};
  dim_list() {
    int n = 0;
    ((n += std::snprintf(text + n, sizeof text - std::size_t(n), n == 0 ? "%d" : ", %d", Ds)), ...);
  }
  const char* c_str() const { return text; }
};

// Reports d as outside the list (kops::error, or the handler without
// exceptions); `which` names the argument for with_dims ("" for with_dim).
template <int... Ds>
[[gnu::noinline, gnu::cold]] bool reject_dim(const char* where, int d, const char* which) {
  return fail("%s: dimension %d%s is not among the compiled ones (%s); add it to the list to support it", where, d,
              which, dim_list<Ds...>().c_str());
}

template <class F, int... Ds>
using with_dim_result_t = std::common_type_t<std::invoke_result_t<F&, std::integral_constant<int, Ds>>...>;

template <int... Ds, class F>
constexpr auto dispatch_dim(const char* where, const char* which, int d, F& f) -> with_dim_result_t<F, Ds...> {
  using R = with_dim_result_t<F, Ds...>;
  static_assert((std::is_same_v<std::invoke_result_t<F&, std::integral_constant<int, Ds>>, R> && ...),
                "kops::with_dim: f must return the same type for every dimension of the list");
  if constexpr (std::is_void_v<R>) {
    const bool found = ((d == Ds ? (void(f(std::integral_constant<int, Ds>{})), true) : false) || ...);
    if (!found) (void)reject_dim<Ds...>(where, d, which);
  } else {
    // (R is held, then returned: f's result is returned by value.)
    static_assert(std::is_default_constructible_v<R>,
                  "kops::with_dim: f's result must be default-constructible (what with_dim returns when d "
                  "is not in the list and the error handler returns, in a build without exceptions)");
    R r{};
    const bool found = ((d == Ds ? (void(r = f(std::integral_constant<int, Ds>{})), true) : false) || ...);
    if (!found) (void)reject_dim<Ds...>(where, d, which);
    return r;
  }
}

} // namespace detail

/// \brief Calls f(std::integral_constant<int, D>{}) for the D among Ds that
/// equals the run-time dimension d, and returns what f returns.
///
/// Ds: the dimensions compiled in (distinct, each >= 1). f is instantiated once
/// per entry and must return the same type for each (returned by value). A d
/// not in the list throws kops::error naming the list; in a
/// build without exceptions it calls the error handler (kops::set_error_handler)
/// and, if the handler returns, returns a value-initialised result without
/// calling f.
template <int... Ds, class F>
constexpr auto with_dim(int d, F&& f) {
  constexpr bool valid = detail::valid_dim_list<Ds...>();
  static_assert(valid, "kops::with_dim: list at least one dimension, each >= 1 and none twice");
  if constexpr (valid) return detail::dispatch_dim<Ds...>("kops::with_dim", "", d, f);
}

namespace detail {
// Which argument of with_dims a message is about.
inline constexpr const char* dims_argument[] = {" (the 1st)", " (the 2nd)", " (the 3rd)"};
template <class... Lists> struct with_dims_impl;
template <class L, class... Rest>
struct with_dims_impl<L, Rest...> {
  static_assert(sizeof(L) == 0, "kops::with_dims: each list of dimensions is a kops::dims<D...>");
};
template <>
struct with_dims_impl<> {
  template <class F, class... Picked>
  static constexpr decltype(auto) run(const int*, int, F& f, Picked... picked) {
    return f(picked...);
  }
};
template <int... Ds, class... Rest>
struct with_dims_impl<dims<Ds...>, Rest...> {
  static_assert(valid_dim_list<Ds...>(), "kops::with_dims: each list holds at least one dimension, each >= 1 and none twice");
  template <class F, class... Picked>
  static constexpr decltype(auto) run(const int* d, int k, F& f, Picked... picked) {
    auto next = [&](auto D) -> decltype(auto) { return with_dims_impl<Rest...>::run(d + 1, k + 1, f, picked..., D); };
    return dispatch_dim<Ds...>("kops::with_dims", dims_argument[k], *d, next);
  }
};
} // namespace detail

/// \brief with_dim over several run-time dimensions at once: calls
/// f(std::integral_constant<int, D1>{}, std::integral_constant<int, D2>{}, ...)
/// with each D_k taken from the k-th kops::dims list, equal to d_k.
///
/// ```text
///   with_dims<dims<2, 3>, dims<1, 4, 16>>(point_dim, feature_dim, [&](auto P, auto F) { ... })
/// ```
/// One, two or three lists. f is instantiated once per combination (the
/// product of the lists' lengths). A d_k outside its list is a kops::error
/// naming the argument and the list.
template <class L0, class F>
constexpr decltype(auto) with_dims(int d0, F&& f) {
  const int d[] = {d0};
  return detail::with_dims_impl<L0>::run(d, 0, f);
}
/// \brief kops::with_dims over two run-time dimensions (see the one-list form).
template <class L0, class L1, class F>
constexpr decltype(auto) with_dims(int d0, int d1, F&& f) {
  const int d[] = {d0, d1};
  return detail::with_dims_impl<L0, L1>::run(d, 0, f);
}
/// \brief kops::with_dims over three run-time dimensions (see the one-list form).
template <class L0, class L1, class L2, class F>
constexpr decltype(auto) with_dims(int d0, int d1, int d2, F&& f) {
  const int d[] = {d0, d1, d2};
  return detail::with_dims_impl<L0, L1, L2>::run(d, 0, f);
}

} // namespace kops
