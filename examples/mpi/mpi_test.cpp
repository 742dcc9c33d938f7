// Test of kops::mpi::eval (kops/mpi.hpp): for every reduction family, the
// result over slices spread across the ranks equals one kops::kokkos::eval over
// the whole data, for several ways of cutting the axis (uneven, an empty first
// slice, an empty last slice, everything on one rank), in float and double.
// Indices and min / k-min values exactly; sums, log-sum-exps, softmax averages
// and a two-pass gradient within the rounding of another order of additions.
//
// The points sit on a coarse grid, so many squared distances tie, across ranks
// too: the ties must go to the lowest index, which only a merge in rank order
// gives. Every rank holds the whole data (generated from the same seed), passes
// its slice to kops::mpi::eval and compares its output with its own reference.
//
//   mpiexec -n 3 ./mpi_test     (any number of ranks; ctest runs 1, 2, 3 and 4)
#include <kops/cluster.hpp>
#include <kops/mpi.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace {

using kops::category;

// kops::mpi's backend runs the passes' protocol (detail/dispatch.hpp): dense
// and block-sparse passes, split on either axis.
static_assert(kops::detail::Backend<kops::mpi::detail::mpi_backend<category::i>> &&
              kops::detail::RangedBackend<kops::mpi::detail::mpi_backend<category::i>>);
static_assert(kops::detail::Backend<kops::mpi::detail::mpi_backend<category::j>> &&
              kops::detail::RangedBackend<kops::mpi::detail::mpi_backend<category::j>>);
// kops::mpi::eval's entry: its own call, its own (collective) checks.
static_assert(kops::detail::OwnChecksBackend<kops::mpi::detail::mpi_entry<category::i>> &&
              kops::detail::check_eval_backend<kops::mpi::detail::mpi_entry<category::j>>());

int rank_ = 0, ranks_ = 1;
int failures = 0, checks = 0;
// When set, check() passes this block-sparsity structure (global indices) to
// both the reference and kops::mpi::eval.
const kops::block_sparsity* sparsity_ = nullptr;

// Slice boundaries of n items over the ranks: cut[r] .. cut[r + 1] is rank r's.
std::vector<std::int64_t> cut(std::int64_t n, int how) {
  std::vector<std::int64_t> c(ranks_ + 1, 0);
  std::vector<std::int64_t> size(ranks_, 0);
  if (how == 0) {  // uneven: rank r gets about (r + 1) parts
    const std::int64_t parts = std::int64_t(ranks_) * (ranks_ + 1) / 2;
    std::int64_t given = 0;
    for (int r = 0; r < ranks_; ++r) given += size[r] = n * (r + 1) / parts;
    size[ranks_ - 1] += n - given;
  } else if (how == 1) {  // rank 0 empty, the rest even
    for (int r = 1; r < ranks_; ++r) size[r] = n / (ranks_ - 1);
    size[ranks_ > 1 ? 1 : 0] += n - (ranks_ > 1 ? (n / (ranks_ - 1)) * (ranks_ - 1) : 0);
  } else if (how == 2) {  // rank 0 one item, the last rank empty
    size[0] = ranks_ > 1 ? 1 : n;
    for (int r = 1; r + 1 < ranks_; ++r) size[r] = (n - 1) / (ranks_ - 2);
    if (ranks_ > 2) size[ranks_ - 2] += (n - 1) - ((n - 1) / (ranks_ - 2)) * (ranks_ - 2);
    else if (ranks_ == 2) size[0] = n;
  } else {  // everything on the last rank
    size[ranks_ - 1] = n;
  }
  for (int r = 0; r < ranks_; ++r) c[r + 1] = c[r] + size[r];
  return c;
}
const char* cut_name[] = {"uneven", "first empty", "last empty", "one rank"};

template <class T>
bool same(T a, T b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(double(a) - double(b)) <= tol;
}
bool same(std::int64_t a, std::int64_t b, double) { return a == b; }
template <class T>
bool same(const kops::value_index<T>& a, const kops::value_index<T>& b, double) {
  return a.index == b.index && same(a.value, b.value, 0.0);
}

