// Derivatives of the ops that select (ifelse, relu, clampint, clamp, max, min,
// sinxdivx at 0), at points where the derivative of what is *not* selected is
// NaN or infinite (sqrt at a negative or zero argument, log at 0, 1/x at 0):
// the derivative of a selection selects derivatives, so these points have the
// derivative of what is selected (issue 35; KeOps' own test formula
// Grad(IfElse(f, Sqrt(f), f*f*f), f, e) is the first case). Every value is
// checked against a closed form, through the Kokkos backend in double.
#include "test_support.hpp"

#include <array>
#include <cmath>
#include <utility>
#include <kops/ops/clamp.hpp>
#include <kops/ops/clampint.hpp>
#include <kops/ops/ifelse.hpp>
#include <kops/ops/relu.hpp>
#include <kops/ops/sinxdivx.hpp>

namespace {

// The formula F, of i-variables only, at `rows` rows: a sum over j with N = 1.
// Only the arguments up to the largest index F reads are passed (a derivative
// need not read every variable of its formula).
template <class F, class... P>
std::vector<double> eval_rows(F, std::int64_t rows, const P*... args) {
  std::vector<double> out(rows * F::dim);
  const std::array<const double*, sizeof...(P)> a{args...};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    kops::kokkos::eval(kops::sum_reduction(F{}, kops::axis_j), rows, 1, out.data(), a[I]...);
  }(std::make_index_sequence<kops::max_index<F>() + 1>{});
  return out;
}

// Component k of row i, computed and expected, with the formula in the message.
template <class F>
void require_close(F, const std::vector<double>& got, std::int64_t i, int k, double want) {
  const double g = got[i * F::dim + k];
  INFO("row " << i << " component " << k << ": got " << g << ", expected " << want << "\n  formula "
              << kops::to_string(F{}));
  REQUIRE(std::isfinite(g));
  REQUIRE(std::abs(g - want) <= 1e-12 * (1 + std::abs(want)));
}

constexpr auto f = kops::vi<0, 1>;
constexpr auto e = kops::vi<1, 1>;
constexpr auto x = kops::vi<0, 3>;
constexpr auto e3 = kops::vi<1, 3>;

} // namespace

