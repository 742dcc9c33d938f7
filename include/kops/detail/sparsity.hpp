// Block-sparsity structures (core/block_sparsity.hpp) on the host: the
// validity check every ranged call runs before any work, an owning copy, and
// the transpose (the same kept (i, j) pairs described by the rows of the other
// axis). Every eval includes this header, so it stays light: no <vector>, no
// <algorithm> (they cost a CUDA translation unit about 0.3 s; the public owning
// type with vectors is kops::cluster::structure, kops/cluster.hpp).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <utility>

#include <kops/core/block_sparsity.hpp>
#include <kops/core/error.hpp>

namespace kops::detail {

// Total number of intervals of s (0 without blocks).
inline std::int64_t sparsity_intervals(const block_sparsity& s) {
  return s.row_blocks > 0 && s.slices ? s.slices[s.row_blocks - 1] : 0;
}

// A failed check's message: reported (kops::error or the handler), or, with
// `keep`, left there unreported (kops::mpi agrees on it first). False.
inline bool reject_sparsity(message m, message* keep) {
  if (!keep) return report(m);
  *keep = static_cast<message&&>(m);
  return false;
}

// True when s may be passed with a reduction that is a gradient with respect
// to a variable of a reduced axis (reduced_axis_gradient_v) and has `rows`
// rows (i or j): s is tagged with the axis it describes. Untagged, s could
// describe the gradient's rows or those of the reduction it is the gradient
// of (the other axis), and with M = N nothing else tells them apart: refused
// (reject_sparsity), never guessed.
inline bool check_sparsity_tagged(const char* where, const block_sparsity& s, const char* rows,
                                  message* keep = nullptr) {
  if (s.axis != sparsity_axis::output) return true;
  const char* other = rows[0] == 'i' ? "j" : "i";
  return reject_sparsity(
      format("%s: block_sparsity: this gradient with respect to a variable of the reduced axis (%s rows) cannot "
             "tell whether an untagged structure describes its %s rows or the %s rows of the reduction it is the "
             "gradient of, expected a structure tagged with its axis (kops::sparsity_axis::%s for one of that "
             "reduction's rows, which eval transposes, or ::%s), given sparsity_axis::output",
             where, rows, rows, other, other, rows),
      keep);
}

// True when s is valid for `rows` output rows over `cols` terms (see
// core/block_sparsity.hpp); else reject_sparsity (reported, or left in
// `keep`) and false. `axis` names the output rows' axis in messages.
inline bool check_sparsity(const char* where, const block_sparsity& s, std::int64_t rows, std::int64_t cols,
                           const char* axis, message* keep = nullptr) {
  auto bad = [keep](message m) { return reject_sparsity(static_cast<message&&>(m), keep); };
  if (s.row_blocks < 0)
    return bad(format("%s: block_sparsity: row_blocks = %lld is negative", where, (long long)s.row_blocks));
  if (s.row_blocks == 0) return true;
  if (!s.rows || !s.slices)
    return bad(format("%s: block_sparsity: %s is a null pointer (row_blocks = %lld)", where, s.rows ? "slices" : "rows",
                      (long long)s.row_blocks));
  std::int64_t prev_end = 0, prev_slice = 0;
  for (std::int64_t k = 0; k < s.row_blocks; ++k) {
    const range r = s.rows[k];
    if (r.begin < 0 || r.end < r.begin || r.end > rows)
      return bad(
          format("%s: block_sparsity: row block %lld = [%lld, %lld) is not within the %lld output rows (axis %s)",
                 where, (long long)k, (long long)r.begin, (long long)r.end, (long long)rows, axis));
    if (r.begin < prev_end && r.begin < r.end)  // an empty block may sit anywhere
      return bad(
          format("%s: block_sparsity: row block %lld = [%lld, %lld) starts before the end %lld of the block before "
                 "it (row blocks must be sorted and must not overlap)",
                 where, (long long)k, (long long)r.begin, (long long)r.end, (long long)prev_end));
    if (r.begin < r.end) prev_end = r.end;
    if (s.slices[k] < prev_slice)
      return bad(
          format("%s: block_sparsity: slices[%lld] = %lld is less than %lld (slices must be non-decreasing, from 0)",
                 where, (long long)k, (long long)s.slices[k], (long long)prev_slice));
    prev_slice = s.slices[k];
  }
  if (prev_slice > 0 && !s.reduced)
    return bad(format("%s: block_sparsity: reduced is a null pointer (%lld intervals)", where, (long long)prev_slice));
  std::int64_t first = 0;
  for (std::int64_t k = 0; k < s.row_blocks; ++k) {
    std::int64_t prev = 0;
    for (std::int64_t t = first; t < s.slices[k]; ++t) {
      const range r = s.reduced[t];
      if (r.begin < 0 || r.end < r.begin || r.end > cols)
        return bad(
            format("%s: block_sparsity: interval %lld = [%lld, %lld) of row block %lld is not within the %lld terms "
                   "of the reduced axis",
                   where, (long long)t, (long long)r.begin, (long long)r.end, (long long)k, (long long)cols));
      if (r.begin < prev && r.begin < r.end)  // an empty interval may sit anywhere
        return bad(
            format("%s: block_sparsity: interval %lld = [%lld, %lld) of row block %lld starts before the end %lld of "
                   "the interval before it (a block's intervals must be sorted and must not overlap)",
                   where, (long long)t, (long long)r.begin, (long long)r.end, (long long)k, (long long)prev));
      if (r.begin < r.end) prev = r.end;
    }
    first = s.slices[k];
  }
  return true;
}

// n elements of T on the heap, value-initialized, owned (moves only).
template <class T>
class owned_array {
 public:
  owned_array() = default;
  explicit owned_array(std::int64_t n) : p_(n > 0 ? new T[std::size_t(n)]() : nullptr), n_(n > 0 ? n : 0) {}
  owned_array(owned_array&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  owned_array& operator=(owned_array&& o) noexcept {
    if (this != &o) {
      delete[] p_;
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  owned_array(const owned_array&) = delete;
  owned_array& operator=(const owned_array&) = delete;
  ~owned_array() { delete[] p_; }
  T* data() const { return p_; }
  std::int64_t size() const { return n_; }
  T& operator[](std::int64_t k) const { return p_[k]; }

 private:
  T* p_ = nullptr;
  std::int64_t n_ = 0;
};

// A structure that owns its arrays (transposes, host copies of device ones).
struct sparsity_copy {
  owned_array<range> rows;
  owned_array<std::int64_t> slices;
  owned_array<range> reduced;
  std::int64_t row_blocks = 0;
  sparsity_axis axis = sparsity_axis::output;
  block_sparsity view() const& { return {rows.data(), row_blocks, slices.data(), reduced.data(), axis}; }
  block_sparsity view() const&& = delete;
};

// The same kept pairs (row r, term c) as s, described by the rows of the
// other axis: its row blocks are the pieces of the reduced axis between
// consecutive interval ends that some interval covers, each reducing over the
// row blocks of s that keep it (merged where they touch); consecutive pieces
// with the same list are one block. A tagged s gives the other tag. s must be
// valid.
inline sparsity_copy transpose_sparsity(const block_sparsity& s) {
  const std::int64_t n = sparsity_intervals(s);
  // The cut points: the ends of the non-empty intervals, sorted, distinct.
  owned_array<std::int64_t> cuts(2 * n);
  std::int64_t ncuts = 0;
  for (std::int64_t t = 0; t < n; ++t)
    if (s.reduced[t].begin < s.reduced[t].end) cuts[ncuts++] = s.reduced[t].begin, cuts[ncuts++] = s.reduced[t].end;
  if (ncuts > 0)  // (qsort's array may not be null, even when empty)
    std::qsort(cuts.data(), std::size_t(ncuts), sizeof(std::int64_t), [](const void* a, const void* b) {
      const std::int64_t x = *static_cast<const std::int64_t*>(a), y = *static_cast<const std::int64_t*>(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
  std::int64_t distinct = 0;
  for (std::int64_t k = 0; k < ncuts; ++k)
    if (distinct == 0 || cuts[k] != cuts[distinct - 1]) cuts[distinct++] = cuts[k];
  const std::int64_t pieces = distinct > 0 ? distinct - 1 : 0;
  auto first_piece = [&](std::int64_t c) {  // the first cut >= c (a lower bound)
    std::int64_t lo = 0, hi = distinct;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (cuts[mid] < c) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Piece p's list of row ranges, in CSR form: two walks over (block, interval),
  // the first counting (after merges), the second writing.
  owned_array<std::int64_t> start(pieces + 1), last_end(pieces);
  owned_array<range> lists;
  for (int walk = 0; walk < 2; ++walk) {
    owned_array<std::int64_t> fill(pieces);
    for (std::int64_t p = 0; p < pieces; ++p) last_end[p] = -1;
    std::int64_t first = 0;
    for (std::int64_t k = 0; k < s.row_blocks; first = s.slices[k], ++k) {
      const range rows = s.rows[k];
      if (rows.begin == rows.end) continue;
      for (std::int64_t t = first; t < s.slices[k]; ++t) {
        const range r = s.reduced[t];
        if (r.begin == r.end) continue;
        for (std::int64_t p = first_piece(r.begin); p < pieces && cuts[p] < r.end; ++p) {
          if (last_end[p] == rows.begin) {  // touches the last range of the list: extends it
            if (walk == 1) lists[start[p] + fill[p] - 1].end = rows.end;
          } else {
            if (walk == 1) lists[start[p] + fill[p]] = rows;
            ++fill[p];
          }
          last_end[p] = rows.end;
        }
      }
    }
    if (walk == 0) {
      start[0] = 0;
      for (std::int64_t p = 0; p < pieces; ++p) start[p + 1] = start[p] + fill[p];
      lists = owned_array<range>(start[pieces]);
    }
  }
  auto same_list = [&](std::int64_t p, std::int64_t q) {
    const std::int64_t len = start[p + 1] - start[p];
    if (len != start[q + 1] - start[q]) return false;
    for (std::int64_t k = 0; k < len; ++k)
      if (!(lists[start[p] + k] == lists[start[q] + k])) return false;
    return true;
  };
  // The blocks: a piece with a list, joined to the block before when it
  // continues it with the same list.
  std::int64_t blocks = 0, intervals = 0;
  for (int walk = 0; walk < 2; ++walk) {
    sparsity_copy* out = nullptr;
    sparsity_copy result;
    if (walk == 1) {
      result.rows = owned_array<range>(blocks);
      result.slices = owned_array<std::int64_t>(blocks);
      result.reduced = owned_array<range>(intervals);
      result.row_blocks = blocks;
      result.axis = s.axis == sparsity_axis::i   ? sparsity_axis::j
                    : s.axis == sparsity_axis::j ? sparsity_axis::i
                                                 : sparsity_axis::output;
      out = &result;
    }
    blocks = intervals = 0;
    std::int64_t prev = -1;  // the piece of the last block
    for (std::int64_t p = 0; p < pieces; ++p) {
      if (start[p + 1] == start[p]) continue;
      if (prev >= 0 && prev == p - 1 && same_list(prev, p)) {
        if (out) out->rows[blocks - 1].end = cuts[p + 1];
        prev = p;
        continue;
      }
      if (out) {
        out->rows[blocks] = {cuts[p], cuts[p + 1]};
        for (std::int64_t k = start[p]; k < start[p + 1]; ++k) out->reduced[intervals + k - start[p]] = lists[k];
        out->slices[blocks] = intervals + start[p + 1] - start[p];
      }
      intervals += start[p + 1] - start[p];
      ++blocks;
      prev = p;
    }
    if (out) return result;
  }
  return {};
}

} // namespace kops::detail
