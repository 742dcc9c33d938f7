// expect: kops::keops_reduction: at column 5, Exp: argument 1 is a reduction: a reduction is the outermost call only .or the first argument of Grad or Diff.
// errors: 1
#include <kops/kops.hpp>
constexpr auto r = kops::keops_reduction<"Exp(Sum_Reduction(SqDist(X,Y),0))", "X=Vi(3)", "Y=Vj(3)">;
