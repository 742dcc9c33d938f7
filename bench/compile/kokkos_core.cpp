// A TU that includes only <Kokkos_Core.hpp>: what the Kokkos backend's TU pays
// before kops, subtracted from it when comparing with KeOps 1.5's CPU TU.
#include <Kokkos_Core.hpp>

int main() { return 0; }
