// expect: kops::argmin_reduction: the first argument must be a kops formula
#include <kops/kops.hpp>
auto r = kops::argmin_reduction(2.0, kops::axis_j);
