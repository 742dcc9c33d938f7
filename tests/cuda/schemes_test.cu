// The scheme choice and the GPU_2D plan (launch.hpp, gpu_2d.hpp): the
// automatic rule's decisions on H100 numbers, the plan's caps (chunk length,
// chunk count, scratch budget, huge requested chunks) for every shape of a
// sweep, and the parallel combining pass keeping the chunks' order (ties pick
// the first index across hundreds of chunks and the groups of its tree).
#include "cuda_support.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace kops_test;
using kops::cuda::scheme;
namespace d = kops::cuda::detail;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto gauss = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)), kops::axis_j);
constexpr auto diff = kops::vi<0, 1> - kops::vj<1, 1>;

template <class Red, class T = float>
using traits = d::kernel_traits<std::remove_cvref_t<Red>, T, kops::precision::accurate>;
using KG = traits<decltype(gauss)>;  // tile 192
constexpr std::size_t acc_g = sizeof(KG::acc_type);  // 8 bytes: the block sum's two floats
// 24 (value, index) pairs in double: 384-byte accumulators.
using KK = traits<decltype(kops::argkmin_reduction<24>(kops::sqdist(x, y), kops::axis_j)), double>;

constexpr int h100_sms = 132;

struct shape {
  std::int64_t rows, cols;
  int per_sm;
  scheme expected;
};

} // namespace

TEST_CASE("automatic: GPU_2D exactly where GPU_1D would leave most of its last wave idle (H100 numbers)",
          "[schemes]") {
  static_assert(KG::block == 192 && KG::tile == 192 && acc_g == 8);
  // H100: 132 SMs, 10 resident blocks of 192 threads per SM (1320 slots), or 4
  // for a kernel heavy in registers (528 slots).
  const shape shapes[] = {
      {1, 1000000, 10, scheme::gpu_2d},        // one row block: 1303 chunks of 4 tiles
      {1000, 1000000, 10, scheme::gpu_2d},
      {10000, 1000000, 10, scheme::gpu_2d},
      {100000, 1000000, 10, scheme::gpu_2d},   // 521 row blocks: 39% of one wave
      {150000, 1000000, 10, scheme::gpu_2d},   // 782: 59% (the old rule's GPU_1D)
      {200000, 1000000, 10, scheme::gpu_2d},   // 1042: 79%
      {250000, 1000000, 10, scheme::gpu_1d},   // 1303: 98.7% of one wave
      {300000, 1000000, 10, scheme::gpu_2d},   // 1563: 1.18 waves, the second nearly empty
      {500000, 1000000, 10, scheme::gpu_1d},   // 2605: 1.97 waves
      {1000000, 1000000, 10, scheme::gpu_1d},  // 5209: 3.95 waves
      {10000000, 1000000, 10, scheme::gpu_1d},
      {100000, 100000, 10, scheme::gpu_2d},
      {1000000, 100000, 10, scheme::gpu_1d},
      {1000, 500, 10, scheme::gpu_1d},  // under 4 tiles: one chunk
      {100000, 1000000, 4, scheme::gpu_1d},   // 521 row blocks in 528 slots: one full wave
      {150000, 1000000, 4, scheme::gpu_2d},   // 782: 1.48 waves
      {200000, 1000000, 4, scheme::gpu_1d},   // 1042: 1.97 waves
  };
  for (const auto& s : shapes) {
    const auto plan = d::plan_gpu_2d<KG>(s.rows, s.cols, h100_sms, s.per_sm, 0);
    const auto e = d::estimate_schemes(s.rows, s.cols, KG::block, acc_g, h100_sms, s.per_sm, plan);
    INFO("M = " << s.rows << ", N = " << s.cols << ", " << s.per_sm << " blocks per SM: plan " << plan.chunks
                << " x " << plan.chunk << ", estimates GPU_1D " << e.gpu_1d << ", GPU_2D " << e.gpu_2d);
    CHECK(d::choose_scheme<KG>(s.rows, s.cols, h100_sms, s.per_sm, plan) == s.expected);
  }
}

TEST_CASE("automatic: GPU_1D for a plan of one chunk, whatever the row count", "[schemes]") {
  for (std::int64_t rows : {1, 100, 100000})
    CHECK(d::choose_scheme<KG>(rows, 1000000, h100_sms, 10, d::gpu_2d_plan{1000000, 1}) == scheme::gpu_1d);
}

