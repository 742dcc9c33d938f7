// The math-op tests of tests/common/math_ops_body.hpp on the Kokkos CPU backend,
// and the SIMD floor / round of backends/kokkos/simd_math.hpp on whole packs.
#include "test_support.hpp"

#include "../common/math_ops_body.hpp"

#include <kops/backends/kokkos/simd_math.hpp>

#include <cstring>

// Packs wider than the target's registers warn "changes the ABI" at call sites.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace {

template <class E, int L>
struct simd_pack {
  typedef E type __attribute__((vector_size(sizeof(E) * L)));
};

// Inputs that stress floor and round: every magnitude from tiny to beyond 2^p,
// values next to integers and to halves (one ulp either side), signed zeros,
// infinities and NaN.
template <class E>
std::vector<E> rounding_inputs() {
  std::vector<E> v{E(0), -E(0), E(0.5), E(-0.5), E(1.5), E(-1.5), E(2.5), E(-2.5),
                   std::numeric_limits<E>::infinity(), -std::numeric_limits<E>::infinity(),
                   std::numeric_limits<E>::quiet_NaN(), -std::numeric_limits<E>::quiet_NaN(),
                   std::numeric_limits<E>::denorm_min(), -std::numeric_limits<E>::denorm_min(),
                   std::numeric_limits<E>::max(), -std::numeric_limits<E>::max()};
  const E big = sizeof(E) == 4 ? E(0x1p23) : E(0x1p52);
  for (E base : {E(0.5), E(1), E(2), E(3), E(1000), big / 4, big / 2, big, big * 2}) {
    for (E b : {base, -base, base + E(0.5), -(base + E(0.5))}) {
      v.push_back(b);
      v.push_back(std::nextafter(b, std::numeric_limits<E>::infinity()));
      v.push_back(std::nextafter(b, -std::numeric_limits<E>::infinity()));
    }
  }
  std::mt19937_64 rng(91);
  std::uniform_real_distribution<double> e(-10, sizeof(E) == 4 ? 27 : 56), s(-1, 1);
  for (int n = 0; n < 20000; ++n) v.push_back(E(std::copysign(std::exp2(e(rng)), s(rng))));
  return v;
}

// f(pack) lane by lane against ref(scalar), bit for bit (NaN: any NaN).
template <class E, int L, class F, class Ref>
void check_pack_rounding(F f, Ref ref, const char* what) {
  using VT = typename simd_pack<E, L>::type;
  const auto in = rounding_inputs<E>();
  for (std::size_t i = 0; i < in.size(); i += L) {
    VT x;
    for (int l = 0; l < L; ++l) x[l] = in[(i + l) % in.size()];
    const VT r = f(x);
    for (int l = 0; l < L; ++l) {
      const E got = r[l], want = ref(x[l]);
      INFO(what << " of " << x[l] << " (pack of " << L << "): got " << got << ", want " << want);
      if (std::isnan(want)) {
        REQUIRE(std::isnan(got));
      } else {
        REQUIRE(std::memcmp(&got, &want, sizeof(E)) == 0);
      }
    }
  }
}

template <class E, int L>
void check_pack_floor_round() {
  using VT = typename simd_pack<E, L>::type;
  check_pack_rounding<E, L>([](VT x) { return kops::simd::detail::vfloor(x); }, [](E a) { return std::floor(a); },
                            "vfloor");
  check_pack_rounding<E, L>([](VT x) { return kops::simd::detail::vround(x); }, [](E a) { return std::round(a); },
                            "vround");
}

} // namespace

TEST_CASE("math ops: SIMD floor and round equal std::floor and std::round bit for bit", "[ops][math][simd]") {
  check_pack_floor_round<float, 4>();
  check_pack_floor_round<float, 8>();
  check_pack_floor_round<float, 16>();
  check_pack_floor_round<float, 32>();
  check_pack_floor_round<double, 2>();
  check_pack_floor_round<double, 4>();
  check_pack_floor_round<double, 8>();
  check_pack_floor_round<double, 16>();
}

namespace {

// vpow on float packs against pow in double (the exact value rounded to float),
// over bases and exponents of every sign and magnitude, special values included.
template <int L>
void check_pack_pow() {
  using VT = typename simd_pack<float, L>::type;
  std::vector<float> av{0.f, -0.f, 1.f, -1.f, 2.f, -2.f, 0.5f, -0.5f, 3.f, -3.f, 10.f, -8.f, 1e-30f, -1e-30f,
                        std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> bv{0.f, -0.f, 1.f, -1.f, 2.f, -2.f, 3.f, -3.f, 0.5f, -0.5f, 1.f / 3, 7.f, 127.f, -149.f,
                        1e10f, 16777217.f, 16777216.f, 8388609.f, -8388609.f, 2.5f, 1e-8f,
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()};
  std::mt19937_64 rng(93);
  std::uniform_real_distribution<double> ea(-20, 20), eb(-6, 6), s(-1, 1);
  for (int n = 0; n < 300; ++n) {
    av.push_back(float(std::copysign(std::exp2(ea(rng)), s(rng))));
    bv.push_back(float(std::copysign(std::exp2(eb(rng)), s(rng))));
    bv.push_back(float(std::round(s(rng) * 40)));
  }
  std::vector<float> a, b;
  for (float x : av)
    for (float y : bv) {
      a.push_back(x);
      b.push_back(y);
    }
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); i += L) {
    VT x, y;
    for (int l = 0; l < L; ++l) {
      x[l] = a[(i + l) % a.size()];
      y[l] = b[(i + l) % a.size()];
    }
    const VT r = kops::simd::detail::vpow(x, y);
    for (int l = 0; l < L; ++l) {
      const double exact = std::pow(double(x[l]), double(y[l]));
      const float want = float(exact);
      const float got = r[l];
      INFO("pow(" << x[l] << ", " << y[l] << ") (pack of " << L << "): got " << got << ", want " << want);
      if (std::isnan(want)) {
        REQUIRE(std::isnan(got));
      } else if (std::isinf(want) || want == 0 || std::abs(want) < std::numeric_limits<float>::min()) {
        // overflow, zero, subnormal: the same float (sign of zero included)
        REQUIRE(std::memcmp(&got, &want, sizeof(float)) == 0);
      } else {
        // within one float ulp of the exact value (almost always the rounded one)
        const double err = std::abs(double(got) - exact) / (std::abs(exact) * 0x1p-23);
        worst = std::max(worst, err);
        REQUIRE(err <= 1.0);
        REQUIRE(std::signbit(got) == std::signbit(want));
      }
    }
  }
  CHECK(worst <= 0.5001);  // correctly rounded on every sample here
}

} // namespace

