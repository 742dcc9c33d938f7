// kops::dtype_acc, the accumulator-type policy of a call (KeOps' dtype_acc),
// one of the three compile-time policies that core/policy.hpp gathers. This
// header only names the choice; reductions/detail/scheme_sum.hpp
// (accumulation_op_t) turns it into a sum's accumulator, and the backends'
// kernel traits pass it through (backends/cuda/kernel_traits.hpp,
// backends/kokkos/block_kernel.hpp).
#pragma once

namespace kops {

/// Element type of a reduction's accumulators, chosen per call at compile time,
/// as KeOps' dtype_acc:
///
/// ```text
///   same     accumulate in the element type of the data (default)
///   float64  accumulate float data in double: each term is evaluated in float
///            and widened before it is added; the sum then rounds to float once,
///            in finalize. Double data is unaffected.
/// ```
///
/// Like sum_scheme (core/sum_scheme.hpp), it applies to sum_reduction.
enum class dtype_acc { same, float64 };

} // namespace kops