TEST_CASE("GPU_2D plan: whole tiles, at least 4 of them, at most 4096 chunks, covering the reduced axis",
          "[schemes]") {
  // M = 1, N = 1e6 made 5209 chunks of one tile (four waves of blocks with one busy thread each).
  const auto one = d::plan_gpu_2d<KG>(1, 1000000, h100_sms, 10, 0);
  CHECK(one.chunks == 1303);
  CHECK(one.chunk == 4 * KG::tile);
  for (std::int64_t rows : {1, 7, 192, 1000, 33333, 100000, 1000000, 10000000})
    for (std::int64_t cols : {0LL, 1LL, 191LL, 768LL, 769LL, 5000LL, 1000000LL, 100000000LL, 10000000000LL})
      for (int per_sm : {1, 4, 10, 32}) {
        const auto p = d::plan_gpu_2d<KG>(rows, cols, h100_sms, per_sm, 0);
        INFO("rows " << rows << " cols " << cols << " per_sm " << per_sm << ": " << p.chunks << " x " << p.chunk);
        REQUIRE(p.chunks >= 1);
        if (p.chunks == 1) {
          CHECK(p.chunk == (cols > 0 ? cols : 1));
          continue;
        }
        CHECK(p.chunk % KG::tile == 0);
        CHECK(p.chunk >= d::gpu_2d_min_chunk_tiles * KG::tile);
        CHECK(p.chunks <= d::gpu_2d_max_auto_chunks);
        CHECK((p.chunks - 1) * p.chunk < cols);  // every chunk holds indices
        CHECK(p.chunks * p.chunk >= cols);
        CHECK(std::uint64_t(p.chunks) * std::uint64_t(rows) * acc_g <= d::gpu_2d_scratch_budget);
        // About 4 waves of blocks, not more.
        CHECK(d::ceil_div(rows, KG::block) * p.chunks <= d::gpu_2d_target_waves * h100_sms * per_sm);
      }
}

TEST_CASE("GPU_2D plan: the scratch stays within its budget, else one chunk (GPU_1D)", "[schemes]") {
  static_assert(sizeof(KK::acc_type) == 384);
  // 10 chunks of 1e5 rows would be 384 MB of scratch: 6 fit in 256 MiB.
  const auto big = d::plan_gpu_2d<KK>(100000, 1000000, h100_sms, 10, 0);
  CHECK(big.chunks > 1);
  CHECK(std::uint64_t(big.chunks) * 100000 * 384 <= d::gpu_2d_scratch_budget);
  CHECK(big.chunks == 6);
  // Two chunks of 4e5 rows do not fit: one chunk, and automatic takes GPU_1D.
  const auto none = d::plan_gpu_2d<KK>(400000, 1000000, h100_sms, 1, 0);
  CHECK(none.chunks == 1);
  CHECK(d::choose_scheme<KK>(400000, 1000000, h100_sms, 1, none) == scheme::gpu_1d);
  // Requested chunks are raised until they fit: 20000 chunks of 5 over 1e5
  // rows would be 16 GB of 8-byte accumulators.
  const auto forced = d::plan_gpu_2d<KG>(100000, 100000, h100_sms, 10, 5);
  CHECK(forced.chunks > 1);
  CHECK(std::uint64_t(forced.chunks) * 100000 * acc_g <= d::gpu_2d_scratch_budget);
  CHECK(forced.chunks * forced.chunk >= 100000);
  // A budget of its own: at most budget / (rows * acc) chunks.
  const auto small = d::plan_gpu_2d<KG>(1000, 1000000, h100_sms, 10, 0, 1000 * acc_g * 10);
  CHECK(small.chunks == 10);
  CHECK(d::plan_gpu_2d<KG>(1000, 1000000, h100_sms, 10, 0, 1000 * acc_g * 2 - 1).chunks == 1);
  // And the grid's 65535 in y, for requested chunks too.
  CHECK(d::plan_gpu_2d<KG>(1, 1000000, h100_sms, 10, 1).chunks <= d::gpu_2d_max_grid_chunks);
}

