// The Gaussian sum and its gradient w.r.t. x, instantiated on the Kokkos backend.
#include <kops/kokkos.hpp>

#include <utility>
#include <vector>

#ifndef ORDER
#define ORDER 1
#endif

namespace {
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
// d1 = grad(conv, x, e1) with e1 = vi<4,1>; d_{n+1} = grad(d_n, x, vi<4+n, 3>).
template <int N> constexpr auto derivative() {
  if constexpr (N == 0) return conv;
  else if constexpr (N == 1) return kops::grad(conv, x, kops::vi<4, 1>);
  else return kops::grad(derivative<N - 1>(), x, kops::vi<3 + N, 3>);
}
} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<float> p(64 * 3, 0.5f), out(64 * 3);
  const float* a = p.data();
  kops::kokkos::eval(conv, 64, 64, out.data(), a, a, a, a);
  [&]<int... I>(std::integer_sequence<int, I...>) {
    kops::kokkos::eval(derivative<ORDER>(), 64, 64, out.data(), a, a, a, a, ((void)I, a)...);
  }(std::make_integer_sequence<int, ORDER>{});
  return 0;
}