TEST_CASE("select gradients: ifelse never multiplies the branch not taken", "[grad][select]") {
  const std::vector<double> pf = {-2.0, -0.5, -0.0, 0.0, 0.25, 4.0};
  const std::vector<double> pe = {1.0, -3.0, 2.0, 0.5, 1.5, -1.0};
  const auto rows = std::int64_t(pf.size());

  SECTION("KeOps' Grad(IfElse(f, Sqrt(f), f*f*f), f, e): 3 f^2 e where f < 0") {
    constexpr auto d = kops::grad(kops::ifelse(f, kops::sqrt(f), f * f * f), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data());
    // -0.0 >= 0 holds: at f = +-0 sqrt is taken, whose derivative is infinite there.
    for (std::int64_t i = 0; i < rows; ++i)
      if (pf[i] < 0) require_close(d, got, i, 0, 3 * pf[i] * pf[i] * pe[i]);
      else if (pf[i] > 0) require_close(d, got, i, 0, pe[i] / (2 * std::sqrt(pf[i])));
  }
  SECTION("forward mode: Diff(IfElse(f, Sqrt(f), f*f*f), f, e)") {
    constexpr auto d = kops::diff(kops::ifelse(f, kops::sqrt(f), f * f * f), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data());
    for (std::int64_t i = 0; i < rows; ++i)
      if (pf[i] < 0) require_close(d, got, i, 0, 3 * pf[i] * pf[i] * pe[i]);
      else if (pf[i] > 0) require_close(d, got, i, 0, pe[i] / (2 * std::sqrt(pf[i])));
  }
  SECTION("the branch not taken is 1/f at f = 0") {
    constexpr auto d = kops::grad(kops::ifelse(f, f * f, kops::inv(f)), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data());
    for (std::int64_t i = 0; i < rows; ++i)
      if (pf[i] >= 0) require_close(d, got, i, 0, 2 * pf[i] * pe[i]);
      else require_close(d, got, i, 0, -pe[i] / (pf[i] * pf[i]));
  }
  SECTION("dim 3, a condition per component") {
    const std::vector<double> px = {-2.0, 0.25, -0.5, 4.0, -1.0, 1.0};
    const std::vector<double> pe3 = {1.0, -3.0, 2.0, 0.5, 1.5, -1.0};
    constexpr auto d = kops::grad(kops::ifelse(x, kops::sqrt(x), x * x * x), x, e3);
    const auto got = eval_rows(d, 2, px.data(), pe3.data());
    for (std::int64_t i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) {
        const double v = px[i * 3 + k], g = pe3[i * 3 + k];
        require_close(d, got, i, k, v < 0 ? 3 * v * v * g : g / (2 * std::sqrt(v)));
      }
  }
  SECTION("dim-1 condition, dim-3 branches") {
    // c = vi<2,1> picks sqrt(x) or x^3 for the whole row; x has negative components.
    constexpr auto c = kops::vi<2, 1>;
    const std::vector<double> px = {-2.0, -0.5, -1.0, 4.0, 0.25, 1.0};
    const std::vector<double> pe3 = {1.0, -3.0, 2.0, 0.5, 1.5, -1.0};
    const std::vector<double> pc = {-1.0, 1.0};
    constexpr auto d = kops::grad(kops::ifelse(c, kops::sqrt(x), x * x * x), x, e3);
    const auto got = eval_rows(d, 2, px.data(), pe3.data(), pc.data());
    for (int k = 0; k < 3; ++k) {
      require_close(d, got, 0, k, 3 * px[k] * px[k] * pe3[k]);
      require_close(d, got, 1, k, pe3[3 + k] / (2 * std::sqrt(px[3 + k])));
    }
  }
  SECTION("a dim-1 variable broadcast: the derivative w.r.t. s of ifelse(s, sqrt(s) x, x^2)") {
    constexpr auto s = kops::vi<2, 1>;
    const std::vector<double> px = {1.0, 2.0, 3.0, -1.0, 0.5, 2.0};
    const std::vector<double> pe3 = {1.0, -3.0, 2.0, 0.5, 1.5, -1.0};
    const std::vector<double> ps = {-1.0, 4.0};
    constexpr auto d = kops::grad(kops::ifelse(s, kops::sqrt(s) * x, x * x), s, e3);
    const auto got = eval_rows(d, 2, px.data(), pe3.data(), ps.data());
    require_close(d, got, 0, 0, 0.0);
    double xe = 0;
    for (int k = 0; k < 3; ++k) xe += px[3 + k] * pe3[3 + k];
    require_close(d, got, 1, 0, xe / (2 * std::sqrt(ps[1])));
  }
}

