// expect: kops::keops_formula: at column 17, `Z` is not a variable: no alias names it
// errors: 1
#include <kops/kops.hpp>
constexpr auto f = kops::keops_formula<"Exp(-G*SqDist(X,Z))*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">;
