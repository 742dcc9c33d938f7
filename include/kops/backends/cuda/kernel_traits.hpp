// Compile-time facts shared by the GPU kernels of one (reduction, element type,
// math provider): dims of the three per-category register/shared-memory
// layouts, block and tile sizes, accumulator and output types.
//
// Layouts (components in signature order, see detail/arguments.hpp):
//   row variables   (row_dims)             registers of the thread owning the row
//   parameters      (param_dims)           registers of every thread
//   reduced tile    (tile, red_dims)       dynamic shared memory, row-major:
//                                          tile[jj * red_dims + offset_I + k] = arg_I[j0 + jj, k]
#pragma once

#include <cstddef>
#include <cstdint>

#include <kops/core/factorize.hpp>
#include <kops/core/variable.hpp>
#include <kops/detail/arguments.hpp>

namespace kops::cuda::detail {

// The argument pointers, passed to kernels by value (kernel parameter space).
template <class T, int N>
struct arg_pointers {
  const T* p[N > 0 ? N : 1];
};

template <class Red, class T, class Math>
struct kernel_traits {
  using reduction = Red;
  // What is evaluated: the reduction's formula with repeated sub-formulas
  // factorized (core/factorize.hpp), as on the CPU.
  using formula = evaluated_formula_t<Red>;
  using op = typename Red::op;
  using signature = typename Red::signature;
  using math = Math;
  using value_type = T;
  using out_type = typename op::template out_t<T>;
  using acc_type = decltype(op::template init<Math, T, formula::dim>(0));
  using args_type = arg_pointers<T, Red::nargs>;

  static constexpr category row_cat = Red::row_cat;
  static constexpr category red_cat = Red::red_cat;
  static constexpr int row_dims = kops::detail::row_dims<signature, row_cat>();
  static constexpr int red_dims = kops::detail::row_dims<signature, red_cat>();
  static constexpr int param_dims = kops::detail::row_dims<signature, category::param>();

  // Threads per block = output rows per block. 192 as KeOps: 10 resident
  // blocks (1920 threads) per SM on sm_80/sm_90 when registers allow.
  static constexpr int block = 192;
  // Shared memory per block: at most 48 KiB, the limit every device grants
  // without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize).
  static constexpr std::size_t max_shared_bytes = 48 * 1024;
  // Reduced-axis indices per tile: one per thread, fewer when the reduced
  // variables are so wide that a block's worth would not fit.
  static constexpr int tile = [] {
    if constexpr (red_dims == 0) {
      return block;
    } else {
      const std::size_t fit = max_shared_bytes / (std::size_t(red_dims) * sizeof(T));
      return int(fit < std::size_t(block) ? fit : std::size_t(block));
    }
  }();
  static_assert(tile >= 1,
                "kops::cuda::eval: the reduced-axis variables of this formula take more than 48 KiB "
                "per index; the GPU backend cannot tile them");
  static constexpr std::size_t shared_bytes = std::size_t(tile) * red_dims * sizeof(T);
};

} // namespace kops::cuda::detail
