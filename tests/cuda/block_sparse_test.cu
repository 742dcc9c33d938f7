// Block-sparse reductions on the GPU backend (kops::cuda::eval with a
// kops::block_sparsity in device memory): the reductions of each kind, both
// axes, against the reduction over the kept pairs only (reference_eval_kept),
// on random structures (rows in no block, blocks without intervals, empty
// intervals, row blocks longer than a CUDA block); a summation scheme whose
// flush count runs across intervals; a two-pass gradient whose first pass runs
// on the transposed structure; invalid structures. Runs on a GPU and, built
// against kops::cuda_emulated, on CPU threads (ctest label gpu_emulated).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../common/sparsity.hpp"
#include "cuda_support.hpp"

using namespace kops_test;
using Catch::Matchers::Contains;

namespace {

// A structure's arrays in device memory (and its axis tag).
struct device_structure {
  device_copy<range> rows, reduced;
  device_copy<std::int64_t> slices;
  std::int64_t blocks;
  kops::sparsity_axis axis;
  explicit device_structure(const kops::cluster::structure& s)
      : rows(s.rows), reduced(s.reduced), slices(s.slices), blocks(std::int64_t(s.rows.size())), axis(s.axis) {}
  kops::block_sparsity view() const { return {rows.p, blocks, slices.p, reduced.p, axis}; }
};

template <class T, auto... Policy, class Red, class... P>
void check_ranged_gpu(Red red, std::int64_t M, std::int64_t N, const kops::cluster::structure& st, double tol,
                      kops::cuda::scheme scheme, const std::vector<P>&... args) {
  using Out = typename Red::op::template out_t<T>;
  const bool rows_i = Red::row_cat == kops::category::i;
  const std::int64_t rows = rows_i ? M : N, cols = rows_i ? N : M;
  device_copy<Out> out(std::size_t(rows * Red::dim));
  const device_structure ds(st);
  kops::cuda::options o;
  o.scheme = scheme;
  // Forced GPU_2D: split into pieces of 7 terms (intervals cut mid-way); automatic: the rule's choice.
  o.gpu_2d_chunk = scheme == kops::cuda::scheme::gpu_2d ? 7 : 0;
  auto run = [&](const auto&... dev) {
    kops::cuda::eval<Policy...>(red, M, N, out.p, dev.p..., o, ds.view());
    return cudaDeviceSynchronize();  // before the arguments' copies go
  };
  REQUIRE(run(device_copy<P>(args)...) == cudaSuccess);
  const std::vector<Out> got = out.to_host();
  std::vector<Out> want(got.size());
  const std::vector<char> keep = kept_mask(st.view(), rows, cols);
  reference_eval_kept<T>(mask_keep{&keep, cols}, red, M, N, want.data(), args.data()...);
  for (std::size_t k = 0; k < got.size(); ++k) {
    INFO("row " << k / Red::dim << " component " << k % Red::dim << " of " << rows);
    REQUIRE(same_value(got[k], want[k], tol));
  }
}

} // namespace

TEST_CASE("GPU block_sparsity: reductions of every kind, both axes, random structures", "[block_sparse]") {
  using T = float;
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 2>;
  constexpr auto g = kops::pm<3, 1>;
  // Row blocks of several CUDA blocks (192 rows); emulated: smaller.
  const std::int64_t M = emulated ? 300 : 1203, N = emulated ? 280 : 1181;
  const auto px = random_vector<T>(M * 3, 0, 1, 11), py = random_vector<T>(N * 3, 0, 1, 12);
  const auto pb = random_vector<T>(N * 2, -1, 1, 13);
  const std::vector<T> pg{T(2.5)};
  const auto d2 = g * kops::sqdist(x, y) + kops::sum(b) / kops::cst<10>;
  for (unsigned seed : {1u, 2u}) {
    for (int axis_j : {1, 0}) {
      const std::int64_t rows = axis_j ? M : N, cols = axis_j ? N : M;
      // Longer row blocks than the CPU test's: a few CUDA blocks each.
      const auto st = random_structure(rows, cols, seed * 7 + unsigned(axis_j), emulated ? 300 : 700);
      INFO("seed " << seed << (axis_j ? " axis_j" : " axis_i") << ", " << st.rows.size() << " row blocks");
      const auto sch = seed == 1 ? kops::cuda::scheme::automatic : kops::cuda::scheme::gpu_2d;
      auto each_axis = [&](auto axis) {
        check_ranged_gpu<T>(kops::sum_reduction(kops::exp(-d2) * b, axis), M, N, st, 1e-4, sch, px, py, pb, pg);
        check_ranged_gpu<T>(kops::argmin_reduction(d2, axis), M, N, st, 1e-4, sch, px, py, pb, pg);
        check_ranged_gpu<T>(kops::min_argmin_reduction(d2, axis), M, N, st, 1e-4, sch, px, py, pb, pg);
        check_ranged_gpu<T>(kops::kmin_argkmin_reduction<3>(d2, axis), M, N, st, 1e-4, sch, px, py, pb, pg);
        check_ranged_gpu<T>(kops::logsumexp_reduction(-d2, axis), M, N, st, 1e-4, sch, px, py, pb, pg);
        check_ranged_gpu<T>(kops::sumsoftmaxweight_reduction(-d2, b, axis), M, N, st, 1e-4, sch, px, py, pb, pg);
      };
      if (axis_j) each_axis(kops::axis_j);
      else each_axis(kops::axis_i);
    }
  }
}

