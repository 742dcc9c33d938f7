// Shared helpers of the CPU unit tests: the backend-neutral helpers of
// tests/common, plus the Kokkos backend the common test bodies are stamped out
// for here (tests/cuda stamps them out for the GPU backend).
#pragma once

#include "../common/support.hpp"

#include <kops/kokkos.hpp>

namespace kops_test {

struct kokkos_backend {
  static constexpr const char* name = "kokkos";
  template <auto... Pol, class... A> static void eval(A... a) { kops::kokkos::eval<Pol...>(a...); }
};

} // namespace kops_test

// The (backend, element type) configurations every backend-generic test body runs on.
#define KOPS_TEST_CONFIGS (kops_test::cfg<kops_test::kokkos_backend, float>), (kops_test::cfg<kops_test::kokkos_backend, double>)
