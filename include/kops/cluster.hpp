// kops::cluster: building block-sparsity structures (core/block_sparsity.hpp)
// from point clouds, on the host. The C++ counterparts of pykeops'
// grid_cluster, sort_clusters, cluster_ranges_centroids and from_matrix:
//
//   labels = grid_cluster(x, n, D, voxel)          cluster of each point (a voxel grid)
//   sorted = sort_clusters(x, n, D, labels)        .x, .labels sorted by label; .perm
//   c      = cluster_ranges_centroids(sorted.x.data(), n, D, sorted.labels)
//                                                  .ranges, .centroids, .weights, .radii
//   keep   = distance_mask(ci, Ci, cj, Cj, D, cutoff, radii_i, radii_j)   cluster pairs to keep
//   s      = from_matrix(ranges_i, ranges_j, keep[, kops::sparsity_axis::i])
//                                                  kops::cluster::structure (owns its arrays)
//   kops::kokkos::eval(red, M, N, out, xs..., s.view())
//   scatter_rows(out, M, dim, sorted.perm, out_user)   back in the caller's order
//   st     = transpose(s.view(), M, N)             the same pairs by the other axis' rows
//
// and the pieces they are made of: sort_permutation, gather_rows, label_ranges,
// centroids, radii, kept_pairs.
//
// Every function takes and returns host arrays; a GPU call takes a structure
// copied to device memory. Bad input (a label out of range, unsorted labels,
// an invalid structure) is a kops::error (or the error handler's call).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <kops/core/block_sparsity.hpp>
#include <kops/core/error.hpp>
#include <kops/detail/sparsity.hpp>

/// Host helpers that build kops::block_sparsity structures from point clouds
/// (voxel clusters, sorting, ranges and centroids, masks, transposes).
namespace kops::cluster {

/// A block-sparsity structure that owns its arrays: `view()` is the
/// kops::block_sparsity an eval takes (not of a temporary: it would dangle);
/// `axis` its kops::sparsity_axis tag.
struct structure {
  std::vector<range> rows;           ///< the row blocks
  std::vector<std::int64_t> slices;  ///< per block, the end of its intervals in `reduced`
  std::vector<range> reduced;        ///< the intervals of the reduced axis
  sparsity_axis axis = sparsity_axis::output;  ///< whose rows `rows` are
  /// The non-owning structure an eval takes.
  block_sparsity view() const& {
    return {rows.data(), std::int64_t(rows.size()), slices.data(), reduced.data(), axis};
  }
  block_sparsity view() const&& = delete;
};

namespace detail {
// Appends [b, e) to the sorted ranges list[first ..), merged with the last
// of them when they touch (never with a range before `first`: another block's).
inline void append_merged(std::vector<range>& list, std::int64_t b, std::int64_t e, std::size_t first) {
  if (b == e) return;
  if (list.size() > first && list.back().end == b)
    list.back().end = e;
  else
    list.push_back({b, e});
}
} // namespace detail

/// The voxel of edge `voxel` each point of x:(n, D) falls in, numbered 0 .. C-1
/// in the lexicographic order of the voxels' integer coordinates (the grid
/// starts at the points' minimum, per coordinate). Empty voxels get no number.
template <class T>
std::vector<std::int64_t> grid_cluster(const T* x, std::int64_t n, int D, T voxel) {
  std::vector<std::int64_t> labels;
  if (n < 0 || D < 1 || !(voxel > T(0)) || (n > 0 && !x)) {
    kops::detail::fail("kops::cluster::grid_cluster: need n >= 0, D >= 1, voxel > 0 and points (n = %lld, D = %d)",
                       (long long)n, D);
    return labels;
  }
  if (n == 0) return labels;
  std::vector<T> lo(x, x + D);
  for (std::int64_t p = 1; p < n; ++p)
    for (int d = 0; d < D; ++d) lo[d] = std::min(lo[d], x[p * D + d]);
  // Integer cell coordinates, compared lexicographically through an order of the points.
  std::vector<std::int64_t> cell(std::size_t(n) * std::size_t(D));
  for (std::int64_t p = 0; p < n; ++p)
    for (int d = 0; d < D; ++d) cell[p * D + d] = std::int64_t(std::floor((x[p * D + d] - lo[d]) / voxel));
  auto less = [&](std::int64_t a, std::int64_t b) {
    return std::lexicographical_compare(cell.begin() + a * D, cell.begin() + (a + 1) * D, cell.begin() + b * D,
                                        cell.begin() + (b + 1) * D);
  };
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t(0));
  std::sort(order.begin(), order.end(), less);
  labels.assign(std::size_t(n), 0);
  std::int64_t c = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    if (k > 0 && less(order[k - 1], order[k])) ++c;
    labels[order[k]] = c;
  }
  return labels;
}

