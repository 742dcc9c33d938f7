// A Gaussian convolution on a clustered point cloud, dense and block-sparse
// (kops::block_sparsity, built with the kops::cluster helpers).
//
// The math. Points x_i = y_j (a mixture of tight Gaussian blobs in R^3, fixed
// seed), weights b_j in [0, 1], kernel width s:
//
//   out_i = sum_j exp(-|x_i - y_j|^2 / (2 s^2)) b_j
//
// Dense: all N^2 pairs. Block-sparse: the points are grouped in cubic voxels
// (grid_cluster), sorted by voxel (sort_clusters), and a pair of
// voxels is kept when their centroids are at most 4 s plus the two voxels'
// radii apart (distance_mask with radii): every dropped pair of points is then
// more than 4 s apart, so its term is below e^-8 = 3.4e-4, and
//
//   0 <= dense_i - sparse_i <= (dropped pairs of row i) * e^-8 * max b.
//
// Self-check (exit code 0 only if all hold): that bound for every row; the
// block-sparse result equal, up to float rounding, to a double-precision loop
// over the kept pairs only, on a sample of rows; results put back in the
// user's order with scatter_rows agree with the sorted ones.
//
// Prints the kept fraction of pairs, both times and the speed-up. With
// --svg FILE it also draws the kept blocks (rows down, reduced axis across,
// both in the sorted order): docs/img/block_sparse_blocks.svg is its output.
//
// Build and run: built with the examples (target block_sparse; ctest -L example
// runs it), or by hand from the repository root:
//   g++ -std=c++20 -O2 -march=native -Iinclude -isystem /usr/include/trilinos
//       examples/block_sparse/main.cpp -ltrilinos_kokkoscore -ldl -o block_sparse
//   ./block_sparse [N] [--voxel EDGE] [--svg FILE]     (default N = 40000 points, EDGE = 0.2)
#include <kops/cluster.hpp>
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int D = 3;
constexpr double sigma = 0.05;   // kernel width s
constexpr double cutoff = 4.0;   // in units of s
double voxel = 0.2;              // cluster size (--voxel)

// n points around `blobs` centres in [0, 4]^3 (standard deviation 0.25).
std::vector<float> mixture(std::int64_t n, int blobs, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 4.0);
  std::normal_distribution<double> g(0.0, 0.25);
  std::vector<double> centres(std::size_t(blobs) * D);
  for (auto& c : centres) c = u(rng);
  std::vector<float> x(std::size_t(n) * D);
  for (std::int64_t p = 0; p < n; ++p) {
    const auto k = std::size_t(rng() % std::uint64_t(blobs));
    for (int d = 0; d < D; ++d) x[p * D + d] = float(centres[k * D + d] + g(rng));
  }
  return x;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The kept blocks of s (rows x cols, in index space) as an SVG picture.