// |a - b| of finite values (what the tolerance bounds), 0 otherwise.
template <class O>
double diff(const O& a, const O& b) {
  if constexpr (std::is_floating_point_v<O>)
    return std::isfinite(a) && std::isfinite(b) ? std::fabs(double(a) - double(b)) : 0.0;
  else
    return 0.0;
}

// One argument: its whole array, its category and dim.
template <class T>
struct arg {
  const T* p;
  category cat;
  int dim;
};

// mpi::eval over this rank's slices against kokkos::eval over everything, for
// every cut of the split axis. rtol: tolerance on values relative to `scale`,
// by default the largest |value| of the reference (rtol 0: exactly equal).
template <auto... Policy, class Red, category C, class T, std::size_t K>
void check(const std::string& name, Red red, kops::mpi::split_tag<C> split, std::int64_t M, std::int64_t N,
           std::array<arg<T>, K> args, double rtol, double scale = 0.0) {
  using Out = typename Red::op::template out_t<T>;
  const std::int64_t rows = Red::row_cat == category::i ? M : N;
  std::vector<Out> ref(std::size_t(rows * Red::dim));
  std::apply(
      [&](auto... a) {
        if (sparsity_) kops::kokkos::eval<Policy...>(red, M, N, ref.data(), a.p..., *sparsity_);
        else kops::kokkos::eval<Policy...>(red, M, N, ref.data(), a.p...);
      },
      args);
  if (scale == 0.0)
    for (const Out& r : ref) scale = std::max(scale, diff(r, Out{}));
  const double tol = rtol * scale;
  double worst = 0.0;
  bool failed = false;
  for (int how = 0; how < 4; ++how) {
    const auto c = cut(C == category::i ? M : N, how);
    const std::int64_t lo = c[rank_], hi = c[rank_ + 1];
    std::array<const T*, K> mine;
    for (std::size_t k = 0; k < K; ++k) mine[k] = args[k].cat == C ? args[k].p + lo * args[k].dim : args[k].p;
    const std::int64_t Mr = C == category::i ? hi - lo : M, Nr = C == category::j ? hi - lo : N;
    // Reducing over the split axis: every row on every rank; else this rank's rows.
    const bool merged = Red::red_cat == C;
    const std::int64_t first = merged ? 0 : lo, count = merged ? rows : hi - lo;
    std::vector<Out> out(std::size_t(count * Red::dim) + 1);
    std::apply(
        [&](auto... p) {
          if (sparsity_) kops::mpi::eval<Policy...>(red, MPI_COMM_WORLD, split, Mr, Nr, out.data(), p..., *sparsity_);
          else kops::mpi::eval<Policy...>(red, MPI_COMM_WORLD, split, Mr, Nr, out.data(), p...);
        },
        mine);
    int bad = 0;
    for (std::int64_t e = 0; e < count * Red::dim; ++e) {
      worst = std::max(worst, diff(out[std::size_t(e)], ref[std::size_t(first * Red::dim + e)]));
      if (!same(out[std::size_t(e)], ref[std::size_t(first * Red::dim + e)], tol)) {
        if (bad++ == 0)
          std::printf("  rank %d, %s, %s: first mismatch at element %lld\n", rank_, name.c_str(), cut_name[how],
                      (long long)e);
      }
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ++checks;
    if (any) ++failures, failed = true;
    if (rank_ == 0 && any) std::printf("FAIL %s (%s)\n", name.c_str(), cut_name[how]);
  }
  double worst_all = 0.0;
  MPI_Allreduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == 0 && !failed) {
    if (rtol > 0)
      std::printf("checked %s: max |difference| %.2g (tolerance %.2g, scale %.2g)\n", name.c_str(),
                  worst_all, double(tol), scale);
    else std::printf("checked %s: exactly equal\n", name.c_str());
  }
}