/// The stable order of n points by label: labels[perm[0]] <= labels[perm[1]] <= ...,
/// equal labels in their original order.
inline std::vector<std::int64_t> sort_permutation(const std::int64_t* labels, std::int64_t n) {
  std::vector<std::int64_t> perm(std::size_t(n > 0 ? n : 0));
  std::iota(perm.begin(), perm.end(), std::int64_t(0));
  std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) { return labels[a] < labels[b]; });
  return perm;
}
/// sort_permutation of a vector of labels.
inline std::vector<std::int64_t> sort_permutation(const std::vector<std::int64_t>& labels) {
  return sort_permutation(labels.data(), std::int64_t(labels.size()));
}

/// dst:(n, D) <- rows of src:(n, D) in the order perm: dst[k] = src[perm[k]].
template <class T>
void gather_rows(const T* src, std::int64_t n, std::int64_t D, const std::vector<std::int64_t>& perm, T* dst) {
  for (std::int64_t k = 0; k < n; ++k) std::copy(src + perm[k] * D, src + (perm[k] + 1) * D, dst + k * D);
}

/// The inverse of gather_rows: dst[perm[k]] = src[k] (results back in the caller's order).
template <class T>
void scatter_rows(const T* src, std::int64_t n, std::int64_t D, const std::vector<std::int64_t>& perm, T* dst) {
  for (std::int64_t k = 0; k < n; ++k) std::copy(src + k * D, src + (k + 1) * D, dst + perm[k] * D);
}

/// The rows of each of C clusters in sorted labels: cluster c is
/// [ranges[c].begin, ranges[c].end) (empty when no point has label c).
/// Labels must be sorted and in [0, C).
inline std::vector<range> label_ranges(const std::int64_t* sorted_labels, std::int64_t n, std::int64_t C) {
  std::vector<range> ranges;
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t l = sorted_labels[p];
    if (l < 0 || l >= C || (p > 0 && l < sorted_labels[p - 1])) {
      kops::detail::fail("kops::cluster::label_ranges: labels must be sorted and in [0, %lld): label %lld at %lld",
                         (long long)C, (long long)l, (long long)p);
      return ranges;
    }
  }
  ranges.resize(std::size_t(C > 0 ? C : 0));
  std::int64_t p = 0;
  for (std::int64_t c = 0; c < C; ++c) {
    ranges[c].begin = p;
    while (p < n && sorted_labels[p] == c) ++p;
    ranges[c].end = p;
  }
  return ranges;
}
/// label_ranges of a vector of sorted labels.
inline std::vector<range> label_ranges(const std::vector<std::int64_t>& sorted_labels, std::int64_t C) {
  return label_ranges(sorted_labels.data(), std::int64_t(sorted_labels.size()), C);
}

/// The centroids (C, D) of the clusters of x:(n, D), labels in [0, C): the
/// mean of each cluster's points, weighted by `weights` (n) when given. An
/// empty cluster (or one of total weight 0) has centroid 0.
template <class T>
std::vector<T> centroids(const T* x, std::int64_t n, int D, const std::int64_t* labels, std::int64_t C,
                         const T* weights = nullptr) {
  std::vector<double> sum(std::size_t(C > 0 ? C : 0) * std::size_t(D), 0.0), mass(std::size_t(C > 0 ? C : 0), 0.0);
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t l = labels[p];
    if (l < 0 || l >= C) {
      kops::detail::fail("kops::cluster::centroids: label %lld of point %lld is not in [0, %lld)", (long long)l,
                         (long long)p, (long long)C);
      return {};
    }
    const double w = weights ? double(weights[p]) : 1.0;
    mass[l] += w;
    for (int d = 0; d < D; ++d) sum[l * D + d] += w * double(x[p * D + d]);
  }
  std::vector<T> c(sum.size());
  for (std::int64_t l = 0; l < C; ++l)
    for (int d = 0; d < D; ++d) c[l * D + d] = mass[l] != 0.0 ? T(sum[l * D + d] / mass[l]) : T(0);
  return c;
}

