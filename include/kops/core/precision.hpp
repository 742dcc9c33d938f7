// kops::precision, the math-precision policy of a call, one of the three
// compile-time policies that core/policy.hpp gathers. This header only names
// the choice: the lowering rewrites exp under the fast policy
// (lowering/lower.hpp: policy_formula_t), and each backend picks its math
// provider from it (backends/cuda/fast_math.hpp on the GPU, pack_math_fast of
// backends/kokkos/pack.hpp on the CPU).
#pragma once

namespace kops {

/// Precision policy of a backend's math functions, chosen per call at compile
/// time (it changes the generated code):
/// ```text
///   accurate (default): exp, log, sin, cos within a few ulp of std:: over
///                       their whole domain, IEEE special values and subnormals
///                       (the CPU's AVX-512 exp within 1 ulp of the exact value,
///                       and exp(a * b), b invariant, of the exact e^(ab));
///   fast:               exp via 2^(x log2 e) with a short polynomial: relative
///                       error within about 2 + 1.2|x| ulp (as CUDA's __expf);
///                       results below 2^-125 (float) / 2^-1021 (double) may be
///                       flushed to 0 (AVX-512 builds round them correctly);
///                       other functions as accurate. KeOps compiles with fast math.
/// ```
enum class precision { accurate, fast };

} // namespace kops
