// expect: kops::keops_formula: at column 8, unknown operation `Sqdist` \(did you mean SqDist\?\)
// errors: 1
#include <kops/kops.hpp>
constexpr auto f = kops::keops_formula<"Exp(-G*Sqdist(X,Y))*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">;