void write_svg(const char* path, const kops::block_sparsity& s, std::int64_t rows, std::int64_t cols) {
  std::FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path);
    return;
  }
  const double W = 600, H = 600, sx = W / double(cols), sy = H / double(rows);
  std::fprintf(f,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"-40 -30 %g %g\">\n"
               "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"#f4f4f4\" stroke=\"#444\"/>\n",
               W + 60, H + 60, W + 60, H + 60, W, H);
  std::int64_t first = 0;
  for (std::int64_t k = 0; k < s.row_blocks; ++k) {
    for (std::int64_t t = first; t < s.slices[k]; ++t)
      std::fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#1f5fa8\"/>\n",
                   double(s.reduced[t].begin) * sx, double(s.rows[k].begin) * sy,
                   std::max(0.3, double(s.reduced[t].end - s.reduced[t].begin) * sx),
                   std::max(0.3, double(s.rows[k].end - s.rows[k].begin) * sy));
    first = s.slices[k];
  }
  std::fprintf(f,
               "<text x=\"%g\" y=\"-10\" font-family=\"sans-serif\" font-size=\"14\" text-anchor=\"middle\">"
               "reduced axis j (sorted by voxel), %lld points</text>\n"
               "<text x=\"-12\" y=\"%g\" font-family=\"sans-serif\" font-size=\"14\" text-anchor=\"middle\" "
               "transform=\"rotate(-90 -12 %g)\">output rows i (sorted by voxel)</text>\n</svg>\n",
               W / 2, (long long)cols, H / 2, H / 2);
  std::fclose(f);
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::int64_t n = 40000;
  const char* svg = nullptr;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--svg") == 0 && a + 1 < argc) svg = argv[++a];
    else if (std::strcmp(argv[a], "--voxel") == 0 && a + 1 < argc) voxel = std::atof(argv[++a]);
    else if (argv[a][0] != '-') n = std::atoll(argv[a]);
  }
  if (n < 100) n = 100;
  const std::vector<float> x = mixture(n, 24, 7);
  std::vector<float> b(static_cast<std::size_t>(n));
  std::mt19937_64 rng(8);
  for (auto& v : b) v = float(std::uniform_real_distribution<double>(0, 1)(rng));

  // 1. Clusters: voxel labels, the points and weights sorted by label.
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::int64_t> labels = kops::cluster::grid_cluster(x.data(), n, D, float(voxel));
  const auto sorted = kops::cluster::sort_clusters(x.data(), n, D, labels);
  const std::vector<float>& xs = sorted.x;
  std::vector<float> bs(b.size());
  kops::cluster::gather_rows(b.data(), n, 1, sorted.perm, bs.data());
  const auto c = kops::cluster::cluster_ranges_centroids(xs.data(), n, D, sorted.labels);
  const std::int64_t C = std::int64_t(c.ranges.size());
  // 2. The structure: voxel pairs within 4 s (plus their radii).
  const auto keep = kops::cluster::distance_mask(c.centroids.data(), C, c.centroids.data(), C, D, cutoff * sigma,
                                                 c.radii.data(), c.radii.data());
  const kops::cluster::structure s = kops::cluster::from_matrix(c.ranges, c.ranges, keep);
  const double t_structure = seconds_since(t0);
  const std::int64_t kept = kops::cluster::kept_pairs(s.view());
  const double fraction = double(kept) / (double(n) * double(n));

  constexpr auto xi = kops::vi<0, D>;
  constexpr auto yj = kops::vj<1, D>;
  constexpr auto bj = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(xi, yj)) * bj, kops::axis_j);
  const float gamma[] = {float(1.0 / (2 * sigma * sigma))};

  // 3. Dense and block-sparse, the best of 3 runs each (the first run included).
  std::vector<float> dense(static_cast<std::size_t>(n)), sparse(static_cast<std::size_t>(n));
  double t_dense = 1e300, t_sparse = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    t0 = std::chrono::steady_clock::now();
    kops::kokkos::eval(conv, n, n, dense.data(), xs.data(), xs.data(), bs.data(), gamma);
    t_dense = std::min(t_dense, seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    kops::kokkos::eval(conv, n, n, sparse.data(), xs.data(), xs.data(), bs.data(), gamma, s.view());
    t_sparse = std::min(t_sparse, seconds_since(t0));
  }

  std::printf("block_sparse: N = M = %lld points in %lld voxels (edge %.2f), kernel width %.2f, cut-off %.0f widths\n",
              (long long)n, (long long)C, voxel, sigma, cutoff);
  std::printf("  kept pairs: %lld of %.3g (%.2f%%), %lld row blocks, %lld intervals; structure built in %.3f s\n",
              (long long)kept, double(n) * double(n), 100 * fraction, (long long)s.rows.size(),
              (long long)s.reduced.size(), t_structure);
  std::printf("  dense %.4f s, block-sparse %.4f s: %.1fx faster (%.2f x the kept fraction of the dense time)\n",
              t_dense, t_sparse, t_dense / t_sparse, t_sparse / (fraction * t_dense));

  // Self-check 1: the truncation bound, row by row.
  bool ok = true;
  const double term_bound = std::exp(-cutoff * cutoff / 2);
  std::vector<std::int64_t> kept_per_row(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k < s.rows.size(); ++k) {
    std::int64_t terms = 0;
    for (std::int64_t t = k ? s.slices[k - 1] : 0; t < s.slices[k]; ++t) terms += s.reduced[t].end - s.reduced[t].begin;
    for (std::int64_t r = s.rows[k].begin; r < s.rows[k].end; ++r) kept_per_row[r] = terms;
  }
  double worst_abs = 0, worst_rel = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double diff = double(dense[i]) - double(sparse[i]);
    const double bound = double(n - kept_per_row[i]) * term_bound + 1e-5 * double(dense[i]) + 1e-6;
    worst_abs = std::max(worst_abs, std::abs(diff));
    worst_rel = std::max(worst_rel, std::abs(diff) / std::max(1e-30, double(dense[i])));
    if (diff < -1e-5 * double(dense[i]) - 1e-6 || diff > bound) {
      if (ok)
        std::printf("  row %lld: dense %.7g, block-sparse %.7g, outside the bound\n", (long long)i, dense[i],
                    sparse[i]);
      ok = false;
    }
  }
  std::printf("  truncation: largest |dense - sparse| %.3g, relative %.3g (each dropped term < %.2g)\n", worst_abs,
              worst_rel, term_bound);

  // Self-check 2: the kept pairs only, in double, on every 97th row.
  double worst_kept = 0;
  for (std::size_t k = 0; k < s.rows.size(); ++k)
    for (std::int64_t i = s.rows[k].begin; i < s.rows[k].end; ++i) {
      if (i % 97) continue;
      double ref = 0;
      for (std::int64_t t = k ? s.slices[k - 1] : 0; t < s.slices[k]; ++t)
        for (std::int64_t j = s.reduced[t].begin; j < s.reduced[t].end; ++j) {
          double d2 = 0;
          for (int d = 0; d < D; ++d) d2 += std::pow(double(xs[i * D + d]) - double(xs[j * D + d]), 2);
          ref += std::exp(-double(gamma[0]) * d2) * double(bs[j]);
        }
      const double err = std::abs(double(sparse[i]) - ref) / (std::abs(ref) + 1e-6);
      worst_kept = std::max(worst_kept, err);
    }
  std::printf("  kept pairs against a double loop (every 97th row): largest relative error %.3g\n", worst_kept);
  ok = ok && worst_kept < 1e-4;

  // Self-check 3: back in the caller's order.
  std::vector<float> user(static_cast<std::size_t>(n));
  kops::cluster::scatter_rows(sparse.data(), n, 1, sorted.perm, user.data());
  for (std::int64_t k = 0; k < n; ++k) ok = ok && user[sorted.perm[k]] == sparse[k];

  if (svg) {
    write_svg(svg, s.view(), n, n);
    std::printf("  kept blocks drawn in %s\n", svg);
  }
  std::printf("%s\n", ok ? "block_sparse: OK" : "block_sparse: FAILED");
  return ok ? 0 : 1;
}
