// Catch2 v2 main of every test executable (kops_unit_tests, kops_native_tests,
// kops_cuda_tests, kops_cuda_emulated_tests, the conformance reader test),
// compiled once per build tree (tests/CMakeLists.txt: kops_catch_main): the
// Catch2 implementation this file instantiates is the slowest test file to
// compile. The session runs inside kops_test_run; an executable that uses
// Kokkos links kokkos_main.cpp too, whose definition of kops_test_run
// initialises Kokkos around the session (Kokkos can be initialised only once
// per process, so tests must NOT call Kokkos::initialize).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

using kops_test_session = int (*)(int, char**);

// The default, for executables without Kokkos: the session alone. (Weak: a
// definition in another object of the executable, kokkos_main.cpp's, replaces it.)
__attribute__((weak)) int kops_test_run(int argc, char* argv[], kops_test_session session) {
  return session(argc, argv);
}

int main(int argc, char* argv[]) {
  return kops_test_run(argc, argv, [](int n, char** args) { return Catch::Session().run(n, args); });
}