TEST_CASE("math ops: SIMD float pow follows the C rules and rounds once", "[ops][math][simd]") {
  check_pack_pow<4>();
  check_pack_pow<8>();
  check_pack_pow<16>();
}

TEST_CASE("math ops: printed in kops and in KeOps syntax", "[ops][math][print]") {
  using namespace kops;
  constexpr auto a = vi<0, 3>;
  constexpr auto n = vj<1, 3>;
  constexpr auto c = vj<2, 1>;
  const std::string A = "Var(0,3,0)", N = "Var(1,3,1)", C = "Var(2,1,1)";
  // KeOps' spellings (keopscore/formulas/maths: string_id, and the order of the
  // parameters in ClampInt / Round).
  CHECK(to_keops_string(powf(a, n)) == "Powf(" + A + "," + N + ")");
  CHECK(to_keops_string(xlogx(a)) == "XLogX(" + A + ")");
  CHECK(to_keops_string(sinxdivx(a)) == "SinXDivX(" + A + ")");
  CHECK(to_keops_string(asin(a)) == "Asin(" + A + ")");
  CHECK(to_keops_string(acos(a)) == "Acos(" + A + ")");
  CHECK(to_keops_string(atan(a)) == "Atan(" + A + ")");
  CHECK(to_keops_string(atan2(a, n)) == "Atan2(" + A + "," + N + ")");
  CHECK(to_keops_string(step(a)) == "Step(" + A + ")");
  CHECK(to_keops_string(relu(a)) == "ReLU(" + A + ")");
  CHECK(to_keops_string(clamp(a, n, c)) == "Clamp(" + A + "," + N + "," + C + ")");
  CHECK(to_keops_string(clampint<1, 3>(a)) == "ClampInt(" + A + ",1,3)");
  CHECK(to_keops_string(clampint<-2, 0>(a)) == "ClampInt(" + A + ",-2,0)");
  CHECK(to_keops_string(floor(a)) == "Floor(" + A + ")");
  CHECK(to_keops_string(round<2>(a)) == "Round(" + A + ",2)");
  CHECK(to_keops_string(round(a)) == "Round(" + A + ",0)");
  CHECK(to_keops_string(mod(a, n, c)) == "Mod(" + A + "," + N + "," + C + ")");
  CHECK(to_keops_string(ifelse(c, a, n)) == "IfElse(" + C + "," + A + "," + N + ")");
  CHECK(to_keops_string(equal(a, n)) == "Equal(" + A + "," + N + ")");
  CHECK(to_keops_string(not_equal(a, n)) == "NotEqual(" + A + "," + N + ")");
  CHECK(to_keops_string(less_than(a, n)) == "LessThan(" + A + "," + N + ")");
  CHECK(to_keops_string(less_or_equal(a, n)) == "LessOrEqual(" + A + "," + N + ")");
  // kops' own spelling: the function names, integer parameters as template arguments.
  CHECK(to_string(powf(a, n)) == "powf(vi<0,3>,vj<1,3>)");
  CHECK(to_string(atan2(a, n)) == "atan2(vi<0,3>,vj<1,3>)");
  CHECK(to_string(clampint<1, 3>(a)) == "clampint<1,3>(vi<0,3>)");
  CHECK(to_string(round<-1>(a)) == "round<-1>(vi<0,3>)");
  CHECK(to_string(mod(a, n)) == "mod(vi<0,3>,vj<1,3>,0)");
  CHECK(to_string(ifelse(c, a, n)) == "ifelse(vj<2,1>,vi<0,3>,vj<1,3>)");
  CHECK(to_string(less_or_equal(a, n)) == "less_or_equal(vi<0,3>,vj<1,3>)");
  CHECK(to_string(sinxdivx(a) + xlogx(a)) == "(sinxdivx(vi<0,3>)+xlogx(vi<0,3>))");
  // A gradient prints in KeOps syntax too (comparisons and IfElse included).
  // The derivative of a selection selects the branches' derivatives (ops/ifelse.hpp):
  // here e and the zero of n's dim, KeOps' Zero(3).
  CHECK(to_keops_string(grad(ifelse(c, a, n), a, vi<3, 3>)) == "IfElse(" + C + ",Var(3,3,0),Zero(3))");
}
