// Warp-level execution: __syncwarp, the shuffles, and the warp-level MMAs of
// backends/cuda/mma.hpp (mma.sync on a GPU; emulated by kops::cuda_emulated)
// with the PTX ISA's fragment layouts:
//   - mma_layout against the ISA's worked entries and as a bijection onto the
//     matrices (each element held by exactly one (lane, register));
//   - each MMA against a double-precision loop on the same (rounded) operands,
//     for two warps of a block at once, with random C;
//   - to_tf32 against cvt.rna's rounding (nearest, ties away from zero);
//   - the shuffles against what each lane must receive, in full and partial
//     warps, with widths below 32;
//   - mma_dot_tile (a warp's 16 x 8 inner products over D coordinates) in each
//     arithmetic against a double loop, with the bounds mma_tile.hpp states,
//     D a multiple of the step and not (zero-padded tails).
#include "cuda_support.hpp"

#include <kops/backends/cuda/mma.hpp>
#include <kops/backends/cuda/mma_tile.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

namespace {

using kops::cuda::detail::mma_layout;

// ---- the layouts, against the ISA's tables (worked entries) ----
static_assert(mma_layout::tf32_a(0, 0).row == 0 && mma_layout::tf32_a(0, 0).col == 0);
static_assert(mma_layout::tf32_a(0, 1).row == 8 && mma_layout::tf32_a(0, 1).col == 0);
static_assert(mma_layout::tf32_a(0, 2).row == 0 && mma_layout::tf32_a(0, 2).col == 4);
static_assert(mma_layout::tf32_a(6, 3).row == 9 && mma_layout::tf32_a(6, 3).col == 6);   // g 1, t 2
static_assert(mma_layout::tf32_b(6, 1).row == 6 && mma_layout::tf32_b(6, 1).col == 1);
static_assert(mma_layout::h16_a(6, 0).row == 1 && mma_layout::h16_a(6, 0).col == 4);
static_assert(mma_layout::h16_a(6, 3).row == 9 && mma_layout::h16_a(6, 3).col == 5);
static_assert(mma_layout::h16_a(6, 5).row == 1 && mma_layout::h16_a(6, 5).col == 13);
static_assert(mma_layout::h16_a(31, 7).row == 15 && mma_layout::h16_a(31, 7).col == 15);
static_assert(mma_layout::h16_b(6, 2).row == 12 && mma_layout::h16_b(6, 2).col == 1);
static_assert(mma_layout::c(6, 1).row == 1 && mma_layout::c(6, 1).col == 5);
static_assert(mma_layout::c(31, 3).row == 15 && mma_layout::c(31, 3).col == 7);

enum class kind { tf32, f16, bf16 };

// The shape of a kind: A rows x depth, B depth x 8.
constexpr int depth_of(kind k) { return k == kind::tf32 ? 8 : 16; }

// One 16-bit element of the operands, stored as its float value.
std::uint16_t to_16(kind k, float v) {
  if (k == kind::f16) return kops::detail::float_to_half_bits(v);
  std::uint32_t u;
  std::memcpy(&u, &v, 4);
  return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);  // to nearest even
}
float from_16(kind k, std::uint16_t h) {
  if (k == kind::f16) return kops::detail::half_bits_to_float(h);
  const std::uint32_t u = std::uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}

// Each warp w of the block: A_w (16 x depth, row-major), B_w (depth x 8,
// row-major: B(k, n) at k * 8 + n), C_w and D_w (16 x 8, row-major), loaded
// into the fragments by mma_layout and multiplied.
template <kind K>
__global__ void mma_kernel(const float* A, const float* B, const float* C, float* D) {
  constexpr int depth = depth_of(K);
  const int lane = int(threadIdx.x) % 32, w = int(threadIdx.x) / 32;
  const float* a = A + w * 16 * depth;
  const float* b = B + w * depth * 8;
  std::uint32_t fa[4] = {}, fb[2] = {};
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) {
    const auto p = mma_layout::c(lane, i);
    fc[i] = C[w * 128 + p.row * 8 + p.col];
  }
  if constexpr (K == kind::tf32) {
    for (int i = 0; i < 4; ++i) {
      const auto p = mma_layout::tf32_a(lane, i);
      fa[i] = kops::cuda::detail::to_tf32(a[p.row * depth + p.col]);
    }
    for (int i = 0; i < 2; ++i) {
      const auto p = mma_layout::tf32_b(lane, i);
      fb[i] = kops::cuda::detail::to_tf32(b[p.row * 8 + p.col]);
    }
    kops::cuda::detail::mma_tf32_m16n8k8(fd, fa, fb, fc);
  } else {
    // The operands are given as floats that 16-bit values represent exactly.
    const auto bits = [](float v) {
      if constexpr (K == kind::f16) return std::uint32_t(kops::detail::float_to_half_bits(v));
      else {
        std::uint32_t u;
        memcpy(&u, &v, 4);
        return u >> 16;
      }
    };
    for (int i = 0; i < 8; ++i) {
      const auto p = mma_layout::h16_a(lane, i);
      fa[i / 2] |= bits(a[p.row * depth + p.col]) << (16 * (i & 1));
    }
    for (int i = 0; i < 4; ++i) {
      const auto p = mma_layout::h16_b(lane, i);
      fb[i / 2] |= bits(b[p.row * 8 + p.col]) << (16 * (i & 1));
    }
    if constexpr (K == kind::f16) kops::cuda::detail::mma_f16_m16n8k16(fd, fa, fb, fc);
    else kops::cuda::detail::mma_bf16_m16n8k16(fd, fa, fb, fc);
  }
  for (int i = 0; i < 4; ++i) {
    const auto p = mma_layout::c(lane, i);
    D[w * 128 + p.row * 8 + p.col] = fd[i];
  }
}

