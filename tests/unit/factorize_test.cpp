// Common sub-expressions are evaluated once: counted with a math provider that
// counts its exp calls, on a one-point evaluation context.
#include "test_support.hpp"

namespace {

struct counting_math : kops::scalar_math {
  static inline int exp_calls = 0;
  template <class T> static T exp(T a) {
    ++exp_calls;
    return kops::scalar_math::exp(a);
  }
};

// Every variable read from args[I] (one row), values as double.
struct point_context {
  using value_type = double;
  using scalar_type = double;
  using math = counting_math;
  const double* const* args;
  template <kops::category C, int I, int D> kops::vec<double, D> load() const {
    kops::vec<double, D> r;
    for (int k = 0; k < D; ++k) r[k] = args[I][k];
    return r;
  }
};

template <class F>
auto eval_counting(F, const point_context& ctx, int& exp_calls) {
  counting_math::exp_calls = 0;
  const auto v = F::eval(ctx);
  exp_calls = counting_math::exp_calls;
  return v;
}

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vi<1, 3>;
constexpr auto v = kops::vi<2, 3>;
constexpr auto e = kops::vi<3, 1>;
constexpr auto k = kops::exp(-kops::cst<3> * kops::sqdist(x, y));

} // namespace

TEST_CASE("factorize evaluates the shared sub-formula once", "[factorize]") {
  const double px[3] = {0.1, 0.2, 0.3}, py[3] = {0.3, -0.1, 0.5}, pv[3] = {1, 2, 3}, pe[1] = {1};
  const double* args[] = {px, py, pv, pe};
  const point_context ctx{args};
  int calls = 0;

  SECTION("explicit: k sin(k) + k computes exp once, not three times, with the same value") {
    constexpr auto f = k * kops::sin(k) + k;
    constexpr auto ff = kops::factorize(f, k);
    static_assert(std::is_same_v<decltype(ff)::shared, std::remove_const_t<decltype(k)>>);
    const auto plain = eval_counting(f, ctx, calls);
    CHECK(calls == 3);
    const auto shared = eval_counting(ff, ctx, calls);
    CHECK(calls == 1);
    CHECK(shared[0] == plain[0]);
  }
  SECTION("factorizing something absent is the identity") {
    static_assert(std::is_same_v<decltype(kops::factorize(k, kops::vi<5, 1>)), std::remove_const_t<decltype(k)>>);
  }
  SECTION("automatic: the Gaussian Hessian-vector product evaluates exp(-g r^2) once") {
    using H = decltype(kops::grad(kops::grad(k, x, e), x, v));
    using AF = kops::auto_factorize_t<H>;
    const auto plain = eval_counting(H{}, ctx, calls);
    CHECK(calls == 2);
    const auto shared = eval_counting(AF{}, ctx, calls);
    CHECK(calls == 1);
    for (int c = 0; c < 3; ++c) CHECK(shared[c] == Approx(plain[c]).epsilon(1e-14));
    // The factorized formula prints as its expansion.
    CHECK(kops::to_string(AF{}) == kops::to_string(H{}));
  }
  SECTION("a formula without repeats is left as it is") {
    using F = decltype(kops::exp(x) * y);
    static_assert(std::is_same_v<kops::auto_factorize_t<F>, F>);
  }
}
