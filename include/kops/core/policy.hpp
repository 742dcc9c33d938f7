// The compile-time policies of one eval call, gathered: policy<precision,
// sum_scheme, dtype_acc, tensor_cores> (each from its own header), and
// detail::policy_of_t, which turns eval's template arguments -- any of the
// four kinds, in any order, each at most once (detail::valid_policies_v) --
// into that policy, unnamed kinds at their defaults. The front end
// (detail/dispatch.hpp) checks and builds it; kernels read it as Pol::prec,
// Pol::scheme, Pol::acc and Pol::tc.
#pragma once

#include <type_traits>

#include <kops/core/dtype_acc.hpp>
#include <kops/core/precision.hpp>
#include <kops/core/sum_scheme.hpp>
#include <kops/core/tensor_cores.hpp>

namespace kops {

/// The compile-time policies of one eval call: its template arguments, in any
/// order, each at most once, e.g.
///
/// ```text
///   kops::kokkos::eval(red, M, N, out, args...);                                  // defaults
///   kops::kokkos::eval<kops::precision::fast>(red, M, N, out, args...);
///   kops::kokkos::eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(red, M, N, out, args...);
///   kops::cuda::eval<kops::precision::fast, kops::sum_scheme::direct>(red, M, N, out, dargs..., opts);
/// ```
///
/// ```text
///   kops::precision   accurate (default) | fast          core/precision.hpp
///   kops::sum_scheme  direct | block (default) | kahan   core/sum_scheme.hpp
///   kops::dtype_acc   same (default) | float64           core/dtype_acc.hpp
///   kops::tensor_cores automatic (default) | off         core/tensor_cores.hpp (GPU only)
/// ```
///
/// A policy that is not named costs nothing: each combination is its own
/// instantiation of the kernel.
template <precision P, sum_scheme S, dtype_acc A, tensor_cores TC = tensor_cores::automatic>
struct policy {
  static constexpr precision prec = P;
  static constexpr sum_scheme scheme = S;
  static constexpr dtype_acc acc = A;
  static constexpr tensor_cores tc = TC;
};

namespace detail {

template <class T, auto... Pol>
inline constexpr int policy_count_v = (0 + ... + int(std::is_same_v<decltype(Pol), T>));

// Every template argument of eval is one of the four policy kinds, each kind at most once.
template <auto... Pol>
inline constexpr bool valid_policies_v =
    ((std::is_same_v<decltype(Pol), precision> || std::is_same_v<decltype(Pol), sum_scheme> ||
      std::is_same_v<decltype(Pol), dtype_acc> || std::is_same_v<decltype(Pol), tensor_cores>) && ...) &&
    policy_count_v<precision, Pol...> <= 1 && policy_count_v<sum_scheme, Pol...> <= 1 &&
    policy_count_v<dtype_acc, Pol...> <= 1 && policy_count_v<tensor_cores, Pol...> <= 1;

// The policy of kind T among Pol..., or Default.
template <class T, T Default, auto... Pol>
constexpr T pick_policy() {
  T r = Default;
  ([&] {
    if constexpr (std::is_same_v<decltype(Pol), T>) r = Pol;
  }(), ...);
  return r;
}

template <auto... Pol>
using policy_of_t = policy<pick_policy<precision, precision::accurate, Pol...>(),
                           pick_policy<sum_scheme, default_sum_scheme, Pol...>(),
                           pick_policy<dtype_acc, dtype_acc::same, Pol...>(),
                           pick_policy<tensor_cores, tensor_cores::automatic, Pol...>()>;

} // namespace detail
} // namespace kops