/// The radius of each cluster of the sorted points xs:(n, D): the largest
/// distance from a point of cluster c (rows ranges[c]) to centroid c (cent:(C, D)); 0 when empty.
template <class T>
std::vector<double> radii(const T* xs, int D, const std::vector<range>& ranges, const std::vector<T>& cent) {
  std::vector<double> r(ranges.size(), 0.0);
  for (std::size_t c = 0; c < ranges.size(); ++c)
    for (std::int64_t p = ranges[c].begin; p < ranges[c].end; ++p) {
      double d2 = 0;
      for (int d = 0; d < D; ++d) {
        const double t = double(xs[p * D + d]) - double(cent[c * D + d]);
        d2 += t * t;
      }
      r[c] = std::max(r[c], std::sqrt(d2));
    }
  return r;
}

/// Points sorted by cluster (sort_clusters): x:(n, D) and labels in the stable
/// order of the labels, and the permutation, perm[k] = the original index of
/// sorted point k (scatter_rows puts results back in the caller's order).
template <class T>
struct sorted_clusters {
  std::vector<T> x;
  std::vector<std::int64_t> labels;
  std::vector<std::int64_t> perm;
};

/// pykeops' sort_clusters: the points x:(n, D) and their labels, sorted by label (stably).
template <class T>
sorted_clusters<T> sort_clusters(const T* x, std::int64_t n, int D, const std::vector<std::int64_t>& labels) {
  sorted_clusters<T> s;
  if (std::int64_t(labels.size()) != n) {
    kops::detail::fail("kops::cluster::sort_clusters: %lld labels for %lld points", (long long)labels.size(),
                       (long long)n);
    return s;
  }
  s.perm = sort_permutation(labels);
  s.x.resize(std::size_t(n) * std::size_t(D));
  s.labels.resize(labels.size());
  gather_rows(x, n, D, s.perm, s.x.data());
  gather_rows(labels.data(), n, 1, s.perm, s.labels.data());
  return s;
}

/// The clusters of sorted points (cluster_ranges_centroids): C = largest label
/// + 1 clusters; cluster c is the rows ranges[c], with its centroid (C, D), its
/// weight (the sum of its points' weights, or their number) and its radius.
template <class T>
struct cluster_info {
  std::vector<range> ranges;
  std::vector<T> centroids;
  std::vector<T> weights;
  std::vector<double> radii;
};

/// pykeops' cluster_ranges_centroids, on points sorted by label (sort_clusters):
/// per cluster its rows, centroid (weighted by `weights` (n) when given), weight
/// and radius (the largest distance from one of its points to its centroid).
template <class T>
cluster_info<T> cluster_ranges_centroids(const T* xs, std::int64_t n, int D,
                                         const std::vector<std::int64_t>& sorted_labels, const T* weights = nullptr) {
  cluster_info<T> c;
  if (std::int64_t(sorted_labels.size()) != n) {
    kops::detail::fail("kops::cluster::cluster_ranges_centroids: %lld labels for %lld points",
                       (long long)sorted_labels.size(), (long long)n);
    return c;
  }
  const std::int64_t C = sorted_labels.empty() ? 0 : sorted_labels.back() + 1;
  c.ranges = label_ranges(sorted_labels.data(), n, C);
  if (std::int64_t(c.ranges.size()) != C) return {};  // reported by label_ranges
  c.centroids = centroids(xs, n, D, sorted_labels.data(), C, weights);
  c.weights.assign(std::size_t(C), T(0));
  for (std::int64_t p = 0; p < n; ++p) c.weights[sorted_labels[p]] += weights ? weights[p] : T(1);
  c.radii = radii(xs, D, c.ranges, c.centroids);
  return c;
}

/// keep[a * Cj + b] = 1 when centroids a of ci:(Ci, D) and b of cj:(Cj, D) are
/// at most cutoff + radius_i[a] + radius_j[b] apart (Euclidean), else 0. With
/// the clusters' radii (kops::cluster::radii), every dropped pair of points is
/// then more than `cutoff` apart: a cut-off of a few kernel widths bounds the
/// truncation error. Without radii (null), centroids at most `cutoff` apart.
template <class T>
std::vector<unsigned char> distance_mask(const T* ci, std::int64_t Ci, const T* cj, std::int64_t Cj, int D,
                                         double cutoff, const double* radius_i = nullptr,
                                         const double* radius_j = nullptr) {
  std::vector<unsigned char> keep(std::size_t(Ci) * std::size_t(Cj));
  for (std::int64_t a = 0; a < Ci; ++a)
    for (std::int64_t b = 0; b < Cj; ++b) {
      double d2 = 0;
      for (int d = 0; d < D; ++d) {
        const double t = double(ci[a * D + d]) - double(cj[b * D + d]);
        d2 += t * t;
      }
      const double reach = cutoff + (radius_i ? radius_i[a] : 0.0) + (radius_j ? radius_j[b] : 0.0);
      keep[a * Cj + b] = d2 <= reach * reach;
    }
  return keep;
}