TEST_CASE("GPU block_sparsity: a summation scheme, the fast policy, double", "[block_sparse]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  const std::int64_t M = emulated ? 200 : 2000, N = emulated ? 700 : 5000;
  const auto px = random_vector<double>(M * 3, 0, 1, 21), py = random_vector<double>(N * 3, 0, 1, 22);
  const auto pb = random_vector<double>(N, 0, 1, 23);
  const auto pxf = random_vector<float>(M * 3, 0, 1, 21), pyf = random_vector<float>(N * 3, 0, 1, 22);
  const auto pbf = random_vector<float>(N, 0, 1, 23);
  // Long intervals, many tiles each: the block scheme flushes across them.
  kops::cluster::structure st;
  st.rows = {{3, M / 2}, {M / 2 + 5, M}};
  st.reduced = {{0, N / 3}, {N / 3 + 1, N - 2}, {7, N}};
  st.slices = {2, 3};
  const auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  check_ranged_gpu<double, kops::sum_scheme::block>(conv, M, N, st, 1e-11, kops::cuda::scheme::automatic, px, py, pb);
  check_ranged_gpu<double, kops::sum_scheme::kahan>(conv, M, N, st, 1e-11, kops::cuda::scheme::automatic, px, py, pb);
  check_ranged_gpu<float, kops::precision::fast>(conv, M, N, st, 2e-4, kops::cuda::scheme::automatic, pxf, pyf, pbf);
}

TEST_CASE("GPU block_sparsity: Kahan sums carry their compensation across intervals", "[block_sparse]") {
  // One large term, then ones over 5 intervals: a float sum loses them all
  // (2^25 + 1 rounds to 2^25), a Kahan sum keeps them.
  constexpr auto b = kops::vj<0, 1>;
  const std::int64_t M = 3, N = 5000;
  std::vector<float> pb(N, 1.0f);
  pb[0] = 33554432.0f;
  kops::cluster::structure st;
  st.rows = {{0, M}};
  st.reduced = {{0, 700}, {700, 1500}, {1600, 2600}, {2600, 4000}, {4100, 5000}};
  st.slices = {5};
  const double exact = 33554432.0 + (700 - 1) + 800 + 1000 + 1400 + 900;
  const device_structure ds(st);
  device_copy<float> db(pb), out(static_cast<std::size_t>(M));
  kops::cuda::options unsplit;  // one piece per row: the compensation crosses every interval
  unsplit.scheme = kops::cuda::scheme::gpu_1d;
  kops::cuda::eval<kops::sum_scheme::kahan>(kops::sum_reduction(b, kops::axis_j), M, N, out.p, db.p, ds.view(),
                                            unsplit);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (float v : out.to_host()) CHECK(std::abs(double(v) - exact) <= 4.0);
  // Split into pieces (the automatic rule splits this one long task): still compensated.
  kops::cuda::eval<kops::sum_scheme::kahan>(kops::sum_reduction(b, kops::axis_j), M, N, out.p, db.p, ds.view());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (float v : out.to_host()) CHECK(std::abs(double(v) - exact) <= 4.0);
  kops::cuda::eval<kops::sum_scheme::direct>(kops::sum_reduction(b, kops::axis_j), M, N, out.p, db.p, ds.view(),
                                             unsplit);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (float v : out.to_host()) CHECK(std::abs(double(v) - exact) > 1000.0);
}

