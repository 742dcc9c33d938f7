// expect: kops::variable: the dimension must be >= 1
#include <kops/kops.hpp>
auto v = kops::vi<0, 0>;
