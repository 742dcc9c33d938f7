// expect: kops::keops_formula: at column 5, SqDist expects 2 arguments, given 3
// errors: 1
#include <kops/kops.hpp>
constexpr auto f = kops::keops_formula<"Exp(SqDist(X,Y,X))", "X=Vi(3)", "Y=Vj(3)">;
