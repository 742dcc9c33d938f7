// The k-min stress tests of tests/common/kmin_stress_body.hpp on the Kokkos CPU
// backend, and pack_math::any, the mask test that lets a pack of terms skip
// the insertion (reductions/detail/ksmallest.hpp). Built for the baseline ISA
// (SSE2: packs of 4 floats) and again with -march=native where the host runs
// AVX-512 (kops_native_tests: packs of 16 floats, the AVX-512 mask test).
#include "test_support.hpp"

#include "../common/kmin_stress_body.hpp"

namespace {

// any(a < b) for b = a but in lane l (true there only), b = a (false) and b > a (all true).
template <class T, int L>
void check_any() {
  using P = kops::simd::pack<T, L>;
  const P a(T(0));
  CHECK_FALSE(kops::simd::pack_math::any(a < a));
  CHECK(kops::simd::pack_math::any(a < P(T(1))));
  for (int l = 0; l < L; ++l) {
    typename P::vt b{};
    b[l] = T(1);
    INFO("L = " << L << ", lane " << l);
    CHECK(kops::simd::pack_math::any(a < P(b)));
    CHECK_FALSE(kops::simd::pack_math::any(P(b) < a));
  }
}

} // namespace

TEST_CASE("pack_math::any is true exactly when one lane of a mask is, at every pack width", "[reductions]") {
  check_any<float, 4>(), check_any<float, 8>(), check_any<float, 16>(), check_any<float, 32>();
  check_any<double, 2>(), check_any<double, 4>(), check_any<double, 8>(), check_any<double, 16>();
}