TEST_CASE("GPU block_sparsity: a two-pass gradient, the first pass on the transposed structure",
          "[block_sparse][grad]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto e = kops::vi<2, 1>;
  const std::int64_t M = emulated ? 157 : 1157, N = emulated ? 143 : 1043;
  const auto px = random_vector<double>(M * 3, 0, 1, 51), py = random_vector<double>(N * 3, 0, 1, 52);
  const auto pe = random_vector<double>(M, -1, 1, 54);
  const auto st = random_structure(M, N, 9);
  const auto keep = kept_mask(st.view(), M, N);
  auto stt = kops::cluster::transpose(st.view(), M, N);  // j rows: the gradient's
  stt.axis = kops::sparsity_axis::j;  // (a gradient w.r.t. y takes only a tagged structure)
  auto k = [&](std::int64_t i, std::int64_t j, double* r) {
    double r2 = 0;
    for (int c = 0; c < 3; ++c) r[c] = px[i * 3 + c] - py[j * 3 + c], r2 += r[c] * r[c];
    return std::exp(-r2);
  };
  std::vector<double> lse(M);
  for (std::int64_t i = 0; i < M; ++i) {
    double s = 0, r[3];
    for (std::int64_t j = 0; j < N; ++j)
      if (keep[i * N + j]) s += k(i, j, r);
    lse[i] = s;  // sum exp, as the weights' denominator
  }
  const auto red = kops::grad(kops::logsumexp_reduction(-kops::sqdist(x, y), kops::axis_j), y, e);
  device_copy<double> dx(px), dy(py), de(pe), out(std::size_t(N * 3));
  // The transposed structure (tagged j), and the forward one tagged as i rows
  // (eval transposes that itself): the same result.
  kops::cluster::structure tagged = st;
  tagged.axis = kops::sparsity_axis::i;
  const device_structure ds(stt), dtag(tagged);
  kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, de.p, dtag.view());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto by_tag = out.to_host();
  kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, de.p, ds.view());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto got = out.to_host();
  CHECK(by_tag == got);
  for (std::int64_t j = 0; j < N; ++j)
    for (int c = 0; c < 3; ++c) {
      double want = 0, r[3];
      for (std::int64_t i = 0; i < M; ++i)
        if (keep[i * N + j]) want += pe[i] * k(i, j, r) / lse[i] * 2 * r[c];
      REQUIRE(close(got[j * 3 + c], want, 1e-11));
    }
}

// M = N, an asymmetric structure: untagged, a gradient w.r.t. y refuses it
// (read as its own j rows it would reduce over the transposed pattern);
// tagged i (the forward call's rows), it gives the kept pairs' gradient.
TEST_CASE("GPU block_sparsity: M = N, a gradient w.r.t. y refuses an untagged structure", "[block_sparse][grad]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto e = kops::vi<2, 1>;
  const std::int64_t M = 67, N = M;
  const auto px = random_vector<double>(M * 3, 0, 1, 71), py = random_vector<double>(N * 3, 0, 1, 72);
  const auto pe = random_vector<double>(M, -1, 1, 73);
  kops::cluster::structure st = random_structure(M, N, 19, 20);
  const auto keep = kept_mask(st.view(), M, N);
  std::int64_t asymmetric = 0;
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) asymmetric += keep[i * N + j] != keep[j * N + i];
  REQUIRE(asymmetric > 0);
  const auto red = kops::grad(kops::sum_reduction(kops::exp(-kops::sqdist(x, y)), kops::axis_j), y, e);
  device_copy<double> dx(px), dy(py), de(pe), out(std::vector<double>(N * 3, 7.0));
  const device_structure untagged(st);
  CHECK_THROWS_WITH(kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, de.p, untagged.view()),
                    Contains("kops::cuda::eval: block_sparsity: this gradient with respect to a variable of the "
                             "reduced axis (j rows) cannot tell whether an untagged structure describes its j rows"));
  for (double v : out.to_host()) REQUIRE(v == 7.0);
  st.axis = kops::sparsity_axis::i;
  const device_structure tagged(st);
  kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, de.p, tagged.view());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto got = out.to_host();
  for (std::int64_t j = 0; j < N; ++j)
    for (int c = 0; c < 3; ++c) {
      double want = 0;
      for (std::int64_t i = 0; i < M; ++i) {
        if (!keep[i * N + j]) continue;
        double r[3], r2 = 0;
        for (int d = 0; d < 3; ++d) r[d] = px[i * 3 + d] - py[j * 3 + d], r2 += r[d] * r[d];
        want += 2 * std::exp(-r2) * pe[i] * r[c];
      }
      REQUIRE(close(got[j * 3 + c], want, 1e-12));
    }
}

