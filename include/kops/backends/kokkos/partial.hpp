// Partial accumulators of the Kokkos backend: a reduction's state after one
// contiguous slice [index0, index0 + cols) of its reduced axis, for every output
// row, before finalize. Slices reduced separately (on other threads, processes
// or machines) are merged in axis order with the reduction's own combine and
// finalized once, which gives what one eval over the concatenated axis gives
// (indices, ties and NaN rules exactly; sums up to the rounding of another
// order of additions). kops/mpi.hpp moves these slots between processes.
//
//   rows:(rows) -> slots:(packs), packs = blocks * U, slot p = the L rows p*L + [0, L)
//
// One slot holds one SIMD pack of rows (block_kernel's Acc: one lane per row)
// and the number of terms its slice had. The layout depends only on the
// reduction, the element type, the policies and the SIMD width, never on the
// slice, so two calls with the same rows give slots that combine element by
// element. The last block's packs past the end of the rows hold the
// accumulators of a repeated last row: they combine like the others and are
// never written out.
//
// An empty slice is the identity of combine. The reductions' init(-1) is not
// quite that: an argmin over an empty range followed by a range of +inf terms
// would keep index -1 (combine keeps the first operand on ties), where one eval
// over the whole axis reports the first index of the range. So combine looks at
// the term counts and takes the other operand whole when one side is empty.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <kops/backends/kokkos/block_kernel.hpp>
#include <kops/backends/kokkos/host_space.hpp>
#include <kops/core/block_sparsity.hpp>

namespace kops::kokkos::detail {

// The partial accumulators of eval(Red, ...) with element type T, output
// element Out and policies Pol (core/policy.hpp): those of its block_kernel.
template <class Red, class T, class Out, class Pol>
struct partial {
  using K = block_kernel<Red, T, Out, Pol>;
  using acc_type = typename K::Acc;
  using op = typename K::Op;
  using math = typename K::Math;
  static constexpr int L = K::L;
  static constexpr int U = K::U;

  struct slot {
    acc_type acc;
    std::int64_t terms;  // terms of the reduced axis folded into acc; 0: the identity
  };
  static_assert(std::is_trivially_copyable_v<slot>,
                "kops: internal error, partial accumulators must be trivially copyable (they are sent as bytes)");

  // Slots for `rows` output rows: whole blocks of U packs.
  static constexpr std::int64_t packs(std::int64_t rows) {
    return (rows + K::rows_per_block - 1) / K::rows_per_block * U;
  }

  // slots[p] <- the accumulators of the rows of pack p over kernel's slice
  // (kernel.args holds the slice, kernel.cols its length, kernel.index0 its first
  // index on the whole axis). slots: packs(kernel.rows) elements.
  struct accumulate_functor {
    K kernel;
    slot* slots;
    void operator()(const std::int64_t block) const {
      acc_type acc[U];
      int valid[U];
      kernel.accumulate(block, acc, valid);
      for (int u = 0; u < U; ++u) {
        slot& s = slots[block * U + u];
        s.acc = acc[u];
        s.terms = kernel.cols;
      }
    }
  };
  static void accumulate(const K& kernel, slot* slots) {
    const std::int64_t blocks = packs(kernel.rows) / U;
    host_for(false, host_loop::partial_accumulate, blocks, accumulate_functor{kernel, slots});
  }

  // a <- a then b: b's slice follows a's on the reduced axis. Not commutative.
  static void combine(slot& a, const slot& b) {
    if (b.terms == 0) return;
    if (a.terms == 0) {
      a = b;
      return;
    }
    op::template combine<math>(a.acc, b.acc);
    a.terms += b.terms;
  }

