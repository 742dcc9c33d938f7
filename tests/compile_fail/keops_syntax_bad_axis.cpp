// expect: kops::keops_reduction: at column 17, Sum_Reduction: argument 2 \(the axis\) must be 0 \(reduce over j\) or 1 \(reduce over i\), given 2
// errors: 1
#include <kops/kops.hpp>
constexpr auto r = kops::keops_reduction<"Sum_Reduction(X,2)", "X=Vi(3)">;
