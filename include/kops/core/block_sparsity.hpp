// Block-sparse reductions (KeOps' "ranges"): which terms of the reduced axis
// each output row reduces over, as blocks of rows and lists of intervals.
//
//   block k (0 <= k < row_blocks): output rows [rows[k].begin, rows[k].end)
//   reduce over the intervals reduced[slices[k-1] .. slices[k]) of the
//   reduced axis, slices[-1] = 0, in that order
//
// A structure is valid when (detail/sparsity.hpp checks it before any work):
// every interval lies in its axis, begin <= end; the row blocks are sorted
// and do not overlap; slices are non-decreasing from slices[0] >= 0; the
// intervals of one block are sorted and do not overlap (a term is counted at
// most once); no pointer that would be read is null. Rows in no block get the
// reduction's empty value: what it gives over no term (sum 0, min +inf,
// argmin -1, logsumexp -inf, sumsoftmaxweight 0, a k-min's slots +inf / -1).
//
// Whose rows `rows` are (`axis`): by default those of the reduction it is
// passed with (the i rows 0 .. M of an axis_j reduction over j, the j rows of
// an axis_i one). Tagged sparsity_axis::i or ::j, the structure says so
// itself, and a reduction with rows of the other axis (a gradient with respect
// to a reduced-axis variable, say) reduces over the same kept pairs: eval
// transposes it (host work of the order of its size, at every call). An
// untagged structure never silently changes meaning: a gradient with respect
// to a reduced-axis variable (Reduction's ReducedAxisGradient) refuses one
// (it could be the forward call's or its own rows' structure; with M = N no
// size tells them apart): a kops::error that says to tag it. The passes of a
// two-pass gradient that run on the other axis get the transpose from eval.
#pragma once

#include <cstdint>

namespace kops {

/// The indices [begin, end) of one axis.
struct range {
  std::int64_t begin = 0, end = 0;
  friend constexpr bool operator==(const range&, const range&) = default;
};

/// Whose rows a block_sparsity describes.
enum class sparsity_axis : std::int8_t {
  output,  ///< the output rows of the reduction it is passed with
  i,       ///< the i rows (0 .. M), reducing over j
  j,       ///< the j rows (0 .. N), reducing over i
};

/// A block-sparse reduction's structure: see the file comment. Non-owning: the
/// arrays stay the caller's (host memory for kops::kokkos::eval).
struct block_sparsity {
  const range* rows = nullptr;            // row_blocks row ranges
  std::int64_t row_blocks = 0;
  const std::int64_t* slices = nullptr;   // row_blocks ends into reduced
  const range* reduced = nullptr;         // slices[row_blocks - 1] intervals
  sparsity_axis axis = sparsity_axis::output;
};

} // namespace kops
