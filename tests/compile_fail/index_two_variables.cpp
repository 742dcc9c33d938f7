// expect: kops::sum_reduction: an argument index is used for two different variables
#include <kops/kops.hpp>
auto r = kops::sum_reduction(kops::vi<0, 3> - kops::vj<0, 3>, kops::axis_j);
