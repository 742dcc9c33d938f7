// Bad run-time input is a kops::error naming the function and the argument.
#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)), kops::axis_j);
} // namespace

TEST_CASE("negative sizes are a kops::error", "[errors]") {
  std::vector<float> px(6), py(6), out(2);
  REQUIRE_THROWS_WITH(kops::kokkos::eval(conv, -1, 2, out.data(), px.data(), py.data()),
                      Contains("kops::kokkos::eval: M (the number of i rows) must be >= 0, got -1"));
  REQUIRE_THROWS_WITH(kops::kokkos::eval(conv, 2, -5, out.data(), px.data(), py.data()),
                      Contains("kops::kokkos::eval: N (the number of j rows) must be >= 0, got -5"));
  REQUIRE_THROWS_AS(kops::kokkos::eval(conv, 2, -5, out.data(), px.data(), py.data()), kops::error);
}

TEST_CASE("null pointers are a kops::error naming the argument", "[errors]") {
  std::vector<float> px(6), py(6), out(2);
  const float* null = nullptr;
  REQUIRE_THROWS_WITH(kops::kokkos::eval(conv, 2, 2, out.data(), px.data(), null),
                      Contains("argument 1 (vj<1,3>) is a null pointer"));
  REQUIRE_THROWS_WITH(kops::kokkos::eval(conv, 2, 2, out.data(), null, py.data()),
                      Contains("argument 0 (vi<0,3>) is a null pointer"));
  float* null_out = nullptr;
  REQUIRE_THROWS_WITH(kops::kokkos::eval(conv, 2, 2, null_out, px.data(), py.data()),
                      Contains("the output pointer is null"));
}

TEST_CASE("kops::error is a std::runtime_error", "[errors]") {
  STATIC_REQUIRE(std::is_base_of_v<std::runtime_error, kops::error>);
}
