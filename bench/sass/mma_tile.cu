// The tensor-core building block's loop (backends/cuda/mma_tile.hpp), for its
// SASS: one warp, its 16 rows loaded once (mma_load_rows), then n tiles of 8
// reduced rows, each staged through shared memory by the warp itself and
// multiplied (mma_dot_tile), __expf of each product accumulated. Not a kops
// kernel: what the tensor-core kernel will be built from. bench/sass/mma_tile.sh
// compiles it for sm_90 and counts HMMA, instructions and registers per 128 pairs.
#include <kops/backends/cuda/mma_tile.hpp>
using kops::cuda::detail::mma_arith;
// One warp: its 16 rows loaded once, then n tiles of 8 j-rows from shared memory.
template <mma_arith K, int D, class T>
__global__ void loop(const T* a, const T* b, int n, float* out) {
  __shared__ T tile[8 * D];
  const auto rows = kops::cuda::detail::mma_load_rows<K, D>(a, D);
  float s[4] = {0, 0, 0, 0};
  for (int t = 0; t < n; ++t) {
    for (int k = threadIdx.x; k < 8 * D; k += 32) tile[k] = b[t * 8 * D + k];
    __syncwarp();
    float p[4] = {0, 0, 0, 0};
    kops::cuda::detail::mma_dot_tile<K, D>(rows, tile, D, p);
    for (int i = 0; i < 4; ++i) s[i] += __expf(p[i]);
    __syncwarp();
  }
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = s[i];
}
template __global__ void loop<mma_arith::tf32, 64, float>(const float*, const float*, int, float*);
template __global__ void loop<mma_arith::tf32x3, 64, float>(const float*, const float*, int, float*);
template __global__ void loop<mma_arith::f16, 64, unsigned short>(const unsigned short*, const unsigned short*, int, float*);
template __global__ void loop<mma_arith::f16, 128, unsigned short>(const unsigned short*, const unsigned short*, int, float*);