// The element value each kind's operand rounding gives (TF32: cvt.rna, then
// the hardware reads the top 19 bits; 16-bit: the given values are exact).
float operand_value(kind k, float v) {
  if (k != kind::tf32) return v;
  const std::uint32_t u = kops::cuda::detail::to_tf32(v);
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

template <kind K>
void check_mma(int warps) {
  constexpr int depth = depth_of(K);
  auto a = kops_test::random_vector<float>(std::size_t(warps * 16 * depth), -2, 2, 11);
  auto b = kops_test::random_vector<float>(std::size_t(warps * depth * 8), -2, 2, 12);
  const auto c = kops_test::random_vector<float>(std::size_t(warps * 128), -1, 1, 13);
  if (K != kind::tf32)
    for (auto* v : {&a, &b})
      for (float& x : *v) x = from_16(K, to_16(K, x));  // values the 16-bit type holds
  kops_test::device_copy<float> da(a), db(b), dc(c), dd(std::size_t(warps * 128));
  const float *pa = da.p, *pb = db.p, *pc = dc.p;
  float* pd = dd.p;
  void* args[] = {&pa, &pb, &pc, &pd};
  REQUIRE(cudaLaunchKernel(mma_kernel<K>, dim3(1), dim3(unsigned(32 * warps)), args, 0, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto d = dd.to_host();
  for (int w = 0; w < warps; ++w)
    for (int r = 0; r < 16; ++r)
      for (int n = 0; n < 8; ++n) {
        double s = c[std::size_t(w * 128 + r * 8 + n)], mag = std::abs(s), exact = s;
        for (int k = 0; k < depth; ++k) {
          const float x = a[std::size_t(w * 16 * depth + r * depth + k)], y = b[std::size_t(w * depth * 8 + k * 8 + n)];
          s += double(operand_value(K, x)) * double(operand_value(K, y));
          exact += double(x) * double(y);
          mag += std::abs(double(x) * double(y));
        }
        const double got = d[std::size_t(w * 128 + r * 8 + n)];
        INFO("warp " << w << " D(" << r << ", " << n << ") = " << got << ", expected " << s);
        // the rounded operands' product, up to fp32 accumulation (any order)
        REQUIRE(std::abs(got - s) <= 1e-6 * mag);
        // and the unrounded one, up to the operands' rounding (TF32: 2^-11 relative
        // each; the 16-bit operands are given as values they hold exactly)
        REQUIRE(std::abs(got - exact) <= (K == kind::tf32 ? 2.5 * 0x1p-11 : 1e-6) * mag);
      }
}

// Each lane of a block of `threads`: v = 100 w + lane (w its warp); writes
// what the shuffles give, 6 values per thread.
__global__ void shuffle_kernel(int* out) {
  const int t = int(threadIdx.x), lane = t % 32;
  const int v = 100 * (t / 32) + lane;
  __syncwarp();
  int* o = out + 6 * t;
  o[0] = __shfl_sync(0xffffffffu, v, 5);
  o[1] = __shfl_sync(0xffffffffu, v, 3, 8);
  int s = v;  // butterfly sum over the warp
  for (int m = 16; m >= 1; m /= 2) s += __shfl_xor_sync(0xffffffffu, s, m);
  o[2] = s;
  o[3] = __shfl_up_sync(0xffffffffu, v, 1);
  o[4] = __shfl_down_sync(0xffffffffu, v, 3, 8);
  o[5] = __shfl_xor_sync(0xffffffffu, v, 1, 4);
}

// Lanes write, __syncwarp, then read their neighbour's write.
__global__ void syncwarp_kernel(int* out) {
  __shared__ int slot[64];
  const int t = int(threadIdx.x);
  slot[t] = 7 * t + 1;
  __syncwarp();
  out[t] = slot[(t / 32) * 32 + (t % 32 + 1) % 32];
}

using kops::cuda::detail::mma_arith;

template <mma_arith K, int D, class T>
__global__ void dot_tile_kernel(const T* a, const T* b, float* out) {
  float p[4] = {0, 0, 0, 0};
  kops::cuda::detail::mma_dot_tile<K, D>(a, D, b, D, p);
  const int lane = int(threadIdx.x) % 32;
  for (int i = 0; i < 4; ++i) {
    const auto at = mma_layout::c(lane, i);
    out[at.row * 8 + at.col] = p[i];
  }
}

// The largest error of the tile over sum_k |a_k b_k| (per element), checked
// against `bound` (a multiple of that sum).
template <mma_arith K, int D>
double dot_tile_error(double bound_per_product, double bound_per_coordinate) {
  constexpr bool h16 = K == mma_arith::f16 || K == mma_arith::bf16;
  const kind k16 = K == mma_arith::f16 ? kind::f16 : kind::bf16;
  auto a = kops_test::random_vector<float>(16 * D, -2, 2, 21);
  auto b = kops_test::random_vector<float>(8 * D, -2, 2, 22);
  if (h16)
    for (auto* v : {&a, &b})
      for (float& x : *v) x = from_16(k16, to_16(k16, x));
  kops_test::device_copy<float> out(128);
  float* po = out.p;
  if constexpr (h16) {
    std::vector<std::uint16_t> a16(a.size()), b16(b.size());
    for (std::size_t n = 0; n < a.size(); ++n) a16[n] = to_16(k16, a[n]);
    for (std::size_t n = 0; n < b.size(); ++n) b16[n] = to_16(k16, b[n]);
    kops_test::device_copy<std::uint16_t> da(a16), db(b16);
    const std::uint16_t *pa = da.p, *pb = db.p;
    void* args[] = {&pa, &pb, &po};
    REQUIRE(cudaLaunchKernel(dot_tile_kernel<K, D, std::uint16_t>, dim3(1), dim3(32), args, 0, nullptr) == cudaSuccess);
  } else {
    kops_test::device_copy<float> da(a), db(b);
    const float *pa = da.p, *pb = db.p;
    void* args[] = {&pa, &pb, &po};
    REQUIRE(cudaLaunchKernel(dot_tile_kernel<K, D, float>, dim3(1), dim3(32), args, 0, nullptr) == cudaSuccess);
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto p = out.to_host();
  double worst = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      double exact = 0, mag = 0;
      for (int k = 0; k < D; ++k) {
        exact += double(a[std::size_t(r * D + k)]) * double(b[std::size_t(c * D + k)]);
        mag += std::abs(double(a[std::size_t(r * D + k)]) * double(b[std::size_t(c * D + k)]));
      }
      const double err = std::abs(double(p[std::size_t(r * 8 + c)]) - exact) / mag;
      INFO("P(" << r << ", " << c << ") = " << p[std::size_t(r * 8 + c)] << ", exact " << exact << ", D " << D);
      REQUIRE(err <= bound_per_product + D * bound_per_coordinate);
      worst = std::max(worst, err);
    }
  return worst;
}

} // namespace

TEST_CASE("mma_dot_tile: a warp's 16 x 8 inner products within each arithmetic's bound", "[warp]") {
  // per product: TF32 2^-10 (two roundings of 2^-11), 3xTF32 2^-20, 16-bit exact;
  // per coordinate: fp32 accumulation, 2^-23 of the magnitude each
  constexpr double acc = 0x1p-23;
  SECTION("TF32 (precision::fast)") {
    dot_tile_error<mma_arith::tf32, 8>(0x1p-10, acc);
    dot_tile_error<mma_arith::tf32, 13>(0x1p-10, acc);
    dot_tile_error<mma_arith::tf32, 100>(0x1p-10, acc);
  }
  SECTION("3xTF32 (precision::accurate): some 1000 times closer than TF32 at D = 64") {
    const double e3 = dot_tile_error<mma_arith::tf32x3, 64>(0x1p-20, acc);
    const double e1 = dot_tile_error<mma_arith::tf32, 64>(0x1p-10, acc);
    INFO("worst relative error: TF32 " << e1 << ", 3xTF32 " << e3);
    REQUIRE(e3 * 100 < e1);
    dot_tile_error<mma_arith::tf32x3, 13>(0x1p-20, acc);
    dot_tile_error<mma_arith::tf32x3, 100>(0x1p-20, acc);
  }
  SECTION("fp16 and bf16 operands (16-bit storage)") {
    dot_tile_error<mma_arith::f16, 16>(0, acc);
    dot_tile_error<mma_arith::f16, 40>(0, acc);
    dot_tile_error<mma_arith::bf16, 64>(0, acc);
    dot_tile_error<mma_arith::bf16, 7>(0, acc);
  }
}

TEST_CASE("to_tf32 rounds to nearest, ties away from zero (cvt.rna.tf32.f32)", "[warp]") {
  const auto tf32 = [](float x) { return operand_value(kind::tf32, x); };
  REQUIRE(tf32(1.0f) == 1.0f);
  REQUIRE(tf32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f);     // a tie: away from zero
  REQUIRE(tf32(-1.0f - 0x1p-11f) == -1.0f - 0x1p-10f);
  REQUIRE(tf32(1.0f + 0x1p-12f) == 1.0f);                // below half an ulp
  REQUIRE(tf32(1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
  REQUIRE(std::isinf(tf32(INFINITY)));
  REQUIRE(std::isnan(tf32(NAN)));
}

TEST_CASE("mma_layout: every element of A, B and C is held by one (lane, register)", "[warp]") {
  std::set<std::pair<int, int>> a8, b8, a16, b16, c;
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 4; ++i) a8.insert({mma_layout::tf32_a(l, i).row, mma_layout::tf32_a(l, i).col});
    for (int i = 0; i < 2; ++i) b8.insert({mma_layout::tf32_b(l, i).row, mma_layout::tf32_b(l, i).col});
    for (int i = 0; i < 8; ++i) a16.insert({mma_layout::h16_a(l, i).row, mma_layout::h16_a(l, i).col});
    for (int i = 0; i < 4; ++i) b16.insert({mma_layout::h16_b(l, i).row, mma_layout::h16_b(l, i).col});
    for (int i = 0; i < 4; ++i) c.insert({mma_layout::c(l, i).row, mma_layout::c(l, i).col});
  }
  REQUIRE(a8.size() == 16 * 8);
  REQUIRE(b8.size() == 8 * 8);
  REQUIRE(a16.size() == 16 * 16);
  REQUIRE(b16.size() == 16 * 8);
  REQUIRE(c.size() == 16 * 8);
  REQUIRE((a8.rbegin()->first == 15 && b16.rbegin()->first == 15 && c.rbegin()->second == 7));
}

TEST_CASE("warp-level MMA: D = A B + C, the fragments in the ISA's layouts", "[warp]") {
  SECTION("m16n8k8 TF32") {
    check_mma<kind::tf32>(1);
    check_mma<kind::tf32>(2);
  }
  SECTION("m16n8k16 fp16") { check_mma<kind::f16>(2); }
  SECTION("m16n8k16 bf16") { check_mma<kind::bf16>(2); }
}

TEST_CASE("shuffles: every lane receives the value CUDA defines, full and partial warps", "[warp]") {
  // A last partial warp (48 threads: 32 + 16) only where it is defined: on a
  // GPU a full mask that names lanes the block does not have is undefined.
  for (const int threads : {32, 64, kops_test::emulated ? 48 : 64}) {
    INFO(threads << " threads");
    kops_test::device_copy<int> out(std::size_t(6 * threads));
    int* po = out.p;
    void* args[] = {&po};
    REQUIRE(cudaLaunchKernel(shuffle_kernel, dim3(1), dim3(unsigned(threads)), args, 0, nullptr) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto o = out.to_host();
    for (int t = 0; t < threads; ++t) {
      const int w = t / 32, lane = t % 32, lanes = std::min(32, threads - 32 * w);
      const auto v = [&](int l) { return 100 * w + l; };
      int sum = 0;
      for (int l = 0; l < lanes; ++l) sum += v(l);
      INFO("thread " << t);
      const int* r = &o[std::size_t(6 * t)];
      REQUIRE(r[0] == v(5));
      REQUIRE(r[1] == v(lane / 8 * 8 + 3));
      if (lanes == 32) REQUIRE(r[2] == sum);  // a partial warp's butterfly reads its own value past the end
      REQUIRE(r[3] == (lane >= 1 ? v(lane - 1) : v(lane)));
      REQUIRE(r[4] == (lane % 8 + 3 < 8 && lane + 3 < lanes ? v(lane + 3) : v(lane)));
      REQUIRE(r[5] == v(lane ^ 1));
    }
  }
}

TEST_CASE("__syncwarp orders a warp's shared-memory writes before its reads", "[warp]") {
  kops_test::device_copy<int> out(64);
  int* po = out.p;
  void* args[] = {&po};
  REQUIRE(cudaLaunchKernel(syncwarp_kernel, dim3(1), dim3(64), args, 0, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto o = out.to_host();
  for (int t = 0; t < 64; ++t) REQUIRE(o[std::size_t(t)] == 7 * ((t / 32) * 32 + (t % 32 + 1) % 32) + 1);
}
