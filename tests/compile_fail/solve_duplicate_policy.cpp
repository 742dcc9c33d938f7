// expect: kops::solve: the template arguments are policies, at most one of each kind
// solve takes eval's policies, and eval's rule on them: two precisions in one call.
#include <kops/kops.hpp>
#include <kops/backends/kokkos/solve.hpp>

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);

void f(const double* px, const double* pb, double* a) {
  kops::kokkos::solve<kops::precision::fast, kops::precision::accurate>(conv, b, 0.1, 10, 10, a, px, px, pb);
}
