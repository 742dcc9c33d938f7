// Block-sparse against dense on the CPU backend (one thread with Debian's
// Serial Kokkos; bench/run_block_sparse.sh pins it to one core), and the data
// for pykeops 2.3's ranges on the same problem (pykeops_block_sparse.py).
//
//   a_i = sum_j exp(-g |x_i - y_j|^2) b_j,  float32, x = y: N clustered 3-D points
//   (a mixture of `blobs` Gaussian blobs of standard deviation 0.25 in [0, 10]^3),
//   g = 1 / (2 s^2), kernel width s = 0.05; clusters: voxels of edge --voxel;
//   kept: voxel pairs whose centroids are within 4 s plus the two radii.
//
//   bench_block_sparse [--n N] [--voxel V] [--reps R] [--dump DIR]
//
// Prints CSV lines  impl,N,seconds,pairs,kept_fraction  (impl: dense, sparse,
// structure = the cluster helpers from labels to the structure) and, on stderr,
// the ratio the target is about: sparse / (kept fraction x dense).
// --dump DIR writes the sorted inputs, both structures (as int64 pairs) and
// kops' block-sparse output for pykeops_block_sparse.py.
#include <kops/cluster.hpp>
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using bench::clock_type;
using bench::since;

template <class T>
void dump(const std::string& path, const std::vector<T>& v) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(v.data(), sizeof(T), v.size(), f) != v.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

void dump_structure(const std::string& pre, const kops::cluster::structure& s) {
  std::vector<std::int64_t> rows, reduced;
  for (const auto& r : s.rows) rows.insert(rows.end(), {r.begin, r.end});
  for (const auto& r : s.reduced) reduced.insert(reduced.end(), {r.begin, r.end});
  dump(pre + "ranges.i64", rows);
  dump(pre + "slices.i64", s.slices);
  dump(pre + "red.i64", reduced);
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::int64_t n = 200000;
  double voxel = 0.3;
  int reps = 3, blobs = 64;
  std::string dir;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--n") n = std::atoll(argv[a + 1]);
    else if (k == "--voxel") voxel = std::atof(argv[a + 1]);
    else if (k == "--reps") reps = std::atoi(argv[a + 1]);
    else if (k == "--blobs") blobs = std::atoi(argv[a + 1]);
    else if (k == "--dump") dir = argv[a + 1];
  }
  constexpr int D = 3;
  const double sigma = 0.05;
  std::mt19937_64 rng(2026);
  std::vector<double> centres(std::size_t(blobs) * D);
  for (auto& c : centres) c = std::uniform_real_distribution<double>(0, 10)(rng);
  std::vector<float> x(std::size_t(n) * D), b(static_cast<std::size_t>(n));
  std::normal_distribution<double> g(0, 0.25);
  for (std::int64_t p = 0; p < n; ++p) {
    const auto k = std::size_t(rng() % std::uint64_t(blobs));
    for (int d = 0; d < D; ++d) x[p * D + d] = float(centres[k * D + d] + g(rng));
    b[p] = float(std::uniform_real_distribution<double>(0, 1)(rng));
  }

  auto t0 = clock_type::now();
  const auto labels = kops::cluster::grid_cluster(x.data(), n, D, float(voxel));
  const auto sorted = kops::cluster::sort_clusters(x.data(), n, D, labels);
  const std::vector<float>& xs = sorted.x;
  std::vector<float> bs(b.size());
  kops::cluster::gather_rows(b.data(), n, 1, sorted.perm, bs.data());
  const auto c = kops::cluster::cluster_ranges_centroids(xs.data(), n, D, sorted.labels);
  const std::int64_t C = std::int64_t(c.ranges.size());
  const auto s = kops::cluster::from_matrix(c.ranges, c.ranges,
                                            kops::cluster::distance_mask(c.centroids.data(), C, c.centroids.data(), C,
                                                                         D, 4 * sigma, c.radii.data(), c.radii.data()));
  const double t_structure = since(t0);
  const double pairs = double(n) * double(n);
  const double fraction = double(kops::cluster::kept_pairs(s.view())) / pairs;

  constexpr auto xi = kops::vi<0, D>;
  constexpr auto yj = kops::vj<1, D>;
  constexpr auto bj = kops::vj<2, 1>;
  constexpr auto gp = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-gp * kops::sqdist(xi, yj)) * bj, kops::axis_j);
  const float gamma[] = {float(1 / (2 * sigma * sigma))};
  std::vector<float> dense(static_cast<std::size_t>(n)), sparse(static_cast<std::size_t>(n));
  double t_dense = 1e300, t_sparse = 1e300;
  for (int r = 0; r < reps; ++r) {
    t0 = clock_type::now();
    kops::kokkos::eval(conv, n, n, sparse.data(), xs.data(), xs.data(), bs.data(), gamma, s.view());
    t_sparse = std::min(t_sparse, since(t0));
  }
  for (int r = 0; r < std::max(1, reps / 3); ++r) {  // the dense call is the slow one
    t0 = clock_type::now();
    kops::kokkos::eval(conv, n, n, dense.data(), xs.data(), xs.data(), bs.data(), gamma);
    t_dense = std::min(t_dense, since(t0));
  }
  double worst = 0;
  for (std::int64_t i = 0; i < n; ++i)
    worst = std::max(worst, std::abs(double(dense[i]) - double(sparse[i])) / double(dense[i]));
  std::printf("structure,%lld,%.6f,%.0f,%.6f\n", (long long)n, t_structure, pairs, fraction);
  std::printf("dense,%lld,%.6f,%.0f,1\n", (long long)n, t_dense, pairs);
  std::printf("sparse,%lld,%.6f,%.0f,%.6f\n", (long long)n, t_sparse, pairs * fraction, fraction);
  std::fprintf(stderr,
               "# %lld clusters, %zu row blocks, %zu intervals; kept %.3f%% of the pairs; sparse / (kept fraction x "
               "dense) = %.2f (target <= 1.5); largest relative truncation error %.2e\n",
               (long long)C, s.rows.size(), s.reduced.size(), 100 * fraction, t_sparse / (fraction * t_dense), worst);
  if (!dir.empty()) {
    dump(dir + "/x.f32", xs);
    dump(dir + "/b.f32", bs);
    dump(dir + "/out_kops.f32", sparse);
    dump(dir + "/g.f32", std::vector<float>{gamma[0]});
    dump_structure(dir + "/i_", s);
    dump_structure(dir + "/j_", kops::cluster::transpose(s.view(), n, n));
  }
  return 0;
}
