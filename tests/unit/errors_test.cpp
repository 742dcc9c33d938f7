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

// The message type of the error paths (core/error.hpp): printf-formatted at
// any length, moved without copying, reported as the kops::error's what().
TEST_CASE("error messages are formatted whole, at any length", "[errors]") {
  const std::string name(3000, 'n');
  kops::detail::message m = kops::detail::format("%s: %lld %s|", "where", 42LL, name.c_str());
  REQUIRE_FALSE(m.empty());
  const std::string expected = "where: 42 " + name + "|";
  CHECK(std::string(m.c_str()) == expected);
  kops::detail::message moved(static_cast<kops::detail::message&&>(m));
  CHECK(m.empty());
  CHECK(std::string(m.c_str()).empty());
  CHECK(std::string(moved.c_str()) == expected);
  kops::detail::message other = kops::detail::format("%d", 7);
  other = static_cast<kops::detail::message&&>(moved);
  CHECK(std::string(other.c_str()) == expected);
  CHECK(kops::detail::message{}.empty());
  try {
    kops::detail::fail("%s and %d", name.c_str(), -3);
    FAIL("kops::detail::fail returned");
  } catch (const kops::error& e) {
    CHECK(std::string(e.what()) == name + " and -3");
  }
  CHECK(std::string(kops::error("plain").what()) == "plain");
  CHECK(std::string(kops::error(std::string("from a string")).what()) == "from a string");
}
