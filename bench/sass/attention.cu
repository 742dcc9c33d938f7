// Attention: sumsoftmaxweight_reduction(g <q_i, k_j>, v_j), q, k, v in R^D
// (SASS_D, default 64: a head's width; cases.sh's attention64, the formula of
// the scoreboard's scaled_dot_product_attention rows).
// KeOps (pykeops' reduction_op='SumSoftMaxWeight'):
// Max_SumShiftExpWeight_Reduction(G*(X|Y),0,Concat(IntCst(1),V)), X=Vi(D) Y=Vj(D)
// V=Vj(D) G=Pm(1); pykeops divides the weighted sums by the sum afterwards, on
// the host side.
#include "kops_sass.hpp"

#ifndef SASS_D
#define SASS_D 64
#endif

namespace {
constexpr auto q = kops::vi<0, SASS_D>;
constexpr auto k = kops::vj<1, SASS_D>;
constexpr auto v = kops::vj<2, SASS_D>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto attention = kops::sumsoftmaxweight_reduction(g * kops::dot(q, k), v, kops::axis_j);
} // namespace

void instantiate(kops_sass::T* out, const kops_sass::T* pq, const kops_sass::T* pk, const kops_sass::T* pv,
                 const kops_sass::T* pg) {
  kops_sass::instantiate(attention, out, pq, pk, pv, pg);
}
