// expect: kops::tied: the cloud must be read once as rows i and once as columns j
// Two i-variables are not one cloud on both axes.
#include <kops/kops.hpp>

constexpr auto bad = kops::tied(kops::vi<0, 3>, kops::vi<1, 3>);
