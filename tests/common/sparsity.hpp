// Helpers of the block-sparse tests (tests/unit and tests/cuda): random valid
// structures, the kept pairs as a dense mask (for reference_eval_kept), and
// the comparison of values, indices and value-index pairs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <kops/cluster.hpp>

#include "support.hpp"

namespace kops_test {

using kops::range;

// A symmetric block-sparse system for the solve tests: n clustered 3-D
// points (three groups), sorted by voxel (edge 0.3) so that each cluster is a
// range, the structure keeping the cluster pairs within 0.5 (plus radii), and
// a right-hand side of dim 2.
template <class T>
struct clustered_system {
  std::vector<T> x, rhs;
  kops::cluster::structure s;
};
template <class T>
clustered_system<T> clustered_solve_problem(std::int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 0.2);
  std::vector<T> pts(static_cast<std::size_t>(n * 3));
  clustered_system<T> sys;
  sys.rhs.resize(static_cast<std::size_t>(n * 2));
  for (std::int64_t p = 0; p < n; ++p)
    for (int d = 0; d < 3; ++d) pts[std::size_t(p * 3 + d)] = T(g(rng) + double(p % 3));
  for (auto& v : sys.rhs) v = T(g(rng));
  auto sorted = kops::cluster::sort_clusters(pts.data(), n, 3, kops::cluster::grid_cluster(pts.data(), n, 3, T(0.3)));
  const auto c = kops::cluster::cluster_ranges_centroids(sorted.x.data(), n, 3, sorted.labels);
  const std::int64_t C = std::int64_t(c.ranges.size());
  sys.s = kops::cluster::from_matrix(c.ranges, c.ranges,
                                     kops::cluster::distance_mask(c.centroids.data(), C, c.centroids.data(), C, 3,
                                                                  T(0.5), c.radii.data(), c.radii.data()));
  sys.x = std::move(sorted.x);
  return sys;
}

// A random valid structure for `rows` output rows over `cols` terms, row
// blocks of at most max_len rows.
inline kops::cluster::structure random_structure(std::int64_t rows, std::int64_t cols, unsigned seed,
                                                 std::int64_t max_len = 75) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  kops::cluster::structure s;
  std::int64_t r = uniform(0, 3);  // maybe a gap first
  while (r < rows) {
    const std::int64_t len = std::min<std::int64_t>(rows - r, uniform(0, 4) == 0 ? 1 : uniform(0, max_len));
    s.rows.push_back({r, r + len});
    // 0 to 3 sorted disjoint intervals, an empty one now and then.
    std::int64_t c = uniform(0, cols / 3);
    const std::int64_t n = uniform(0, 3);
    for (std::int64_t t = 0; t < n && c <= cols; ++t) {
      const std::int64_t e = std::min(cols, c + (uniform(0, 5) == 0 ? 0 : uniform(1, cols / 2)));
      s.reduced.push_back({c, e});
      c = e + uniform(0, cols / 4);
    }
    s.slices.push_back(std::int64_t(s.reduced.size()));
    r += len + (uniform(0, 2) == 0 ? uniform(1, 9) : 0);  // a gap now and then
  }
  return s;
}

// keep[r * cols + c]: whether s keeps the pair (output row r, term c).
inline std::vector<char> kept_mask(const kops::block_sparsity& s, std::int64_t rows, std::int64_t cols) {
  std::vector<char> keep(std::size_t(rows * cols), 0);
  std::int64_t first = 0;
  for (std::int64_t k = 0; k < s.row_blocks; ++k) {
    for (std::int64_t t = first; t < s.slices[k]; ++t)
      for (std::int64_t r = s.rows[k].begin; r < s.rows[k].end; ++r)
        for (std::int64_t c = s.reduced[t].begin; c < s.reduced[t].end; ++c) keep[r * cols + c] = 1;
    first = s.slices[k];
  }
  return keep;
}

struct mask_keep {
  const std::vector<char>* keep;
  std::int64_t cols;
  bool operator()(std::int64_t r, std::int64_t c) const { return (*keep)[r * cols + c] != 0; }
};

template <class T>
bool same_value(T a, T b, double tol) {
  return close(double(a), double(b), tol);
}
inline bool same_value(std::int64_t a, std::int64_t b, double) { return a == b; }
template <class T>
bool same_value(kops::value_index<T> a, kops::value_index<T> b, double tol) {
  return a.index == b.index && close(double(a.value), double(b.value), tol);
}

} // namespace kops_test
