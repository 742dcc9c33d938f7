// Variables of any width on the CPU backend: the backend-generic body of
// tests/common/wide_body.hpp, the gradients at D = 784 (whose outputs are
// 784-wide: the sum inside is chunked, the output evaluated whole), and what
// the lowering does to the formula (static checks).
#include "test_support.hpp"

// (The sanitizer builds, tools/sanitize.sh, stamp the body and the gradients
// for one element type each: the two types run the same loops; CI time.)
#if defined(KOPS_TEST_FEWER)
#define KOPS_TEST_CONFIGS_WIDE (kops_test::cfg<kops_test::kokkos_backend, float>)
#define KOPS_TEST_WIDE_GRAD_TYPES double
#else
#define KOPS_TEST_CONFIGS_WIDE \
  (kops_test::cfg<kops_test::kokkos_backend, float>), (kops_test::cfg<kops_test::kokkos_backend, double>)
#define KOPS_TEST_WIDE_GRAD_TYPES float, double
#endif
#include "../common/wide_body.hpp"

namespace {

template <class F> inline constexpr bool has_chunked_sum_v = false;
template <class G, int CH> inline constexpr bool has_chunked_sum_v<kops::ChunkedSum<G, CH>> = true;
template <class F>
  requires(F::children::size > 0)
inline constexpr bool has_chunked_sum_v<F> = []<class... C>(kops::type_list<C...>) {
  return (has_chunked_sum_v<C> || ...);
}(typename F::children{});

constexpr auto x784 = kops::vi<0, 784>;
constexpr auto y784 = kops::vj<1, 784>;
using gauss784 = decltype(kops::sum_reduction(kops::exp(-kops::sqdist(x784, y784)), kops::axis_j));
using cpu784 = kops::kokkos::detail::cpu_formula_t<gauss784, kops::precision::accurate>;
static_assert(has_chunked_sum_v<cpu784>, "a 784-wide sqdist is chunked on the CPU");
static_assert(!has_chunked_sum_v<typename gauss784::formula>, "the reduction's own formula is not");
using gauss3 = decltype(kops::sum_reduction(kops::exp(-kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>)), kops::axis_j));
static_assert(std::is_same_v<kops::kokkos::detail::cpu_formula_t<gauss3, kops::precision::fast>,
                             kops::policy_formula_t<gauss3, kops::precision::fast, kops::kokkos::detail::cpu_target>>,
              "narrow formulas are left as they are");
// Not chunkable: a sum over an extracted slice reads the variable whole.
using sliced = decltype(kops::sum_reduction(kops::sum(kops::extract<0, 100>(x784) * kops::vj<1, 100>), kops::axis_j));
static_assert(!has_chunked_sum_v<kops::kokkos::detail::cpu_formula_t<sliced, kops::precision::accurate>>);
// A chunk's body: the element-wise nodes over 8-wide chunks of both variables.
using body784 = kops::ChunkedSum<decltype(kops::square(x784 - y784)), 8>::body;
static_assert(body784::dim == 8);
static_assert(kops::ChunkedSum<decltype(kops::square(kops::vi<0, 65>)), 8>::tail_body::dim == 1);

// Output chunking (detail/output_chunks.hpp): K b with a 1000-wide b runs in
// chunks of 32 on the CPU; not the gradient w.r.t. a 784-wide x (its kernel
// part is wide: evaluated again per chunk it would cost more than it saves),
// not the softmax-weighted sum (not component by component), not a reduction
// whose output rows hold the wide variable, not a wide variable at argument
// index >= 64 (the pointer masks hold 64 bits).
using host = kops::kokkos::detail::host_backend;
constexpr auto k3 = kops::exp(-kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>));
using kb = decltype(kops::sum_reduction(k3 * kops::vj<2, 1000>, kops::axis_j));
static_assert(kops::detail::output_chunked_v<host, kb>);
static_assert(kops::detail::output_chunks<kb, 128, 32>::moved == 0b100);
static_assert(kops::detail::output_chunk_passes<kb, 32>::tail::dim == 1000 % 32);
static_assert(kops::out_stride_v<kops::detail::output_chunk_passes<kb, 32>::full> == 1000);
using grad784 = decltype(kops::grad(kops::sum_reduction(kops::exp(-kops::sqdist(x784, y784)), kops::axis_j), x784,
                                    kops::vi<2, 1>));
static_assert(grad784::dim == 784 && !kops::detail::output_chunked_v<host, grad784>);
static_assert(!kops::detail::output_chunked_v<host, decltype(kops::sum_reduction(k3 * kops::vi<2, 1000>, kops::axis_j))>);
static_assert(!kops::detail::output_chunked_v<
              host, decltype(kops::sumsoftmaxweight_reduction(k3, kops::vj<2, 1000>, kops::axis_j))>);