TEST_CASE("GPU block_sparsity: invalid structures are a kops::error before any work", "[block_sparse][errors]") {
  constexpr auto x = kops::vi<0, 1>;
  constexpr auto y = kops::vj<1, 1>;
  const std::int64_t M = 20, N = 10;
  device_copy<double> dx(std::vector<double>(M, 0.5)), dy(std::vector<double>(N, 0.25));
  device_copy<double> out(std::vector<double>(M, 3.0));
  const auto red = kops::sum_reduction(kops::sqdist(x, y), kops::axis_j);
  auto run = [&](std::vector<range> rows, std::vector<std::int64_t> slices, std::vector<range> reduced) {
    kops::cluster::structure s;
    s.rows = rows;
    s.slices = slices;
    s.reduced = reduced;
    const device_structure ds(s);
    kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, ds.view());
  };
  CHECK_THROWS_WITH(run({{0, 21}}, {1}, {{0, 10}}),
                    "kops::cuda::eval: block_sparsity: row block 0 = [0, 21) is not within the 20 output rows "
                    "(axis i)");
  CHECK_THROWS_WITH(run({{0, 10}, {8, 12}}, {1, 2}, {{0, 10}, {0, 1}}), Contains("starts before the end 10"));
  CHECK_THROWS_WITH(run({{0, 10}, {10, 12}}, {2, 1}, {{0, 1}, {2, 3}}), Contains("slices[1] = 1 is less than 2"));
  CHECK_THROWS_WITH(run({{0, 10}}, {-1}, {}), Contains("slices[0] = -1 is less than 0"));
  CHECK_THROWS_WITH(run({{0, 10}}, {1}, {{0, 11}}), Contains("interval 0 = [0, 11) of row block 0 is not within"));
  CHECK_THROWS_WITH(run({{0, 10}}, {2}, {{4, 8}, {6, 9}}), Contains("starts before the end 8"));
  CHECK_THROWS_WITH(kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, kops::block_sparsity{nullptr, 1, nullptr, nullptr}),
                    Contains("block_sparsity: rows is a null pointer (row_blocks = 1)"));
  if (emulated) {
    // Host arrays where device memory is expected: the copy to the host fails
    // (the emulator checks every device range; a GPU with unified addressing
    // may accept them).
    const range r0{0, 5};
    const std::int64_t one = 1;
    CHECK_THROWS_WITH(kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, kops::block_sparsity{&r0, 1, &one, &r0}),
                      Contains("kops::cuda::eval: copying the block_sparsity row blocks to the host"));
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (double v : out.to_host()) CHECK(v == 3.0);
  // No block: every row gets the empty value.
  kops::cuda::eval(red, M, N, out.p, dx.p, dy.p, kops::block_sparsity{});
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (double v : out.to_host()) CHECK(v == 0.0);
}

TEST_CASE("GPU block_sparsity: eval_host takes a structure in host memory", "[block_sparse]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  const std::int64_t M = emulated ? 150 : 1500, N = emulated ? 170 : 1700;
  const auto px = random_vector<double>(M * 3, 0, 1, 61), py = random_vector<double>(N * 3, 0, 1, 62);
  const auto st = random_structure(M, N, 13, 300);
  const auto keep = kept_mask(st.view(), M, N);
  const auto red = kops::min_argmin_reduction(kops::sqdist(x, y), kops::axis_j);
  std::vector<kops::value_index<double>> got(static_cast<std::size_t>(M)), want(static_cast<std::size_t>(M));
  kops::cuda::eval_host(red, M, N, got.data(), px.data(), py.data(), st.view());
  reference_eval_kept<double>(mask_keep{&keep, N}, red, M, N, want.data(), px.data(), py.data());
  for (std::int64_t i = 0; i < M; ++i) REQUIRE(same_value(got[i], want[i], 1e-12));
  const range bad{0, M + 1};
  const std::int64_t one = 1;
  CHECK_THROWS_WITH(kops::cuda::eval_host(red, M, N, got.data(), px.data(), py.data(),
                                          kops::block_sparsity{&bad, 1, &one, &bad}),
                    Contains("kops::cuda::eval_host: block_sparsity: row block 0 ="));
}

