// The k-min family and the shifted exponential sums take branches on scalars
// (float, double: the GPU backend's values) and run branch-free selects on
// SIMD packs (the CPU backend): reductions/detail/ksmallest.hpp and expsum.hpp.
// Both must give the same results, ties, NaN and infinities included. The pack
// code is run here on `boxed` scalars, a value type that is not a
// floating-point type (so the reductions take their pack code) with the
// arithmetic of the scalar it holds, and compared bit for bit with the scalar
// code on the same terms: ranges folded term by term, partial ranges merged
// by combine in order (GPU_2D), empty ranges and ranges shorter than K included.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <kops/kops.hpp>

namespace {

template <class T>
struct boxed {
  T x;
  boxed() = default;
  template <class U>
    requires std::is_arithmetic_v<U>
  constexpr boxed(U v) : x(T(v)) {}
  friend boxed operator+(boxed a, boxed b) { return a.x + b.x; }
  friend boxed operator-(boxed a, boxed b) { return a.x - b.x; }
  friend boxed operator*(boxed a, boxed b) { return a.x * b.x; }
  friend boxed operator/(boxed a, boxed b) { return a.x / b.x; }
  friend boxed operator-(boxed a) { return -a.x; }
  friend bool operator<(boxed a, boxed b) { return a.x < b.x; }
  friend bool operator>(boxed a, boxed b) { return a.x > b.x; }
  friend bool operator<=(boxed a, boxed b) { return a.x <= b.x; }
  friend bool operator>=(boxed a, boxed b) { return a.x >= b.x; }
  friend bool operator==(boxed a, boxed b) { return a.x == b.x; }
  friend bool operator!=(boxed a, boxed b) { return a.x != b.x; }
};

// The math provider of boxed scalars: Base's functions on the scalar inside.
template <class Base>
struct boxed_math {
  template <class V> using index_t = std::int64_t;
  template <class V> static std::int64_t index(std::int64_t j) { return j; }
  template <class V> static V exp(V a) { return Base::exp(a.x); }
  template <class V> static V exp2(V a) { return Base::exp2(a.x); }
  template <class V> static V log(V a) { return Base::log(a.x); }
  template <class V> static V select(bool m, V a, V b) { return m ? a : b; }
  static std::int64_t select_index(bool m, std::int64_t a, std::int64_t b) { return m ? a : b; }
  template <class V> static auto lane(V a, int) { return a.x; }
  static std::int64_t lane_index(std::int64_t a, int) { return a; }
  static bool any(bool m) { return m; }
};

// A scalar provider other than scalar_math, as the GPU's fast policy: exp(x)
// is 2^(x * log2 e) with log2 e rounded to T (what __expf computes on the
// device), exp2 the accurate one.
struct fast_like_math : kops::scalar_math {
  template <class T> static T exp(T a) {
    return kops::scalar_math::exp2(a * T(1.4426950408889634));
  }
};

template <class T>
bool same_bits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
bool same_bits(std::int64_t a, std::int64_t b) { return a == b; }
template <class T>
bool same_bits(const kops::value_index<T>& a, const kops::value_index<T>& b) {
  return same_bits(a.value, b.value) && a.index == b.index;
}

// The accumulator of terms[b, e) (indices b..e-1), as a backend folds one range.
template <class Op, class M, class V, int D, class T>
auto fold(const std::vector<std::array<T, D>>& terms, std::int64_t b, std::int64_t e) {
  auto acc = Op::template init<M, V, D>(b < e ? b : -1);
  for (std::int64_t j = b; j < e; ++j) {
    kops::vec<V, D> x;
    for (int d = 0; d < D; ++d) x[d] = V(terms[std::size_t(j)][std::size_t(d)]);
    Op::template accumulate<M>(acc, x, M::template index<V>(j));
  }
  return acc;
}

// The output row of the whole range, split at `cuts` (sorted, within [0, n]):
// the partial ranges folded, then merged in order by combine.
template <class Op, class M, class V, int D, class T>
auto reduce(const std::vector<std::array<T, D>>& terms, const std::vector<std::int64_t>& cuts) {
  const auto n = std::int64_t(terms.size());
  std::vector<std::int64_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(n);
  auto acc = fold<Op, M, V, D>(terms, bounds[0], bounds[1]);
  for (std::size_t c = 1; c + 1 < bounds.size(); ++c)
    Op::template combine<M>(acc, fold<Op, M, V, D>(terms, bounds[c], bounds[c + 1]));
  std::vector<typename Op::template out_t<T>> row(std::size_t(Op::template out_dim<D>));
  Op::template finalize<M>(acc, 0, row.data());
  return row;
}

// Runs `trials` random term sequences through the scalar code (provider Ms) and
// the pack code (boxed_math<Ms>) and requires equal bits.
template <class Op, class Ms, int D, class T, class Draw>
void compare_paths(Draw draw, int trials, unsigned seed) {
  std::mt19937 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const auto n = std::int64_t(std::uniform_int_distribution<int>(0, 60)(rng));
    std::vector<std::array<T, D>> terms(static_cast<std::size_t>(n));
    for (auto& term : terms)
      for (int d = 0; d < D; ++d) term[std::size_t(d)] = draw(rng, d);
    std::vector<std::int64_t> cuts;
    const int ncuts = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int c = 0; c < ncuts; ++c) cuts.push_back(std::uniform_int_distribution<std::int64_t>(0, n)(rng));
    std::sort(cuts.begin(), cuts.end());
    const auto scalar = reduce<Op, Ms, T, D>(terms, cuts);
    const auto packed = reduce<Op, boxed_math<Ms>, boxed<T>, D>(terms, cuts);
    for (std::size_t k = 0; k < scalar.size(); ++k) {
      INFO("trial " << t << ", n = " << n << ", " << cuts.size() << " cuts, output " << k);
      REQUIRE(same_bits(scalar[k], packed[k]));
    }
  }
}

