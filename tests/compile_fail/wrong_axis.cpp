// expect: kops::min_reduction: the axis must be kops::axis_i or kops::axis_j
#include <kops/kops.hpp>
auto r = kops::min_reduction(kops::vi<0, 3>, 1);
