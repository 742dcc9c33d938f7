// Output chunking (the front end, detail/dispatch.hpp): a reduction whose
// formula is wide -- a sum of k(x_i, y_j) b_j with b_j of dimension 1000, say
// -- needs an accumulator of that width per output row: registers that spill
// on the GPU, packs of stack on the CPU. Run instead as passes of CH output
// components each, every pass reducing the formula over its components only
// (lowering/chunk.hpp's VarStrided leaves, read at argument pointers moved to
// the chunk) and writing them into the wide output rows (strided_output);
// the formula's dimension-1 part (the kernel k) is evaluated again by every
// pass, which is why it must be narrow.
#pragma once

#include <cstdint>

#include <kops/lowering/chunk.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::detail {

/// Output chunking of a reduction whose formula F is MinDim or more wide:
/// the passes computing its output CH components at a time, each with the
/// formula F over those components (VarStrided leaves). `ok` when F is
/// element-wise over its dimension, its wide variables are among the first 64
/// arguments and not of the output rows' category (they are read at pointers
/// moved to the chunk), its
/// dimension-1 parts are narrow, and the reduction is component by component
/// (its op declares `componentwise`).
template <class Red, int MinDim, int CH>
struct output_chunks {
  using F = typename Red::formula;
  static constexpr int width = F::dim;
  static constexpr bool ok = [] {
    if constexpr (F::dim < MinDim || F::dim <= CH || !requires { Red::op::componentwise; }) return false;
    else
      return chunk_body<F, F::dim, CH, VarStrided>::ok && wide_max_index<F, F::dim>::value < 64 &&
             wide_mask<F, F::dim, Red::row_cat>::value == 0 && narrow_scalars<F, MinDim>::value;
  }();
  // Bit I: argument I's pointer moves to each chunk.
  static constexpr std::uint64_t moved = [] {
    if constexpr (ok) return wide_mask<F, F::dim, Red::red_cat>::value | wide_mask<F, F::dim, category::param>::value;
    else return std::uint64_t(0);
  }();
};

// The passes of an output in chunks (output_chunks<Red, ., CH>::ok): full, of
// CH components, and tail, of the last width % CH (a separate class template,
// so that deciding whether to chunk instantiates no pass).
template <class Red, int CH>
struct output_chunk_passes {
  using F = typename Red::formula;
  template <int C2>
  using pass = strided_output<Reduction<typename Red::op, typename chunk_body<F, F::dim, C2, VarStrided>::type,
                                        typename Red::axis, Red::nargs>,
                              F::dim>;
  using full = pass<CH>;
  using tail = pass<(F::dim % CH > 0 ? F::dim % CH : CH)>;
};

} // namespace kops::detail
