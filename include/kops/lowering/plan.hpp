// The evaluation plan of a reduction on a target: which formula a backend's
// pair loop evaluates, and in which of the lowered forms. Each backend states
// what it is as data (a Target type, below); the rules that turn those facts
// into a plan are here, once, for every backend:
//
//   formula       the reduction's formula under the precision policy
//                 (lower.hpp: policy_formula_t, the target's own rewrites),
//                 its sums over at least Target::chunk_min_dim coordinates
//                 evaluated Target::chunk components at a time (chunk.hpp)
//   reads_chunks  the formula reads some variable chunk by chunk (a chunked
//                 sum, or a pass of an output in chunks: Red::out_stride)
//   sums, staged  the staged form of the chunked sums (chunk_plan.hpp): a
//                 group of pairs at a time, each chunk of a row read once
//   final_plan,   the sum of a wide formula in final chunks (final_chunks.hpp):
//   final_chunks  the pair's dimension-1 parts once, then the output
//                 Target::output_chunk<T> components at a time
//
// A Target has (every member a constant):
//   exp_scaled                   its math has exp_scaled(a, b) (lower.hpp)
//   fast_exp<T>                  the fast policy's exp2 rewrite applies to T
//                                (else T's fast policy evaluates the accurate formula)
//   chunk_min_dim, chunk         the chunked sums' threshold and chunk width
//   output_chunk_min_dim,        final chunks' threshold and width for T
//   output_chunk<T>
//   final_keeps_accumulator      final chunks keep an accumulator of the call's
//                                summation scheme and type per output chunk (true:
//                                any scheme, any storage), or add each group's
//                                plain sums in T to the output row (false: only a
//                                plain sum, accumulated in T, on T arrays)
//
// The backends keep what is theirs: tiling, registers, shared memory, the
// accumulation op's type (reductions/detail/scheme_sum.hpp).
#pragma once

#include <type_traits>

#include <kops/core/dtype_acc.hpp>
#include <kops/core/precision.hpp>
#include <kops/core/sum_scheme.hpp>
#include <kops/lowering/chunk.hpp>
#include <kops/lowering/chunk_plan.hpp>
#include <kops/lowering/final_chunks.hpp>
#include <kops/lowering/lower.hpp>

namespace kops::detail {

/// Op is the plain sum of its terms (a reduction's op declares `using
/// plain_sum = <itself>;`; an op derived from it is not one).
template <class Op>
inline constexpr bool is_plain_sum_v = [] {
  if constexpr (requires { typename Op::plain_sum; }) return std::is_same_v<typename Op::plain_sum, Op>;
  else return false;
}();

/// Index i of a group of n (n >= 1), or the group's last when i is past its
/// end: the pairs a loop computes but never uses read data the group has.
KOPS_HD KOPS_INLINE constexpr int clamp_to_group(int i, int n) { return i < n ? i : n - 1; }

/// The formula Target evaluates for Red in T under P, before chunking.
template <class Red, class Target, class T, precision P>
using unchunked_formula_t = policy_formula_t<Red, Target::template fast_exp<T> ? P : precision::accurate, Target>;

/// The plan (file comment) of reduction Red evaluated in T under precision P,
/// summation scheme S and accumulator type A, on Target; Stored: the call's
/// arrays are 16-bit, evaluated in T.
template <class Red, class Target, class T, precision P, sum_scheme S, dtype_acc A, bool Stored>
struct evaluation_plan {
  using signature = typename Red::signature;
  static constexpr int widest = widest_slot<signature>::value;
  static constexpr bool strided_output = requires { Red::out_stride; };

  using unchunked = unchunked_formula_t<Red, Target, T, P>;
  using formula = chunked_for_t<unchunked, signature, Target::chunk_min_dim, Target::chunk>;

  static constexpr bool reads_chunks = [] {
    if constexpr (strided_output) return true;
    else if constexpr (widest >= Target::chunk_min_dim) return !std::is_same_v<formula, unchunked>;
    else return false;
  }();

  using sums = chunk_plan<formula>;
  static constexpr bool staged = [] {
    if constexpr (widest >= Target::chunk_min_dim) return sums::ok;
    else return false;
  }();

  using final_source = std::conditional_t<staged, typename sums::outer, formula>;
  using final_plan = kops::detail::final_plan<final_source, Red::red_cat, Target::template output_chunk<T>>;
  static constexpr bool final_chunks = [] {
    if constexpr (formula::dim < Target::output_chunk_min_dim || !is_plain_sum_v<typename Red::op> ||
                  strided_output)
      return false;
    else if constexpr (!Target::final_keeps_accumulator &&
                       (S == sum_scheme::kahan || A != dtype_acc::same || Stored))
      return false;
    else return final_plan::ok;
  }();
};

} // namespace kops::detail
