// expect: kops::sqdist: both operands must have the same dim
#include <kops/kops.hpp>
// The dims are checked by the builder the string calls, with its own message.
constexpr auto f = kops::keops_formula<"Exp(-SqDist(X,Y))", "X=Vi(3)", "Y=Vj(2)">;
