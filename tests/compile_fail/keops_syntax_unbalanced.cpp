// expect: kops::keops_formula: at column 21, expected `\)` to close the bracket of column 4, found the end of the string \(unbalanced parenthesis\)
// errors: 1
#include <kops/kops.hpp>
constexpr auto f = kops::keops_formula<"Exp(-G*SqDist(X,Y)*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">;
