// The compile-time price of kops::keops_reduction: the Gaussian sum on the Kokkos
// backend, built from its KeOps string (-DFROM_STRING=1) or from the C++ builders
// (-DFROM_STRING=0). Both give the same type (tests/static/keops_syntax.cpp), so the
// difference between the two compiles is the parse (docs/performance.md).
#include <kops/kokkos.hpp>

#include <vector>

#ifndef FROM_STRING
#define FROM_STRING 1
#endif

#if FROM_STRING
constexpr auto conv = kops::keops_reduction<"Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0)", "G=Pm(1)", "X=Vi(3)",
                                            "Y=Vj(3)", "B=Vj(1)">;
#else
constexpr auto conv = kops::sum_reduction(
    kops::exp(-kops::pm<0, 1> * kops::sqdist(kops::vi<1, 3>, kops::vj<2, 3>)) * kops::vj<3, 1>, kops::axis_j);
#endif

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<float> g{0.5f}, x(64 * 3, 0.5f), y(64 * 3, 0.25f), b(64, 1.0f), out(64);
  kops::kokkos::eval(conv, 64, 64, out.data(), g.data(), x.data(), y.data(), b.data());
  return int(out[0] < 0);
}