TEST_CASE("select gradients: relu, clampint, clamp, max, min, sinxdivx", "[grad][select]") {
  // log(0) = -inf and d log = 1/x: the derivative of what is not selected at x = 0.
  const std::vector<double> pf = {0.0, 0.5, 2.0, 8.0};
  const std::vector<double> pe = {1.5, -3.0, 2.0, 0.5};
  const auto rows = std::int64_t(pf.size());

  SECTION("relu(log f): 0 where log f < 0, e / f elsewhere") {
    constexpr auto d = kops::grad(kops::relu(kops::log(f)), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data());
    for (std::int64_t i = 0; i < rows; ++i) require_close(d, got, i, 0, pf[i] < 1 ? 0.0 : pe[i] / pf[i]);
  }
  SECTION("clampint<0, 1>(log f): e / f on [1, e], 0 elsewhere") {
    constexpr auto d = kops::grad(kops::clampint<0, 1>(kops::log(f)), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data());
    for (std::int64_t i = 0; i < rows; ++i)
      require_close(d, got, i, 0, pf[i] >= 1 && pf[i] <= std::exp(1.0) ? pe[i] / pf[i] : 0.0);
  }
  SECTION("clamp(f, log f, 3): the lower bound's derivative is not taken") {
    constexpr auto d = kops::grad(kops::clamp(f, kops::log(f), kops::cst<3>), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data());
    // log f <= f always; f <= 3 takes f (derivative e), f > 3 takes 3 (derivative 0).
    for (std::int64_t i = 0; i < rows; ++i) require_close(d, got, i, 0, pf[i] <= 3 ? pe[i] : 0.0);
  }
  SECTION("clamp(log f, a, b): f's derivative is not taken below a") {
    constexpr auto a = kops::vi<2, 1>;
    constexpr auto b = kops::vi<3, 1>;
    const std::vector<double> pa(rows, -1.0), pb(rows, 1.0);
    constexpr auto d = kops::grad(kops::clamp(kops::log(f), a, b), f, e);
    const auto got = eval_rows(d, rows, pf.data(), pe.data(), pa.data(), pb.data());
    for (std::int64_t i = 0; i < rows; ++i) {
      const double l = std::log(pf[i]);
      require_close(d, got, i, 0, l >= -1 && l <= 1 ? pe[i] / pf[i] : 0.0);
    }
    constexpr auto da = kops::grad(kops::clamp(kops::log(f), a, b), a, e);
    const auto gota = eval_rows(da, rows, pf.data(), pe.data(), pa.data(), pb.data());
    for (std::int64_t i = 0; i < rows; ++i) require_close(da, gota, i, 0, std::log(pf[i]) < -1 ? pe[i] : 0.0);
  }
  SECTION("max(sqrt x) and min(1/x) with a component x_k = 0") {
    // Row 0: x = (0, 4, 1); row 1: x = (9, 0, 0.25).
    const std::vector<double> px = {0.0, 4.0, 1.0, 9.0, 0.0, 0.25};
    const std::vector<double> p1 = {2.0, -1.0};
    constexpr auto dmax = kops::grad(kops::max(kops::sqrt(x)), x, e);
    const auto gmax = eval_rows(dmax, 2, px.data(), p1.data());
    for (std::int64_t i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) {
        const int arg = i == 0 ? 1 : 0;
        require_close(dmax, gmax, i, k, k == arg ? p1[i] / (2 * std::sqrt(px[i * 3 + k])) : 0.0);
      }
    constexpr auto dmin = kops::grad(kops::min(kops::inv(x)), x, e);
    const auto gmin = eval_rows(dmin, 2, px.data(), p1.data());
    for (std::int64_t i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) {
        const int arg = i == 0 ? 1 : 0;
        const double v = px[i * 3 + k];
        require_close(dmin, gmin, i, k, k == arg ? -p1[i] / (v * v) : 0.0);
      }
  }
  SECTION("sinxdivx at 0: the derivative of the constant 1 taken there") {
    const std::vector<double> pz = {0.0, 0.5, -2.0};
    constexpr auto d = kops::grad(kops::sinxdivx(f), f, e);
    const auto got = eval_rows(d, 3, pz.data(), pe.data());
    for (std::int64_t i = 0; i < 3; ++i) {
      const double z = pz[i];
      require_close(d, got, i, 0, z == 0 ? 0.0 : (std::cos(z) / z - std::sin(z) / (z * z)) * pe[i]);
    }
  }
}