TEST_CASE("GPU_2D plan: requested chunks near INT64_MAX do not overflow", "[schemes]") {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  // chunk * 65535 overflowed: for these the plan was ceil(cols / 65535) = 16-index chunks.
  for (std::int64_t chunk : {max, max - 1, max / 65535 + 1, max / 2}) {
    INFO("requested chunk " << chunk);
    const auto p = d::plan_gpu_2d<KG>(10, 1000000, h100_sms, 10, chunk);
    CHECK(p.chunks == 1);
    CHECK(p.chunk == 1000000);
  }
  const auto huge_axis = d::plan_gpu_2d<KG>(1, max, h100_sms, 10, max / 3);
  CHECK(huge_axis.chunks == 4);
  CHECK(huge_axis.chunk == max / 3);

  // Through eval: a huge requested chunk is one chunk, i.e. GPU_1D's results.
  const std::int64_t M = 5, N = 1000;
  const auto px = random_vector<double>(M * 3, 0, 1, 11), py = random_vector<double>(N * 3, 0, 1, 12);
  std::vector<double> ref(M), out(M);
  reference_eval<double>(gauss, M, N, ref.data(), px.data(), py.data());
  kops::cuda::options o;
  o.scheme = scheme::gpu_2d;
  o.gpu_2d_chunk = max;
  kops::cuda::eval_host(gauss, M, N, out.data(), px.data(), py.data(), o);
  for (std::int64_t i = 0; i < M; ++i) CHECK(close(out[i], ref[i], 1e-12));
}

TEST_CASE("GPU_2D combine: groups of threads split many chunks; few chunks, one thread per row", "[schemes]") {
  using C = d::gpu_2d_combine_traits<KG>;
  STATIC_REQUIRE(C::tree);
  STATIC_REQUIRE(C::threads == 256);
  const auto many = d::gpu_2d_combine_shape_for<KG>(1303);
  CHECK(many.groups == 256);
  CHECK(many.row_shift == 0);
  const auto ten = d::gpu_2d_combine_shape_for<KG>(10);  // 2 or 3 chunks each, 64 rows per block
  CHECK(ten.groups == 4);
  CHECK(ten.row_shift == 6);
  const auto two = d::gpu_2d_combine_shape_for<KG>(2);
  CHECK(two.groups == 1);
  CHECK(two.row_shift == 8);
  for (std::int64_t chunks = 2; chunks <= 65535; chunks = chunks * 3 - 1) {
    const auto s = d::gpu_2d_combine_shape_for<KG>(chunks);
    INFO(chunks << " chunks");
    CHECK(s.groups >= 1);
    CHECK(s.groups <= chunks);
    CHECK((std::int64_t(s.groups) << s.row_shift) <= C::threads);
  }
  // 384-byte accumulators: 128 of them in 48 KiB.
  STATIC_REQUIRE(d::gpu_2d_combine_traits<KK>::threads == 128);
}

namespace {

// Runs `red` through GPU_2D with `chunk`-index chunks and through the host
// reference; the results must be equal (no sums: no rounding differences).
template <class Red, class T>
void check_equal_to_reference(Red red, std::int64_t M, std::int64_t N, const std::vector<T>& px,
                              const std::vector<T>& py, std::int64_t chunk, const char* what) {
  using Out = typename Red::op::template out_t<T>;
  std::vector<Out> ref(M * Red::dim), out(M * Red::dim);
  reference_eval<T>(red, M, N, ref.data(), px.data(), py.data());
  kops::cuda::options o;
  o.scheme = scheme::gpu_2d;
  o.gpu_2d_chunk = chunk;
  kops::cuda::eval_host(red, M, N, out.data(), px.data(), py.data(), o);
  std::int64_t bad = -1;
  for (std::int64_t n = 0; n < std::int64_t(out.size()) && bad < 0; ++n)
    if (std::memcmp(&out[n], &ref[n], sizeof(Out)) != 0) bad = n;
  INFO(what << ": M = " << M << ", N = " << N << ", chunk " << chunk << ", first mismatch at " << bad);
  CHECK(bad == -1);
}

} // namespace