// Terms for the k-min family: few distinct values (ties), infinities, NaN.
template <class T>
T draw_ranked(std::mt19937& rng, int) {
  static const T pool[] = {-std::numeric_limits<T>::infinity(), T(-2), T(-1), T(0), T(0.5), T(1), T(3),
                           std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN()};
  const int k = std::uniform_int_distribution<int>(0, 11)(rng);
  if (k < 9) return pool[k];
  return T(std::uniform_int_distribution<int>(-8, 8)(rng)) / T(4);
}

// Exponents f for the exponential sums: ties, terms just below and just above
// the negligible-term cut under a maximum of 0 or 1, beyond exp's range,
// infinities, NaN.
template <class T>
T draw_exponent(std::mt19937& rng) {
  const T cut = std::is_same_v<T, float> ? T(80) : T(700);
  static const T inf = std::numeric_limits<T>::infinity();
  const T pool[] = {T(0), T(0), T(1), -cut, -cut - 1, -cut - 3, -cut + T(0.5), -cut - T(0.5), T(-2), T(5),
                    -inf, inf, std::numeric_limits<T>::quiet_NaN(), T(2) * cut, -T(3) * cut};
  const int k = std::uniform_int_distribution<int>(0, 60)(rng);
  if (k < 10) return pool[k];
  if (k < 15 && std::uniform_int_distribution<int>(0, 3)(rng) == 0) return pool[k];
  return T(std::normal_distribution<double>(0.0, 3.0)(rng));
}

// Weights: mostly moderate, some 0, -0, negative, huge or infinite.
template <class T>
T draw_weight(std::mt19937& rng) {
  const T pool[] = {T(0), T(-1), std::numeric_limits<T>::max(), std::numeric_limits<T>::max(),
                    std::numeric_limits<T>::infinity(), T(-0.0)};
  const int k = std::uniform_int_distribution<int>(0, 15)(rng);
  if (k < 6) return pool[k];
  return T(std::uniform_real_distribution<double>(-0.5, 2.0)(rng));
}

template <class T, int K, int D>
void compare_ksmallest(unsigned seed) {
  auto draw = [](std::mt19937& rng, int d) { return draw_ranked<T>(rng, d); };
  compare_paths<kops::kmin_op<K>, kops::scalar_math, D, T>(draw, 150, seed);
  compare_paths<kops::argkmin_op<K>, kops::scalar_math, D, T>(draw, 150, seed + 1);
  compare_paths<kops::kmin_argkmin_op<K>, kops::scalar_math, D, T>(draw, 150, seed + 2);
}

template <class Op, class Ms, int D, class T>
void compare_expsum(unsigned seed) {
  auto draw = [](std::mt19937& rng, int d) { return d == 0 ? draw_exponent<T>(rng) : draw_weight<T>(rng); };
  compare_paths<Op, Ms, D, T>(draw, 400, seed);
}

} // namespace

TEMPLATE_TEST_CASE("kmin, argkmin and kmin_argkmin: the scalar code agrees bit for bit with the pack code",
                   "[reductions]", float, double) {
  using T = TestType;
  SECTION("K=1, dim 1") { compare_ksmallest<T, 1, 1>(11); }
  SECTION("K=2, dim 3") { compare_ksmallest<T, 2, 3>(12); }
  SECTION("K=5, dim 1") { compare_ksmallest<T, 5, 1>(13); }
  SECTION("K=8, dim 2") { compare_ksmallest<T, 8, 2>(14); }
  SECTION("K=13, dim 1") { compare_ksmallest<T, 13, 1>(15); }
}

TEMPLATE_TEST_CASE("logsumexp and sumsoftmaxweight: the scalar code agrees bit for bit with the pack code",
                   "[reductions]", float, double) {
  using T = TestType;
  SECTION("logsumexp, accurate") { compare_expsum<kops::logsumexp_op, kops::scalar_math, 1, T>(21); }
  SECTION("logsumexp, fast-like exp") { compare_expsum<kops::logsumexp_op, fast_like_math, 1, T>(22); }
  SECTION("weighted logsumexp") { compare_expsum<kops::logsumexp_weight_op, kops::scalar_math, 3, T>(23); }
  SECTION("weighted logsumexp, fast-like exp") { compare_expsum<kops::logsumexp_weight_op, fast_like_math, 3, T>(24); }
  SECTION("sumsoftmaxweight") { compare_expsum<kops::sumsoftmaxweight_op, kops::scalar_math, 2, T>(25); }
}

TEST_CASE("k-min slots that no term filled are written as +inf, index -1, by the scalar code as by the pack code",
          "[reductions]") {
  using Op = kops::kmin_argkmin_op<4>;
  const std::vector<std::array<double, 1>> terms{{2.0}, {std::numeric_limits<double>::quiet_NaN()}};
  const auto scalar = reduce<Op, kops::scalar_math, double, 1>(terms, {1});
  const auto packed = reduce<Op, boxed_math<kops::scalar_math>, boxed<double>, 1>(terms, {1});
  REQUIRE(scalar.size() == 4);
  CHECK(scalar[0].value == 2.0);
  CHECK(scalar[0].index == 0);
  CHECK(std::isnan(scalar[1].value));
  CHECK(scalar[1].index == 1);
  for (int s = 2; s < 4; ++s) {
    CHECK(scalar[std::size_t(s)].value == std::numeric_limits<double>::infinity());
    CHECK(scalar[std::size_t(s)].index == -1);
    CHECK(same_bits(scalar[std::size_t(s)], packed[std::size_t(s)]));
  }
}
