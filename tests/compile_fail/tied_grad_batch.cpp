// expect: the gradient w.r.t. a kops::tied cloud \(a kops::TiedSum\) takes no batches
// The temporary of a tied eval holds one problem.
#include <kops/kops.hpp>
#include <kops/backends/kokkos/tied.hpp>

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto e = kops::vi<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);

void f(const double* px, const double* pb, const double* pe, double* out) {
  kops::kokkos::eval(kops::grad(conv, kops::tied(x, y), e), 10, 10, out, px, px, pb, pe, kops::batch{2});
}