/// The structure of a cluster-level keep mask (Ci, Cj), row-major, nonzero =
/// keep: row block a is the rows of cluster a (ranges_i[a]), reducing over the
/// clusters b of ranges_j that it keeps (consecutive clusters merged into one
/// interval). Clusters with no kept pair, or no rows, are left out (their rows
/// get the reduction's empty value). ranges_i must be sorted and disjoint, as
/// label_ranges gives them; so must ranges_j. `axis` tags the result
/// (kops::sparsity_axis::i: these are i rows, and a reduction over i rows of j
/// — a gradient with respect to y, say — gets its transpose from eval); by
/// default it describes the rows of whatever reduction it is passed with.
template <class Mask>
structure from_matrix(const std::vector<range>& ranges_i, const std::vector<range>& ranges_j, const Mask* keep,
                      sparsity_axis axis = sparsity_axis::output) {
  structure s;
  s.axis = axis;
  const std::size_t Cj = ranges_j.size();
  for (std::size_t a = 0; a < ranges_i.size(); ++a) {
    const std::size_t before = s.reduced.size();
    for (std::size_t b = 0; b < Cj; ++b)
      if (keep[a * Cj + b]) detail::append_merged(s.reduced, ranges_j[b].begin, ranges_j[b].end, before);
    if (s.reduced.size() == before || ranges_i[a].begin == ranges_i[a].end) {
      s.reduced.resize(before);
      continue;
    }
    s.rows.push_back(ranges_i[a]);
    s.slices.push_back(std::int64_t(s.reduced.size()));
  }
  return s;
}
/// from_matrix with the mask as a vector (its size checked: Ci x Cj entries).
template <class Mask>
structure from_matrix(const std::vector<range>& ranges_i, const std::vector<range>& ranges_j,
                      const std::vector<Mask>& keep, sparsity_axis axis = sparsity_axis::output) {
  if (keep.size() != ranges_i.size() * ranges_j.size()) {
    kops::detail::fail("kops::cluster::from_matrix: the mask has %lld entries, not %lld x %lld",
                       (long long)keep.size(), (long long)ranges_i.size(), (long long)ranges_j.size());
    return {};
  }
  return from_matrix(ranges_i, ranges_j, keep.data(), axis);
}

/// The same kept (row, term) pairs as s (`rows` rows of the axis it describes,
/// over `cols` terms), described by the rows of the other axis: what a
/// reduction over the other axis takes (a gradient with respect to a
/// reduced-axis variable, say) when s is not tagged with its axis. A tagged
/// s gives the other tag. s is checked first (kops::error when invalid).
inline structure transpose(const block_sparsity& s, std::int64_t rows, std::int64_t cols) {
  if (!kops::detail::check_sparsity("kops::cluster::transpose", s, rows, cols, "of s")) return {};
  const kops::detail::sparsity_copy t = kops::detail::transpose_sparsity(s);
  structure out;
  out.rows.assign(t.rows.data(), t.rows.data() + t.row_blocks);
  out.slices.assign(t.slices.data(), t.slices.data() + t.row_blocks);
  out.reduced.assign(t.reduced.data(), t.reduced.data() + t.reduced.size());
  out.axis = t.axis;
  return out;
}

/// The number of (row, term) pairs s keeps: its cost against rows x cols dense.
inline std::int64_t kept_pairs(const block_sparsity& s) {
  std::int64_t pairs = 0, first = 0;
  for (std::int64_t k = 0; k < s.row_blocks; ++k) {
    std::int64_t terms = 0;
    for (std::int64_t t = first; t < s.slices[k]; ++t) terms += s.reduced[t].end - s.reduced[t].begin;
    pairs += (s.rows[k].end - s.rows[k].begin) * terms;
    first = s.slices[k];
  }
  return pairs;
}

} // namespace kops::cluster
