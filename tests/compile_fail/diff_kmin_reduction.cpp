// expect: kops::diff: this reduction has no forward derivative .sum, min, max, argmin, argmax, argkmin, logsumexp and sumsoftmaxweight do.
// errors: 1
// KeOps has no Diff for KMin either.
#include <kops/kops.hpp>
constexpr auto x = kops::vi<0, 3>;
constexpr auto red = kops::kmin_reduction<2>(kops::sqdist(x, kops::vj<1, 3>), kops::axis_j);
constexpr auto d = kops::diff(red, x, kops::vi<2, 3>);