TEST_CASE("select gradients: a dim-3 selection over what mixes components (a dim-1 variable broadcast)",
          "[grad][select]") {
  // Two rows of x (dim 3) and s (dim 1); e3 weighs the components.
  constexpr auto s = kops::vi<2, 1>;
  const std::vector<double> pe3 = {1.0, -3.0, 2.0, 0.5, 1.5, -1.0};

  SECTION("ifelse(x, sqrt(x) s, x) w.r.t. s: the components where x < 0 do not take sqrt(x)") {
    const std::vector<double> px = {-2.0, 4.0, 0.25, 1.0, -0.5, 9.0};
    const std::vector<double> ps = {3.0, -1.0};
    constexpr auto d = kops::grad(kops::ifelse(x, kops::sqrt(x) * s, x), s, e3);
    const auto got = eval_rows(d, 2, px.data(), pe3.data(), ps.data());
    for (std::int64_t i = 0; i < 2; ++i) {
      double want = 0;
      for (int k = 0; k < 3; ++k)
        if (px[i * 3 + k] >= 0) want += std::sqrt(px[i * 3 + k]) * pe3[i * 3 + k];
      require_close(d, got, i, 0, want);
    }
  }
  SECTION("ifelse(x, s x, log(s) x) w.r.t. s at s = 0: no component takes log(s) x") {
    const std::vector<double> px = {2.0, 4.0, 0.25, 1.0, 0.5, 9.0};
    const std::vector<double> ps = {0.0, 0.0};
    constexpr auto d = kops::grad(kops::ifelse(x, s * x, kops::log(s) * x), s, e3);
    const auto got = eval_rows(d, 2, px.data(), pe3.data(), ps.data());
    for (std::int64_t i = 0; i < 2; ++i) {
      double want = 0;
      for (int k = 0; k < 3; ++k) want += px[i * 3 + k] * pe3[i * 3 + k];
      require_close(d, got, i, 0, want);
    }
  }
  SECTION("relu(log(x) s) w.r.t. s with x_k = 0: relu takes 0 there") {
    const std::vector<double> px = {0.0, 4.0, 0.5, 9.0, 0.0, 2.0};
    const std::vector<double> ps = {2.0, 0.5};
    constexpr auto d = kops::grad(kops::relu(kops::log(x) * s), s, e3);
    const auto got = eval_rows(d, 2, px.data(), pe3.data(), ps.data());
    for (std::int64_t i = 0; i < 2; ++i) {
      double want = 0;
      for (int k = 0; k < 3; ++k) {
        const double l = std::log(px[i * 3 + k]);
        if (l * ps[i] >= 0) want += l * pe3[i * 3 + k];
      }
      require_close(d, got, i, 0, want);
    }
  }
  SECTION("forward mode: diff(relu(log(x) s), s, u) with x_k = 0") {
    const std::vector<double> px = {0.0, 4.0, 0.5, 9.0, 0.0, 2.0};
    const std::vector<double> ps = {2.0, 0.5};
    const std::vector<double> pu = {1.5, -2.0};
    constexpr auto u = kops::vi<1, 1>;
    constexpr auto d = kops::diff(kops::relu(kops::log(x) * s), s, u);
    const auto got = eval_rows(d, 2, px.data(), pu.data(), ps.data());
    for (std::int64_t i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) {
        const double l = std::log(px[i * 3 + k]);
        require_close(d, got, i, k, l * ps[i] >= 0 ? l * pu[i] : 0.0);
      }
  }
  SECTION("max(log(x) s) w.r.t. s with x_k = 0: the arg component only") {
    const std::vector<double> px = {0.0, 4.0, 1.0, 9.0, 0.0, 2.0};
    const std::vector<double> ps = {2.0, 0.5};
    const std::vector<double> p1 = {2.0, -1.0};
    constexpr auto d = kops::grad(kops::max(kops::log(x) * s), s, e);
    const auto got = eval_rows(d, 2, px.data(), p1.data(), ps.data());
    require_close(d, got, 0, 0, std::log(4.0) * p1[0]);
    require_close(d, got, 1, 0, std::log(9.0) * p1[1]);
  }
  SECTION("clamp(x, log(s), 1) at s = 0: no component takes the lower bound") {
    const std::vector<double> px = {-2.0, 4.0, 0.25, 1.0, -0.5, 9.0};
    const std::vector<double> ps = {0.0, 0.0};
    constexpr auto ds = kops::grad(kops::clamp(x, kops::log(s), kops::cst<1>), s, e3);
    const auto gots = eval_rows(ds, 2, px.data(), pe3.data(), ps.data());
    require_close(ds, gots, 0, 0, 0.0);
    require_close(ds, gots, 1, 0, 0.0);
    constexpr auto dx = kops::grad(kops::clamp(x, kops::log(s), kops::cst<1>), x, e3);
    const auto gotx = eval_rows(dx, 2, px.data(), pe3.data(), ps.data());
    for (std::int64_t i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) require_close(dx, gotx, i, k, px[i * 3 + k] <= 1 ? pe3[i * 3 + k] : 0.0);
  }
}
