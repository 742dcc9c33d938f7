// expect: use of deleted function .*view\(\) const ?&&
// The non-owning view of an owning structure that is about to be destroyed
// would dangle: view() of a temporary kops::cluster::structure does not compile.
#include <kops/cluster.hpp>
kops::block_sparsity f(const std::vector<kops::range>& r, const std::vector<unsigned char>& keep) {
  return kops::cluster::from_matrix(r, r, keep).view();
}