  // out:(rows, Red::dim) <- finalize(slots).
  struct finalize_functor {
    const slot* slots;
    Out* out;
    std::int64_t rows;
    void operator()(const std::int64_t p) const {
      const std::int64_t row0 = p * L;
      const int valid = int(std::clamp<std::int64_t>(rows - row0, 0, L));
      for (int l = 0; l < valid; ++l)
        kops::detail::store_row<op, math, Red::dim>(slots[p].acc, l, out + (row0 + l) * out_stride_v<Red>);
    }
  };
  static void finalize(const slot* slots, std::int64_t rows, Out* out) {
    const std::int64_t used = (rows + L - 1) / L;  // packs holding at least one row
    host_for(false, host_loop::partial_finalize, used, finalize_functor{slots, out, rows});
  }
};

// Rows [r0, r1) of kernel's output not in any row block of g <- the empty value.
// (Empty row blocks may sit anywhere: they are skipped.)
template <class K>
void write_gaps(const K& kernel, const block_sparsity& g) {
  std::int64_t prev = 0;
  for (std::int64_t k = 0; k < g.row_blocks; ++k) {
    if (g.rows[k].begin == g.rows[k].end) continue;
    kernel.write_empty(prev, g.rows[k].begin);
    prev = g.rows[k].end;
  }
  kernel.write_empty(prev, kernel.rows);
}

// Block-sparse partial accumulators (kops::mpi with the reduced axis split):
// the row tiles of a structure g, K::rows_per_block rows of one row block each,
// U slots per tile. The tiles depend on g's rows only, so ranks holding other
// parts of the reduced axis get slots that combine element by element.
struct row_tile {
  std::int64_t row0, row_end, block;
};
inline std::vector<row_tile> row_tiles(const block_sparsity& g, std::int64_t rows_per_block) {
  std::vector<row_tile> tiles;
  for (std::int64_t k = 0; k < g.row_blocks; ++k)
    for (std::int64_t r = g.rows[k].begin; r < g.rows[k].end; r += rows_per_block)
      tiles.push_back({r, g.rows[k].end, k});
  return tiles;
}

// slots[t * U + u] <- the accumulators of tile t over the intervals `mine`
// (g's intervals, cut to the kernel's slice of the reduced axis and indexed
// from its start: kernel.index0 gives global indices).
template <class Part>
struct ranged_partial_functor {
  using K = typename Part::K;
  K kernel;
  block_sparsity g;
  const range* mine;
  const row_tile* tiles;
  typename Part::slot* slots;
  void operator()(const std::int64_t t) const {
    const row_tile& tile = tiles[t];
    const std::int64_t first = tile.block > 0 ? g.slices[tile.block - 1] : 0, last = g.slices[tile.block];
    std::int64_t terms = 0;
    for (std::int64_t i = first; i < last; ++i) terms += mine[i].end - mine[i].begin;
    typename Part::acc_type acc[K::U];
    int valid[K::U];
    kernel.accumulate_ranges(tile.row0, tile.row_end, acc, valid, mine + first, last - first);
    for (int u = 0; u < K::U; ++u) slots[t * K::U + u] = {acc[u], terms};
  }
};
template <class Part>
void ranged_partial(const typename Part::K& kernel, const block_sparsity& g, const range* mine,
                    const std::vector<row_tile>& tiles, typename Part::slot* slots) {
  host_for(false, host_loop::partial_accumulate, std::int64_t(tiles.size()),
           ranged_partial_functor<Part>{kernel, g, mine, tiles.data(), slots});
}

// out <- the finalized slots of every tile, and the empty value in the rows of no block.
template <class Part>
struct ranged_finalize_functor {
  using K = typename Part::K;
  K kernel;
  const row_tile* tiles;
  const typename Part::slot* slots;
  void operator()(const std::int64_t t) const {
    typename Part::acc_type acc[K::U];
    int valid[K::U];
    for (int u = 0; u < K::U; ++u) {
      acc[u] = slots[t * K::U + u].acc;
      valid[u] = int(std::clamp<std::int64_t>(tiles[t].row_end - (tiles[t].row0 + u * K::L), 0, K::L));
    }
    kernel.write(tiles[t].row0, acc, valid);
  }
};
template <class Part>
void ranged_finalize(const typename Part::K& kernel, const block_sparsity& g, const std::vector<row_tile>& tiles,
                     const typename Part::slot* slots) {
  write_gaps(kernel, g);
  host_for(false, host_loop::partial_finalize, std::int64_t(tiles.size()),
           ranged_finalize_functor<Part>{kernel, tiles.data(), slots});
}

} // namespace kops::kokkos::detail
