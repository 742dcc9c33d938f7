// expect: kops::solve_grad: the gradient with respect to the unknown's slot \(b\) is the adjoint solve
// The unknown's slot holds b: its gradient is another solve, not a reduction.
#include <kops/kops.hpp>
#include <kops/solve/grad.hpp>

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto e = kops::vi<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
constexpr auto bad = kops::solve_grad(conv, b, b, e);
