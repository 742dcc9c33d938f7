// kops::sum_scheme, the summation-scheme policy of a call (KeOps'
// sum_scheme), one of the three compile-time policies that core/policy.hpp
// gathers, with block_sum_length and the default scheme. This header only
// names the choice and its constants; reductions/detail/scheme_sum.hpp
// implements the schemes as accumulation ops (accumulation_op_t), which the
// backends' kernels use in place of sum_op.
#pragma once

namespace kops {

/// Summation scheme of sum-type reductions, chosen per call at compile time
/// (it changes the generated code), as KeOps' sum_scheme:
///
/// ```text
///   direct  s <- s + x_j: one add per term. The rounding error grows with the
///           number of terms n and the size of the running sum: about n u |S|
///           in the worst case (u = 2^-24 in float), in practice ~sqrt(n) u |S|
///           for terms of random sign, up to n u |S| for terms of one sign
///           (1e7 terms of 0.1f sum to 1087937 instead of 1e6).
///   block   terms are summed into a partial sum that is added into the total
///           every block_sum_length terms (KeOps' block_sum): error about
///           (B + n / B) u |S| instead of n u |S|, for one extra add per B terms
///           and a term counter.
///   kahan   compensated summation (Kahan): the rounding error of each add is
///           kept in a compensation term and fed back into the next add; error
///           about 2 u |S| + n u^2 sum |x_j|, independent of n to first order,
///           for 4 adds per term.
/// ```
///
/// The scheme applies to sum_reduction (and therefore to every gradient that is
/// a sum, on either axis); min, max, the arg and k-min families do no
/// arithmetic on the terms, and logsumexp / sumsoftmaxweight keep their own
/// max-shifted sums. Default: block (see docs/usage.md, "Accuracy").
enum class sum_scheme { direct, block, kahan };

/// Terms per block of sum_scheme::block: about sqrt(n) for the n ~ 1e6 that
/// kernel sums are typically run on, where (B + n / B) is smallest.
inline constexpr int block_sum_length = 1024;

/// The scheme eval uses when the call names none.
inline constexpr sum_scheme default_sum_scheme = sum_scheme::block;

} // namespace kops
