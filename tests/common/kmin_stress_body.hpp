// Test body (included once per test executable): the k-min family against a
// stable sort on term orders that stress the test of a term against the last
// slot (reductions/detail/ksmallest.hpp: a pack of terms skips the insertion
// when no lane goes before its last slot), through each configuration of
// KOPS_TEST_CONFIGS.
//
// f = x_i * y_j, x and y of dim 2, with x in {1, -1, 0, 0.5, -2} by row and
// component: over a ramp y_j = j, rows of x = 1 insert the first K terms only,
// rows of x < 0 insert every term (decreasing order), rows of x = 0 see only
// ties, and the lanes of one pack mix the three. Then terms drawn from a pool
// with ties, -0, +-inf and NaN, and columns of +inf (terms equal to the empty
// slots' value), at range sizes K, K + 1, 2K + 1 (partial ranges shorter than
// K, merged by combine) and a long one, over both axes.
#pragma once

#include "support.hpp"

#include <iterator>
#include <limits>
#include <type_traits>

#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including kmin_stress_body.hpp"
#endif

using namespace kops_test;

namespace {

namespace kstress {

constexpr auto x = kops::vi<0, 2>;
constexpr auto y = kops::vj<1, 2>;

enum class column_kind { ramp, pool, infinite };

// The reduced variable's values (n rows of 2), by kind.
template <class T>
std::vector<T> terms(column_kind kind, std::int64_t n, unsigned seed) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> v(std::size_t(n * 2));
  std::mt19937 rng(seed);
  const T pool[] = {T(-1), T(0), T(-0.0), T(0.5), T(1), T(1), T(2), T(3), inf, -inf, nan};
  std::uniform_int_distribution<int> pick(0, int(std::size(pool)) - 1), rare(0, 15);
  for (std::int64_t c = 0; c < n; ++c)
    for (int k = 0; k < 2; ++k) {
      T& e = v[std::size_t(c * 2 + k)];
      if (kind == column_kind::ramp) e = T(c);
      else if (kind == column_kind::pool) e = pool[pick(rng)];
      else e = rare(rng) == 0 ? T(pick(rng)) : inf;  // +inf but for a few small numbers
    }
  return v;
}

// The row variable's values: 1, -1, 0, 0.5, -2 in turn (n rows of 2).
template <class T>
std::vector<T> factors(std::int64_t n) {
  const T f[] = {T(1), T(-1), T(0), T(0.5), T(-2)};
  std::vector<T> v(std::size_t(n * 2));
  for (std::size_t e = 0; e < v.size(); ++e) v[e] = f[(e + e / 2) % 5];  // components differ too
  return v;
}

template <class T>
bool same_value(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

// argkmin and kmin_argkmin of f over the axis A, rows (x of that many rows)
// against n terms of the given kind, checked against stable_order.
template <class C, int K, class A>
void check(A axis, column_kind kind, std::int64_t rows, std::int64_t n, unsigned seed) {
  using T = typename C::type;
  constexpr bool over_j = std::is_same_v<A, kops::axis_tag<1>>;
  const std::int64_t M = over_j ? rows : n, N = over_j ? n : rows;
  const auto pr = factors<T>(rows), pc = terms<T>(kind, n, seed);
  const auto& px = over_j ? pr : pc;
  const auto& py = over_j ? pc : pr;
  std::vector<std::int64_t> idx(std::size_t(rows * K * 2));
  std::vector<kops::value_index<T>> both(std::size_t(rows * K * 2));
  C::backend::eval(kops::argkmin_reduction<K>(x * y, axis), M, N, idx.data(), px.data(), py.data());
  C::backend::eval(kops::kmin_argkmin_reduction<K>(x * y, axis), M, N, both.data(), px.data(), py.data());
  for (std::int64_t r = 0; r < rows; ++r)
    for (int k = 0; k < 2; ++k) {
      std::vector<T> column(static_cast<std::size_t>(n));
      for (std::int64_t c = 0; c < n; ++c) column[std::size_t(c)] = T(pr[std::size_t(r * 2 + k)] * pc[std::size_t(c * 2 + k)]);
      const auto order = stable_order(column);
      for (int s = 0; s < K; ++s) {
        INFO("kind " << int(kind) << " rows " << rows << " n " << n << " row " << r << " comp " << k << " rank " << s);
        const std::size_t o = std::size_t((r * K + s) * 2 + k);
        REQUIRE(idx[o] == order[std::size_t(s)]);
        REQUIRE(both[o].index == order[std::size_t(s)]);
        REQUIRE(same_value(both[o].value, column[std::size_t(order[std::size_t(s)])]));
      }
    }
}

template <class C, int K, class A>
void check_all(A axis) {
  for (const auto kind : {column_kind::ramp, column_kind::pool, column_kind::infinite})
    for (const std::int64_t n : {std::int64_t(K), std::int64_t(K + 1), std::int64_t(2 * K + 1), std::int64_t(300)}) {
      check<C, K>(axis, kind, 37, n, unsigned(n) * 3 + unsigned(kind));
      check<C, K>(axis, kind, 1, n, unsigned(n) * 5 + unsigned(kind));  // one row: one pack, its terms split in two
    }
}

} // namespace kstress

} // namespace

TEMPLATE_TEST_CASE("argkmin and kmin_argkmin match a stable sort on decreasing terms, ties, +-inf and NaN",
                   "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("K=1 axis_j") { kstress::check_all<TestType, 1>(kops::axis_j); }
  SECTION("K=5 axis_i") { kstress::check_all<TestType, 5>(kops::axis_i); }
  SECTION("K=10 axis_j") { kstress::check_all<TestType, 10>(kops::axis_j); }
  SECTION("K=10 axis_i") { kstress::check_all<TestType, 10>(kops::axis_i); }
}
