// kops::tensor_cores, the fourth compile-time policy kind that core/policy.hpp
// gathers: whether the GPU backend may compute a formula's inner products on
// the tensor cores (backends/cuda/tensor_core.hpp; docs/tensor_cores.md). This
// header only names the choice; the CPU backend ignores it.
#pragma once

namespace kops {

/// Tensor-core policy of a GPU call, chosen per call at compile time:
/// ```text
///   automatic (default): on a device of compute capability 8.0 or more, a
///                        reduction whose formula sums over the coordinates of
///                        an inner product of an i- and a j-variable at least
///                        KOPS_TC_MIN_DIM (32) wide -- dot(x, y), sqdist(x, y),
///                        the diagonal weighted_sqdist -- computes those inner
///                        products on the tensor cores (mma.sync), the rest of
///                        the formula per pair on the CUDA cores; arithmetic by
///                        element type and precision policy as docs/tensor_cores.md
///                        states (float fast: TF32; float accurate: 3xTF32, and
///                        only for dot products; kops::half / kops::bfloat16
///                        storage: fp16 / bf16; double: never).
///   off:                 the CUDA-core kernels, always.
/// ```
enum class tensor_cores { automatic, off };

} // namespace kops