TEST_CASE("GPU block_sparsity: when a ranged call is split into pieces (GPU_2D form)", "[block_sparse]") {
  namespace cd = kops::cuda::detail;
  using Red = decltype(kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j));
  using K = cd::kernel_traits<Red, float, kops::precision::accurate>;
  auto decide = [](const kops::cluster::structure& st, std::int64_t rows, kops::cuda::scheme s, std::int64_t chunk,
                   std::int64_t& chosen) {
    const auto tasks = cd::ranged_tasks(st.view(), rows, K::block);
    kops::cuda::options o;
    o.scheme = s;
    o.gpu_2d_chunk = chunk;
    bool split = false;
    REQUIRE(cd::choose_ranged_split<K>(tasks, st.reduced.data(), 1, o, "test", chosen, split));
    return split;
  };
  std::int64_t chunk = 0;
  // One task of 3 rows over 10^6 terms: one busy block of the whole GPU unless split.
  kops::cluster::structure few;
  few.rows = {{0, 3}};
  few.reduced = {{0, 400000}, {400000, 1000000}};
  few.slices = {2};
  CHECK(decide(few, 3, kops::cuda::scheme::automatic, 0, chunk));
  CHECK(chunk >= cd::gpu_2d_min_chunk_tiles * K::tile);
  CHECK(!decide(few, 3, kops::cuda::scheme::gpu_1d, 0, chunk));
  CHECK(decide(few, 3, kops::cuda::scheme::gpu_2d, 1000, chunk));
  CHECK(chunk == 1000);
  CHECK(!decide(few, 3, kops::cuda::scheme::gpu_2d, 2000000, chunk));  // nothing longer than a chunk
  // 10^10 terms in pieces of 64 would need 2.4 TB of scratch: the chunk is raised to fit the budget.
  kops::cluster::structure huge;
  huge.rows = {{0, 3}};
  huge.reduced = {{0, 10000000000}};
  huge.slices = {1};
  CHECK(decide(huge, 3, kops::cuda::scheme::gpu_2d, 64, chunk));
  CHECK(chunk > 64);
  CHECK((10000000000 / chunk + 2) * K::block * std::int64_t(sizeof(typename K::acc_type)) <=
        std::int64_t(cd::gpu_2d_scratch_budget));
  // 2000 row blocks of 192 rows over 100 terms each: many short tasks, never split automatically.
  kops::cluster::structure many;
  for (std::int64_t k = 0; k < 2000; ++k) {
    many.rows.push_back({k * 192, (k + 1) * 192});
    many.reduced.push_back({0, 100});
    many.slices.push_back(k + 1);
  }
  CHECK(!decide(many, 2000 * 192, kops::cuda::scheme::automatic, 0, chunk));
  // The pieces: every task's terms, in order, in pieces of at most the chunk.
  const auto tasks = cd::ranged_tasks(few.view(), 3, K::block);
  const auto sp = cd::split_ranged_tasks(tasks, few.reduced.data(), 300000);
  REQUIRE(sp.pieces.size() == 4);  // 300000, 100000 + 200000, 300000, 100000 terms
  CHECK(sp.tasks[0].t0 == 0);
  CHECK(sp.tasks[0].t1 == 4);
  std::int64_t next = 0;
  for (std::int64_t p = 0; p < sp.pieces.size(); ++p) {
    std::int64_t terms = 0;
    for (std::int64_t q = sp.pieces[p].t0; q < sp.pieces[p].t1; ++q) {
      CHECK(sp.intervals[q].begin == next);
      next = sp.intervals[q].end;
      terms += sp.intervals[q].end - sp.intervals[q].begin;
    }
    CHECK(terms == (p < 3 ? 300000 : 100000));
  }
  CHECK(next == 1000000);
}
