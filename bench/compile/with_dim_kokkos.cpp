// The compile-time price of kops::with_dim: the Gaussian sum on the Kokkos
// backend, its dimension chosen at run time among NDIMS compiled ones (1 ..
// NDIMS). run.sh compiles it for NDIMS = 1, 4 and 8: the difference is the
// cost per listed dimension (docs/performance.md).
#include <kops/kokkos.hpp>

#include <utility>
#include <vector>

#ifndef NDIMS
#define NDIMS 1
#endif

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int d = argc > 1 ? argc : 1;
  std::vector<float> p(64 * NDIMS, 0.5f), out(64);
  [&]<int... I>(std::integer_sequence<int, I...>) {
    kops::with_dim<(I + 1)...>(d, [&](auto D) {
      constexpr auto x = kops::vi<0, D>;
      constexpr auto y = kops::vj<1, D>;
      constexpr auto g = kops::pm<2, 1>;
      kops::kokkos::eval(kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)), kops::axis_j), 64, 64, out.data(),
                         p.data(), p.data(), p.data());
    });
  }(std::make_integer_sequence<int, NDIMS>{});
  return int(out[0] < 0);
}