TEST_CASE("GPU_2D combine keeps the chunks' order: ties pick the first index across groups and tree levels",
          "[schemes]") {
  // Every value equal: any chunk combined out of order shows as a later index.
  // 900 one-index chunks: 225 groups of 4 (a tree of 8 levels, the last one
  // incomplete); 36 chunks of 25: 16 groups of 2 or 3; 7 chunks: 2 groups.
  for (std::int64_t chunk : {1, 25, 130}) {
    const std::int64_t M = 37, N = 900;
    const std::vector<float> px(M, 1.0f), py(N, 1.0f);
    check_equal_to_reference(kops::argmin_reduction(diff, kops::axis_j), M, N, px, py, chunk, "argmin, all ties");
    check_equal_to_reference(kops::argmax_reduction(diff, kops::axis_j), M, N, px, py, chunk, "argmax, all ties");
    check_equal_to_reference(kops::argkmin_reduction<3>(diff, kops::axis_j), M, N, px, py, chunk,
                             "argkmin<3>, all ties");
  }
  // Integer data in [0, 4): ties everywhere, extrema in many chunks; rows
  // not a multiple of the combine block's rows.
  const std::int64_t M = 301, N = 700;
  auto ints = [](std::size_t n, unsigned seed) {
    auto v = random_vector<double>(n, 0, 4, seed);
    std::vector<double> r(n);
    for (std::size_t k = 0; k < n; ++k) r[k] = double(int(v[k]));
    return r;
  };
  const auto px = ints(M, 21), py = ints(N, 22);
  for (std::int64_t chunk : {3, 10, 33}) {
    check_equal_to_reference(kops::min_argmin_reduction(diff, kops::axis_j), M, N, px, py, chunk, "min_argmin");
    check_equal_to_reference(kops::max_argmax_reduction(diff, kops::axis_j), M, N, px, py, chunk, "max_argmax");
    check_equal_to_reference(kops::kmin_argkmin_reduction<2>(diff, kops::axis_j), M, N, px, py, chunk,
                             "kmin_argkmin<2>");
  }
}

TEST_CASE("GPU_2D combine: sums and log-sum-exp over many chunks within rounding of the reference", "[schemes]") {
  const std::int64_t M = 50, N = 2000;
  const auto px = random_vector<double>(M * 3, 0, 1, 31), py = random_vector<double>(N * 3, 0, 1, 32);
  const auto lse = kops::logsumexp_reduction(-kops::sqdist(x, y), kops::axis_j);
  for (std::int64_t chunk : {2, 19, 500}) {
    kops::cuda::options o;
    o.scheme = scheme::gpu_2d;
    o.gpu_2d_chunk = chunk;
    std::vector<double> ref(M), out(M), ref_lse(M), out_lse(M);
    reference_eval<double>(gauss, M, N, ref.data(), px.data(), py.data());
    reference_eval<double>(lse, M, N, ref_lse.data(), px.data(), py.data());
    kops::cuda::eval_host(gauss, M, N, out.data(), px.data(), py.data(), o);
    kops::cuda::eval_host(lse, M, N, out_lse.data(), px.data(), py.data(), o);
    INFO("chunk " << chunk);
    for (std::int64_t i = 0; i < M; ++i) {
      CHECK(close(out[i], ref[i], 1e-12));
      CHECK(close(out_lse[i], ref_lse[i], 1e-12));
    }
  }
}

TEST_CASE("automatic on the emulated H100: the scheme the rule names, and the reference's results", "[schemes]") {
  // (rows, cols, what automatic runs on any GPU of 4 block slots or more): one
  // row block and 4 chunks of 4 tiles; 3 row blocks and 2 chunks; a reduced
  // axis under 4 tiles (one chunk).
  struct run_case {
    std::int64_t M, N;
    scheme expected;
  };
  for (const auto& c : {run_case{5, 3000, scheme::gpu_2d}, run_case{500, 1000, scheme::gpu_2d},
                        run_case{700, 20, scheme::gpu_1d}}) {
    INFO("M = " << c.M << ", N = " << c.N);
    const auto p = d::plan_launch<traits<decltype(gauss), float>>(c.M, c.N, kops::cuda::options{}, "test");
    CHECK(p.scheme == c.expected);
    const auto px = random_vector<float>(c.M * 3, 0, 1, 41), py = random_vector<float>(c.N * 3, 0, 1, 42);
    std::vector<double> ref(c.M);
    std::vector<float> out(c.M);
    reference_eval<double>(gauss, c.M, c.N, ref.data(), px.data(), py.data());
    kops::cuda::eval_host(gauss, c.M, c.N, out.data(), px.data(), py.data());
    for (std::int64_t i = 0; i < c.M; ++i) REQUIRE(close(out[i], ref[i], 1e-4));
  }
  // Forced GPU_2D with one chunk runs GPU_1D: no scratch, no second pass.
  kops::cuda::options o;
  o.scheme = scheme::gpu_2d;
  CHECK(d::plan_launch<KG>(700, 20, o, "test").scheme == scheme::gpu_1d);
  CHECK(d::plan_launch<KG>(5, 3000, o, "test").scheme == scheme::gpu_2d);
}
