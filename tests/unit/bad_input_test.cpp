// Bad input with a defined outcome, on the CPU backend: the backend-generic
// body (tests/common/bad_input_body.hpp).
#include "test_support.hpp"

namespace kops_test {
template <class Backend> struct policy_eval;
template <>
struct policy_eval<kokkos_backend> {
  template <auto... Policy, class... A> static void eval(A... a) { kops::kokkos::eval<Policy...>(a...); }
  // The argmin over the 4.9e9 pairs runs in full (about 15 s on one core of
  // the CI machine: the unit tests are built without -march=native).
  static constexpr bool large_argmin = true;
};
} // namespace kops_test

#include "../common/bad_input_body.hpp"
