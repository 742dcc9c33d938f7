// Catch2 v2 main for kops_unit_tests and kops_cuda_tests.
// Kokkos can be initialised only once per process, so it is done here, for all
// tests (KOPS_TESTS_WITH_KOKKOS=1): tests must NOT call Kokkos::initialize.
// --kokkos-* arguments are consumed by Kokkos, the rest goes to Catch.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#ifndef KOPS_TESTS_WITH_KOKKOS
#define KOPS_TESTS_WITH_KOKKOS 0
#endif
#if KOPS_TESTS_WITH_KOKKOS
#include <Kokkos_Core.hpp>
#endif

int main(int argc, char* argv[]) {
#if KOPS_TESTS_WITH_KOKKOS
  Kokkos::ScopeGuard kokkos_guard(argc, argv);
#endif
  return Catch::Session().run(argc, argv);
}
