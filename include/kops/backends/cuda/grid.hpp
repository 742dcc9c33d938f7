// The CUDA grid's limits and the helpers that size a launch's grid within them.
//
// A grid holds at most grid_max_x blocks in x and grid_max_yz in y and z
// (compute capability 3.0 and later). The backend puts row blocks (GPU_1D,
// GPU_2D's passes) and block-sparse tasks or pieces (ranges.hpp) on x,
// GPU_2D's chunks on y (gpu_2d.hpp: gpu_2d_max_grid_chunks) and the batches of
// a batched call on z (batch_grid: a kernel loops over the batches beyond its
// grid's z). row_blocks reports a call whose rows need more blocks than x
// holds; nothing here launches anything.
#pragma once

#include <cstdint>

#include <kops/backends/cuda/error.hpp>

namespace kops::cuda::detail {

// The most blocks a grid holds in x (2^31 - 1), and in y or z.
inline constexpr std::int64_t grid_max_x = 2147483647;
inline constexpr std::int64_t grid_max_yz = 65535;

// The most batches one grid holds on its z axis: the grid's limit, 65535
// (tests lower it to exercise the kernels' loop over the batches beyond it).
inline unsigned& max_batch_grid() {
  static unsigned z = grid_max_yz;
  return z;
}
// The grid's z extent for `count` batches.
inline unsigned batch_grid(std::int64_t count) {
  const unsigned z = max_batch_grid();
  return count < std::int64_t(z) ? unsigned(count) : z;
}

__attribute__((noinline, cold)) inline bool too_many_rows(std::int64_t rows, int block, const char* where) {
  return kops::detail::fail("%s: %lld output rows exceed the GPU grid (2^31 - 1 blocks of %d)", where,
                            (long long)rows, block);
}

// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

// Blocks of `block` threads needed to cover `rows` rows, into `n`; false (a
// kops::error thrown, or reported without exceptions) past the grid's x limit.
[[nodiscard]] inline bool row_blocks(std::int64_t rows, int block, const char* where, unsigned& n) {
  const std::int64_t b = ceil_div(rows, block);
  n = 0;
  if (b > grid_max_x) return too_many_rows(rows, block, where);
  n = unsigned(b);
  return true;
}

} // namespace kops::cuda::detail