// Does mpi::eval throw kops::error on every rank (and then, hang nowhere)?
template <class Fn>
void check_throws(const std::string& name, Fn fn) {
  int thrown = 0;
  try {
    fn();
  } catch (const kops::error& e) {
    thrown = 1;
    if (rank_ == 0) std::printf("  %s: %s\n", name.c_str(), e.what());
  }
  int all = 0;
  MPI_Allreduce(&thrown, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ++checks;
  if (all != ranks_) {
    ++failures;
    if (rank_ == 0) std::printf("FAIL %s: %d of %d ranks threw\n", name.c_str(), all, ranks_);
  }
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  {
    Kokkos::ScopeGuard guard(argc, argv);
    // N > 2 * 1024: the block scheme flushes inside slices (block_sum_length).
    const std::int64_t M = 37, N = 2600;
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> grid(0, 31);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    std::vector<float> x(M * 2), y(N * 2), b(N), h(N * 2), e(M), c(M), g{0.7f};
    std::vector<float> inf(N, INFINITY), w(N);
    for (auto& v : x) v = 0.125f * float(grid(rng));
    for (auto& v : y) v = 0.125f * float(grid(rng));
    for (auto& v : b) v = u(rng);
    for (auto& v : h) v = u(rng);
    for (auto& v : e) v = u(rng);
    for (auto& v : c) v = u(rng);
    for (auto& v : w) v = 1.f + u(rng);
    w[2100] = NAN;  // the first NaN wins min / argmin
    w[2400] = NAN;

    constexpr auto xi = kops::vi<0, 2>;
    constexpr auto yj = kops::vj<1, 2>;
    constexpr auto gp = kops::pm<2, 1>;
    constexpr auto bj = kops::vj<3, 1>;
    constexpr auto d2 = kops::sqdist(xi, yj);
    const arg<float> X{x.data(), category::i, 2}, Y{y.data(), category::j, 2}, G{g.data(), category::param, 1},
        B{b.data(), category::j, 1};
    // Relative tolerances: float sums of 2600 terms added in another order
    // (1e-5, about 170 float ulps of the largest value; the direct scheme's
    // worst case, n eps = 1.5e-4, is 4 times larger again than block sums');
    // compensated and double accumulators 10 times tighter.
    const float rtol = 1e-5f, rtol_acc = 1e-6f;

    // Sums of a Gaussian kernel over j, under each summation scheme.
    constexpr auto conv = kops::sum_reduction(kops::exp(-gp * d2) * bj, kops::axis_j);
    const std::array<arg<float>, 4> conv_args{X, Y, G, B};
    check("sum (block scheme, the default)", conv, kops::mpi::split_j, M, N, conv_args, rtol);
    check<kops::sum_scheme::direct>("sum, direct", conv, kops::mpi::split_j, M, N, conv_args, 4 * rtol);
    check<kops::sum_scheme::kahan>("sum, kahan", conv, kops::mpi::split_j, M, N, conv_args, rtol_acc);
    check<kops::sum_scheme::block, kops::dtype_acc::float64>("sum, block, float64 accumulator", conv,
                                                              kops::mpi::split_j, M, N, conv_args, rtol_acc);
    check<kops::precision::fast>("sum, fast precision", conv, kops::mpi::split_j, M, N, conv_args, rtol);

    // Nearest neighbours: many exact ties across ranks.
    const std::array<arg<float>, 2> xy{X, Y};
    check("min_argmin of |x - y|^2", kops::min_argmin_reduction(d2, kops::axis_j),
          kops::mpi::split_j, M, N, xy, 0.f);
    check("argmin of x - y (2 components)", kops::argmin_reduction(xi - yj, kops::axis_j),
          kops::mpi::split_j, M, N, xy, 0.f);
    check("max_argmax of |x - y|^2", kops::max_argmax_reduction(d2, kops::axis_j),
          kops::mpi::split_j, M, N, xy, 0.f);
    check("kmin_argkmin<3> of |x - y|^2", kops::kmin_argkmin_reduction<3>(d2, kops::axis_j), kops::mpi::split_j, M, N,
          xy, 0.f);
    check("argkmin<5> of x - y", kops::argkmin_reduction<5>(xi - yj, kops::axis_j),
          kops::mpi::split_j, M, N, xy, 0.f);
    // Every term +inf: the index is the first of the whole axis (0), even when
    // rank 0's slice is empty.
    check("argmin over all +inf terms", kops::argmin_reduction(kops::sqnorm2(xi) + kops::vj<1, 1>, kops::axis_j),
          kops::mpi::split_j, M, N, std::array<arg<float>, 2>{X, arg<float>{inf.data(), category::j, 1}}, 0.f);
    check("min_argmin with NaN terms", kops::min_argmin_reduction(kops::sqnorm2(xi) * kops::vj<1, 1>, kops::axis_j),
          kops::mpi::split_j, M, N, std::array<arg<float>, 2>{X, arg<float>{w.data(), category::j, 1}}, 0.f);

    // Max-shifted exponential sums.
    check("logsumexp", kops::logsumexp_reduction(-gp * d2, kops::axis_j), kops::mpi::split_j, M, N,
          std::array<arg<float>, 3>{X, Y, G}, rtol);
    check("sumsoftmaxweight",
          kops::sumsoftmaxweight_reduction(-gp * d2, kops::vj<3, 2>, kops::axis_j), kops::mpi::split_j, M, N,
          std::array<arg<float>, 4>{X, Y, G, arg<float>{h.data(), category::j, 2}}, rtol,
          0.5);  // a mean of h, |h| <= 0.5

    // Double precision: packs of 8 lanes (16 floats), another accumulator layout.
    const std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end()), bd(b.begin(), b.end()), gd{0.7};
    const arg<double> Xd{xd.data(), category::i, 2}, Yd{yd.data(), category::j, 2};
    const arg<double> Gd{gd.data(), category::param, 1}, Bd{bd.data(), category::j, 1};
    check("double sum", conv, kops::mpi::split_j, M, N, std::array<arg<double>, 4>{Xd, Yd, Gd, Bd}, 1e-13);
    check("double kmin_argkmin<4>", kops::kmin_argkmin_reduction<4>(d2, kops::axis_j), kops::mpi::split_j, M, N,
          std::array<arg<double>, 2>{Xd, Yd}, 0.0);

    // axis_i: the reduced axis is i, so the i-variables are split.
    constexpr auto ci = kops::vi<3, 1>;
    const arg<float> Ci{c.data(), category::i, 1};
    check("axis_i sum", kops::sum_reduction(kops::exp(-gp * d2) * ci, kops::axis_i), kops::mpi::split_i, M, N,
          std::array<arg<float>, 4>{X, Y, G, Ci}, rtol);
    check("axis_i min_argmin", kops::min_argmin_reduction(d2, kops::axis_i), kops::mpi::split_i, M, N, xy, 0.f);
    check("axis_i kmin_argkmin<3>", kops::kmin_argkmin_reduction<3>(d2, kops::axis_i), kops::mpi::split_i, M, N, xy,
          0.f);
    check("axis_i logsumexp", kops::logsumexp_reduction(-gp * d2, kops::axis_i), kops::mpi::split_i, M, N,
          std::array<arg<float>, 3>{X, Y, G}, rtol);

    // The output rows' axis split: each rank its own rows, no data moved. A
    // row's sum depends on the rows evaluated with it (a block whose rows fill
    // one SIMD pack splits the reduced axis between two, and few rows on
    // several threads slice it: backends.md), hence rtol, not exact equality.
    check("sum, rows split", conv, kops::mpi::split_i, M, N, conv_args, rtol);
    check("axis_i argmin, rows split", kops::argmin_reduction(d2, kops::axis_i), kops::mpi::split_j, M, N, xy, 0.f);

    // Two passes: the gradient of a logsumexp over j w.r.t. y_j (e an i-variable).
    constexpr auto lse = kops::logsumexp_reduction(-gp * d2, kops::axis_j);
    constexpr auto dlse = kops::grad(lse, yj, kops::vi<3, 1>);
    static_assert(kops::is_chained_v<std::remove_const_t<decltype(dlse)>>);
    const std::array<arg<float>, 4> dlse_args{X, Y, G, arg<float>{e.data(), category::i, 1}};
    // The forward pass's rounding (log-sum-exps within about 1e-5) enters the
    // exponentials of the second: 1e-4 relative to the largest gradient.
    check("grad of logsumexp w.r.t. y, j split (forward merged, rows local)", dlse, kops::mpi::split_j, M, N,
          dlse_args, 10 * rtol);
    check("grad of logsumexp w.r.t. y, i split (forward local, gradient merged)", dlse, kops::mpi::split_i, M, N,
          dlse_args, 10 * rtol);

    // Block-sparse: one structure in global indices on every rank (rows in no
    // block, a block without intervals, intervals across the ranks' slices).
    {
      kops::cluster::structure st;  // rows i of M = 37 over the N = 2600 j's
      st.rows = {{0, 9}, {9, 20}, {23, 30}, {30, 37}};
      st.slices = {2, 3, 3, 5};
      st.reduced = {{0, 700}, {1500, 2600}, {100, 2500}, {5, 6}, {2000, 2601 - 1}};
      kops::cluster::structure stt = kops::cluster::transpose(st.view(), M, N);  // rows j over the i's
      stt.axis = kops::sparsity_axis::j;  // (the gradient w.r.t. y takes only a tagged structure)
      const kops::block_sparsity s_i = st.view(), s_j = stt.view();
      sparsity_ = &s_i;
      check("ranged sum, j split", conv, kops::mpi::split_j, M, N, conv_args, rtol);
      check("ranged sum, i split (rows)", conv, kops::mpi::split_i, M, N, conv_args, rtol);
      check<kops::sum_scheme::kahan>("ranged sum, kahan", conv, kops::mpi::split_j, M, N, conv_args, rtol_acc);
      check("ranged min_argmin", kops::min_argmin_reduction(d2, kops::axis_j), kops::mpi::split_j, M, N, xy, 0.f);
      check("ranged kmin_argkmin<3>", kops::kmin_argkmin_reduction<3>(d2, kops::axis_j), kops::mpi::split_j, M, N,
            xy, 0.f);
      check("ranged logsumexp", kops::logsumexp_reduction(-gp * d2, kops::axis_j), kops::mpi::split_j, M, N,
            std::array<arg<float>, 3>{X, Y, G}, rtol);
      check("ranged double sum", conv, kops::mpi::split_j, M, N, std::array<arg<double>, 4>{Xd, Yd, Gd, Bd}, 1e-13);
      sparsity_ = &s_j;
      check("ranged axis_i min_argmin, i split", kops::min_argmin_reduction(d2, kops::axis_i), kops::mpi::split_i, M,
            N, xy, 0.f);
      check("ranged axis_i sum, j split (rows)", kops::sum_reduction(kops::exp(-gp * d2) * ci, kops::axis_i),
            kops::mpi::split_j, M, N, std::array<arg<float>, 4>{X, Y, G, Ci}, rtol);
      // The two-pass gradient w.r.t. y_j takes the structure of its j rows; its
      // forward pass runs on the transpose (i rows), merged or local.
      check("ranged grad of logsumexp w.r.t. y, j split", dlse, kops::mpi::split_j, M, N, dlse_args, 10 * rtol);
      check("ranged grad of logsumexp w.r.t. y, i split", dlse, kops::mpi::split_i, M, N, dlse_args, 10 * rtol);
      // The forward structure tagged as i rows serves the gradient too (transposed by eval).
      kops::block_sparsity tagged = s_i;
      tagged.axis = kops::sparsity_axis::i;
      sparsity_ = &tagged;
      check("ranged grad of logsumexp w.r.t. y, tagged forward structure", dlse, kops::mpi::split_j, M, N, dlse_args,
            10 * rtol);
      sparsity_ = nullptr;

      std::vector<float> o(static_cast<std::size_t>(M));
      const kops::range bad_rows[] = {{0, 38}};
      const std::int64_t one[] = {1};
      check_throws("a block-sparsity structure out of range", [&] {
        kops::mpi::eval(conv, MPI_COMM_WORLD, M, std::int64_t(N / ranks_), o.data(), x.data(), y.data(), g.data(),
                        b.data(), kops::block_sparsity{bad_rows, 1, one, st.reduced.data()});
      });
      if (ranks_ > 1)
        check_throws("ranks pass different structures", [&] {
          const kops::range r[] = {{0, rank_ == 0 ? 10 : 11}};
          kops::mpi::eval(conv, MPI_COMM_WORLD, M, std::int64_t(N / ranks_), o.data(), x.data(), y.data(),
                          g.data(), b.data(), kops::block_sparsity{r, 1, one, st.reduced.data()});
        });
    }

    // Misuse: every rank throws, no rank hangs.
    std::vector<float> out(static_cast<std::size_t>(M));
    std::vector<kops::value_index<float>> knn(std::size_t(M) * 3);
    auto* vi_out = knn.data();
    if (ranks_ > 1)
      check_throws("ranks disagree on M", [&] {
        kops::mpi::eval(conv, MPI_COMM_WORLD, M - (rank_ == ranks_ - 1 ? 1 : 0), std::int64_t(0), out.data(),
                        x.data(), y.data(), g.data(), b.data());
      });
    check_throws("a null pointer on the last rank", [&] {
      kops::mpi::eval(conv, MPI_COMM_WORLD, M, std::int64_t(1), out.data(), x.data(),
                      rank_ == ranks_ - 1 ? nullptr : y.data(), g.data(), b.data());
    });
    // The range form: this rank's N deduced from its slice of y, the same
    // result as the pointer form; a short range on the last rank only makes
    // every rank throw (agreed before anything runs), none hang.
    {
      const std::int64_t Nr = N / ranks_, first = rank_ * Nr;
      const std::span<const float> yr(y.data() + first * 2, std::size_t(Nr * 2)), br(b.data() + first, std::size_t(Nr));
      std::vector<float> by_pointers(static_cast<std::size_t>(M)), by_ranges(static_cast<std::size_t>(M));
      kops::mpi::eval(conv, MPI_COMM_WORLD, M, Nr, by_pointers.data(), x.data(), yr.data(), g.data(), br.data());
      kops::mpi::eval(conv, MPI_COMM_WORLD, std::span(by_ranges), std::span(x), yr, std::span(g), br);
      ++checks;
      if (by_ranges != by_pointers) {
        ++failures;
        std::printf("FAIL rank %d: the range form differs from the pointer form\n", rank_);
      }
      check_throws("a short range on the last rank", [&] {
        kops::mpi::eval(conv, MPI_COMM_WORLD, std::span(by_ranges), std::span(x), yr, std::span(g),
                        rank_ == ranks_ - 1 ? br.first(std::size_t(Nr - 1)) : br);
      });
    }
    check_throws("fewer terms than K on all ranks together", [&] {
      kops::mpi::eval(kops::kmin_argkmin_reduction<3>(d2, kops::axis_j), MPI_COMM_WORLD, M,
                      std::int64_t(rank_ == 0 ? 2 : 0), vi_out, x.data(), y.data());
    });
    // ... whereas K terms spread over ranks (1 on some, 0 on others) are enough.
    {
      const std::int64_t Nr = rank_ < 3 ? 1 : 0;
      int ok = 1;
      try {
        kops::mpi::eval(kops::kmin_argkmin_reduction<3>(d2, kops::axis_j), MPI_COMM_WORLD, M, Nr, vi_out, x.data(),
                        y.data() + 2 * std::min(rank_, 2));
      } catch (const kops::error&) {
        ok = 0;
      }
      const bool enough = ranks_ >= 3;
      ++checks;
      if (bool(ok) != enough) {
        ++failures;
        std::printf("FAIL rank %d: k-min over K terms spread across ranks\n", rank_);
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == 0)
    std::printf("kops::mpi::eval on %d rank(s): %d checks, %d failed\ncheck: %s\n", ranks_, checks, total,
                total == 0 ? "PASS" : "FAIL");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
