// A TU with <Kokkos_Core.hpp> and one Kokkos::parallel_for over a host range:
// what any TU that runs a Kokkos loop pays (the loop's dispatch, its label, the
// profiling hooks) before kops adds anything. bench/compile/run.sh compares
// the Kokkos backend's TU with it as well as with <Kokkos_Core.hpp> alone.
#include <Kokkos_Core.hpp>

#include <vector>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<float> v(64, 1.0f);
  float* p = v.data();
  Kokkos::parallel_for("loop", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 64),
                       [=](const long i) { p[i] = 2.0f * p[i]; });
  return 0;
}