static_assert(!kops::detail::output_chunked_v<host, decltype(kops::sum_reduction(k3 * kops::vj<2, 100>, kops::axis_j))>,
              "narrower than KOPS_CPU_OUTPUT_CHUNK_MIN_DIM");
static_assert(!kops::detail::output_chunked_v<host, decltype(kops::sum_reduction(k3 * kops::vj<70, 1000>, kops::axis_j))>);
static_assert(kops::detail::output_chunked_v<host, decltype(kops::sum_reduction(k3 * kops::vj<63, 1000>, kops::axis_j))>);

// Final chunks on the CPU (block_kernel::final_chunks): the gradient w.r.t. the
// 784-wide x (its sqdist staged, its one part s once per pair, the output 8
// components at a time, each chunk its own accumulator), under every scheme;
// a wide row variable times a narrow kernel; not an output in passes (K b), not
// a reduction other than a sum, not a narrow output.
template <class Red, class T = float, kops::sum_scheme S = kops::sum_scheme::block>
using cpu_kernel =
    kops::kokkos::detail::block_kernel<Red, T, T, kops::policy<kops::precision::accurate, S, kops::dtype_acc::same>>;
using KG = cpu_kernel<grad784>;
static_assert(KG::final_chunks && KG::staged && KG::FinalPlan::nscalars == 1 && KG::FinalPlan::chunk == 8);
static_assert(KG::Op::chunks == 98 && KG::Op::tail == 0);
static_assert(cpu_kernel<grad784, double, kops::sum_scheme::kahan>::final_chunks);
static_assert(cpu_kernel<grad784, kops::half, kops::sum_scheme::direct>::final_chunks);
using krow = decltype(kops::sum_reduction(k3 * kops::vi<2, 1000>, kops::axis_j));
static_assert(cpu_kernel<krow>::final_chunks && !cpu_kernel<krow>::staged && cpu_kernel<krow>::Op::tail == 0);
static_assert(!cpu_kernel<kops::detail::output_chunk_passes<kb, 32>::full>::final_chunks);
static_assert(!cpu_kernel<decltype(kops::max_reduction(k3 * kops::vi<2, 1000>, kops::axis_j))>::final_chunks);
static_assert(!cpu_kernel<gauss784>::final_chunks && !cpu_kernel<gauss3>::final_chunks);

} // namespace

TEMPLATE_TEST_CASE("wide variables: gradients at D = 784 against the reference and finite differences", "[wide]",
                   KOPS_TEST_WIDE_GRAD_TYPES) {
  using T = TestType;
  constexpr int D = 784;
  const wide_body::data<T, D> d(23, 31, 77);
  const std::int64_t M = d.M, N = d.N;
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  const auto gauss = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
  const auto e = kops::vi<4, 1>;
  const auto ei = kops_test::random_vector<T>(std::size_t(M), -1, 1, 78);
  const double tl = wide_body::tol<T>();

  // d/dx: rows i, 784-wide; d/dy: rows j (the transposed reduction), 784-wide.
  const auto gx = kops::grad(gauss, x, e);
  const auto gy = kops::grad(gauss, y, e);
  wide_body::check_against_reference<T, T, kops_test::kokkos_backend>("d/dx", gx, M, N, tl, d.x.data(), d.y.data(),
                                                                      d.b.data(), d.g.data(), ei.data());
  wide_body::check_against_reference<T, T, kops_test::kokkos_backend>("d/dy", gy, M, N, tl, d.x.data(), d.y.data(),
                                                                      d.b.data(), d.g.data(), ei.data());

  // d/dx against central differences of sum_i e_i a_i in double (the reference).
  if constexpr (std::is_same_v<T, double>) {
    std::vector<T> out(static_cast<std::size_t>(M * D));
    kops::kokkos::eval(gx, M, N, out.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(), ei.data());
    const auto objective = [&](const std::vector<T>& px) {
      std::vector<double> a(static_cast<std::size_t>(M));
      kops_test::reference_eval<double>(gauss, M, N, a.data(), px.data(), d.y.data(), d.b.data(), d.g.data());
      double s = 0;
      for (std::int64_t i = 0; i < M; ++i) s += ei[std::size_t(i)] * a[std::size_t(i)];
      return s;
    };
    for (const std::int64_t at : {std::int64_t(0), std::int64_t(7 * D + 500), std::int64_t(M * D - 1)}) {
      std::vector<T> xp = d.x, xm = d.x;
      const double h = 1e-5;
      xp[std::size_t(at)] += h, xm[std::size_t(at)] -= h;
      const double fd = (objective(xp) - objective(xm)) / (2 * h);
      INFO("component " << at);
      CHECK(kops_test::close(out[std::size_t(at)], fd, 1e-6, 1e-3));
    }
  }
}
