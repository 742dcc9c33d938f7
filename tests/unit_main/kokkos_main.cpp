// The test session of an executable that uses Kokkos (catch_main.cpp): Kokkos
// initialised before it and finalised after it; --kokkos-* arguments are
// consumed by Kokkos, the rest goes to Catch.
#include <Kokkos_Core.hpp>

using kops_test_session = int (*)(int, char**);

int kops_test_run(int argc, char* argv[], kops_test_session session) {
  Kokkos::ScopeGuard kokkos_guard(argc, argv);
  return session(argc, argv);
}
