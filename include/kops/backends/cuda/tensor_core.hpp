// The tensor-core kernel: a formula's inner products on the tensor cores
// (mma.sync), the rest of the formula per pair on the CUDA cores.
//
// Which calls (tc_choice, compile time; eval.hpp picks tc_traits<K> at run
// time on devices of compute capability 8.0 or more, kops::tensor_cores::automatic):
// the formula has one inner product <x, y> (or <x, w y>) of an i- and a
// j-variable at least KOPS_TC_MIN_DIM wide that its sums over coordinates
// reduce to (lowering/inner_products.hpp: dot, sqdist as |x|^2 + |y|^2 - 2<x, y>
// clamped at 0, the diagonal weighted_sqdist), and what is left (the "outer"
// formula, reading each sum as a placeholder) reads no variable that wide.
// Arithmetic (mma_tile.hpp's mma_arith): float arrays, precision::fast: TF32;
// float, precision::accurate: 3xTF32 and only when every sum is a dot product
// (the expansion of sqdist cancels for near points: its error bound, u (|x|^2 +
// |y|^2), is not the CUDA-core path's, so accurate sqdist stays there);
// kops::half / kops::bfloat16 arrays: fp16 / bf16 operands as stored (no
// weighted form: w y would be rounded to 16 bits); double: never.
//
// The kernel (reduce_block dispatches to tc_reduce_block for these traits, so
// GPU_1D, GPU_2D's pass 1, batched and offset launches are this one body; the
// combine pass is the CUDA-core one, on the same accumulators):
//
//   block: 8 warps, 128 output rows, 16 per warp (the MMA's M). Lane l of a warp
//   (g = l / 4, t = l % 4) owns rows g and g + 8 of the warp's 16 and, of the
//   reduced range [jb, je), the quarter t: [jb + t Q, jb + t Q + L_t), Q =
//   ceil(L / 4). The MMA's 8 columns are 2 indices of each quarter, so a
//   lane's accumulators see only its quarter, in order; at the end the four
//   lanes of a row combine theirs in quarter order -- the same associative
//   combine GPU_2D uses, earlier range first: argmin and k-min ties resolve
//   to the lowest index as on the CUDA cores.
//
//   for each step of S = 2 NT indices per quarter (a tile of TJ = 8 NT indices):
//     for each chunk of kc coordinates (one chunk, the whole D, when the rows'
//     fragments fit in registers: tc_traits::cache_rows):
//       __syncthreads; the block stages the chunk of the tile's operand rows
//       (y, or w y) in shared memory ([TJ][ldo], converted once: TF32 bits or
//       16-bit values; zero past D and past the quarter's end), and of its own
//       128 rows' when not cached; with the first chunk the outer formula's
//       narrow reduced-axis variables (and the weighted norms); __syncthreads
//       each warp: P[NT][16 x 8] += its 16 rows' fragments times the tile's,
//       one MMA (three for 3xTF32) per 8 (16) coordinates and 8 columns
//     the norms |y|^2 of the staged values, __syncthreads
//     each lane, for its 4 NT pairs: the sums from P and the norms, the outer
//     formula, accumulate.
//
// Rows past the end compute on the last row (every lane takes part in every
// MMA) and are not stored.
#pragma once

#include <cstdint>
#include <type_traits>

#include <kops/backends/cuda/block_reduce.hpp>
#include <kops/backends/cuda/chunk_loop.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/mma_tile.hpp>
#include <kops/backends/cuda/tile_context.hpp>
#include <kops/backends/cuda/tile_walk.hpp>
#include <kops/core/half.hpp>
#include <kops/core/tensor_cores.hpp>
#include <kops/lowering/inner_products.hpp>

namespace kops::cuda::detail {

// V elements of type E, aligned as one vector load or store.
template <class E, int V>
struct alignas(V * sizeof(E)) tc_vector {
  E v[V];
};

// The staged operand rows (shared memory) in fragment order. A k-step of an
// MMA reads 8 words of a row -- 8 TF32 coordinates, or 8 pairs of 16-bit ones
// -- and lane t of a quad words t and t + 4 (mma_layout's tf32 and h16 A and
// B fragments). A row keeps each k-step's words in the order 0 4 1 5 2 6 3 7,
// and for 3xTF32 its big and small parts interleaved (0 4 0' 4' 1 5 1' 5' ...),
// so that a lane's fragment of a row is one 64-bit shared load (128-bit with
// the small parts). Word w (of the chunk; part 1: the small part) of a row:
KOPS_HD constexpr int tc_slot(int w, int part, bool split) {
  const int x = w % 8, base = (w / 8) * (split ? 16 : 8);
  return base + (split ? 4 * (x % 4) + 2 * part + x / 4 : 2 * (x % 4) + x / 4);
}
// The row stride, in words, for `words` words of a chunk: 8 past a multiple of
// 16 (64-bit loads: each half-warp's 16 lanes, 4 rows g and t = 0..3, cover the
// 32 banks), 16 past a multiple of 32 for 3xTF32 (128-bit loads, in quarters
// of 8 lanes: 2 rows).
constexpr int tc_row_words(int words, bool split) {
  const int w = words * (split ? 2 : 1);
  return split ? (w % 32 == 0 ? w + 16 : w) : (w % 16 == 0 ? w + 8 : w);
}
// Whether a warp's fragment load from rows ldw words apart (lane l: row l / 4,
// words 2 (4) (l % 4) onwards) keeps each phase on distinct banks.
constexpr bool tc_conflict_free(int ldw, bool split) {
  const int width = split ? 4 : 2, lanes = split ? 8 : 16;
  for (int phase = 0; phase < 32 / lanes; ++phase) {
    unsigned used = 0;
    for (int l = phase * lanes; l < (phase + 1) * lanes; ++l)
      for (int b = 0; b < width; ++b) {
        const unsigned bank = 1u << ((l / 4 * ldw + width * (l % 4) + b) % 32);
        if (used & bank) return false;
        used |= bank;
      }
  }
  return true;
}

// Whether, and how, the tensor-core kernel takes the pass of K under precision P (file comment).
template <class K, precision P>
struct tc_choice {
  using Red = typename K::reduction;
  using T = typename K::value_type;
  using S = typename K::storage_type;
  using F = gpu_unchunked_formula_t<Red, T, P>;
  using plan = kops::detail::inner_product_plan<F>;
  static constexpr bool half_storage = std::is_same_v<S, kops::half>;
  static constexpr bool bf16_storage = std::is_same_v<S, kops::bfloat16>;
  static constexpr mma_arith arith = half_storage   ? mma_arith::f16
                                     : bf16_storage ? mma_arith::bf16
                                     : P == precision::fast ? mma_arith::tf32
                                                            : mma_arith::tf32x3;

  template <class... Term>
  static constexpr bool all_dot(type_list<Term...>) {
    return ((Term::kind == kops::detail::inner_kind::dot) && ...);
  }
  template <class... Term>
  static constexpr bool any_weighted(type_list<Term...>) {
    return ((Term::kind == kops::detail::inner_kind::weighted_sqdist) || ...);
  }
  template <class... Term>
  static constexpr bool any_distance(type_list<Term...>) {
    return ((Term::kind != kops::detail::inner_kind::dot) || ...);
  }
  // The smallest layout of tc_traits fits the 48 KiB of shared memory: 8
  // indices (their narrow variables and norms), one k-step (8 words) of their
  // operands and of the block's 128 rows'.
  template <int D>
  static constexpr bool fits() {
    constexpr std::size_t ld = std::size_t(tc_row_words(8, arith == mma_arith::tf32x3));
    using Sig = layout_signature_t<typename Red::signature, typename plan::outer>;
    constexpr int red_dims = kops::detail::row_dims<Sig, Red::red_cat>();
    return 8 * (std::size_t(red_dims) + 1) * sizeof(T) + (8 + 128) * ld * 4 <= K::max_shared_bytes;
  }
  static constexpr bool ok = [] {
    if constexpr (!std::is_same_v<T, float> || !(std::is_same_v<S, float> || half_storage || bf16_storage)) return false;
    else if constexpr (requires { Red::out_stride; }) return false;
    else if constexpr (K::final_chunks || !plan::ok) return false;
    else if constexpr (plan::products::size != 1 || plan::wide_rest) return false;
    else {
      using X = typename plan::products::template at<0>::x;
      using Y = typename plan::products::template at<0>::y;
      using Pol = typename K::arg_policy;
      // 16-bit operands are read as stored: the call's own arrays, not a two-pass temporary.
      if constexpr (kops::detail::computed_slot_v<Pol, S, X::index> || kops::detail::computed_slot_v<Pol, S, Y::index>)
        return false;
      else if constexpr ((half_storage || bf16_storage) && any_weighted(typename plan::terms{})) return false;
      else if constexpr (std::is_same_v<S, float> && P == precision::accurate && !all_dot(typename plan::terms{}))
        return false;
      // the four quarters' accumulators, two rows per thread of 256, exchanged through shared memory
      else if constexpr (512 * sizeof(typename K::acc_type) > K::max_shared_bytes) return false;
      else return fits<X::dim>();
    }
  }();
};

// The operand rows' element in shared memory: the TF32 bit pattern (rounded
// once, when the block stages the tile: tf32_parts) or the 16-bit bits.
template <mma_arith A>
using tc_operand_t = std::conditional_t<A == mma_arith::f16 || A == mma_arith::bf16, std::uint16_t, std::uint32_t>;

// K's traits for the tensor-core kernel (file comment): what the outer formula
// reads stays in K's layouts (registers, the narrow tile), the inner product's
// operands go through the MMA.
template <class K, precision P>
struct tc_traits : K {
  using choice = tc_choice<K, P>;
  static_assert(choice::ok, "kops: internal error, tensor-core traits for a pass the tensor cores do not take");
  using iplan = typename choice::plan;
  using product = typename iplan::products::template at<0>;
  using T = typename K::value_type;
  static constexpr bool tensor_core = true;
  static constexpr mma_arith arith = choice::arith;
  static constexpr bool split = arith == mma_arith::tf32x3;
  // The row-axis operand (A) and the reduced-axis one (B), and the weight.
  using row_var = std::conditional_t<K::row_cat == category::i, typename product::x, typename product::y>;
  using red_var = std::conditional_t<K::row_cat == category::i, typename product::y, typename product::x>;
  using weight = typename product::weight;
  static constexpr bool weighted = !std::is_void_v<weight>;
  static constexpr bool norms = choice::any_distance(typename iplan::terms{});
  static constexpr int dim = product::dim;
  static constexpr int kstep = mma_step(arith);
  static constexpr int ksteps = (dim + kstep - 1) / kstep;
  static constexpr int dpad = ksteps * kstep;

  using formula = typename iplan::outer;
  using signature = layout_signature_t<typename K::reduction::signature, formula>;
  static constexpr int row_dims = kops::detail::row_dims<signature, K::row_cat>();
  static constexpr int red_dims = kops::detail::row_dims<signature, K::red_cat>();
  static constexpr int param_dims = kops::detail::row_dims<signature, category::param>();
  static constexpr bool chunked = false, staged = false, final_chunks = false, stage_red = false;
  static constexpr int rows_per_thread = 1;

  static constexpr int warps = 8;
  static constexpr int block = 32 * warps;
  static constexpr int block_rows = 16 * warps;
  using operand = tc_operand_t<arith>;
  static constexpr int parts = split ? 2 : 1;  // 3xTF32's small parts sit beside the big ones in a row (tc_slot)
  // The row operands' fragments stay in registers for the whole walk when they
  // take at most 64 of them (D <= 128 in TF32, 64 in 3xTF32, 256 in 16 bits);
  // then each step stages the whole (padded) D of its indices. Wider rows are
  // walked in chunks of kc coordinates (16 to 64: what fits 48 KiB): per chunk
  // the block stages its 128 rows' operands and its indices' in shared memory
  // (converted once), and the warps read both fragments from there.
  static constexpr bool cache_rows = ksteps * 4 * parts <= 64;
  // A staged row of kc coordinates, in 32-bit words (tc_row_words), and the
  // place of coordinate c in it (tc_slot): the fragment order.
  static constexpr int per_word = 4 / int(sizeof(operand));
  static constexpr int row_words(int kc) { return tc_row_words(kc / per_word, split); }
  static constexpr std::size_t layout_bytes(int nt, int kc) {
    const std::size_t tj = std::size_t(8 * nt), rows = tj + (cache_rows ? 0 : block_rows);
    return tj * (std::size_t(red_dims) + 1) * sizeof(T) + rows * std::size_t(row_words(kc)) * 4;
  }
  static constexpr int smallest_kc = cache_rows ? dpad : kstep;
  // MMA columns per step: 8 NT, NT the largest of 8, 4, 2, 1 whose layout fits.
  static constexpr int nt = layout_bytes(8, smallest_kc) <= K::max_shared_bytes   ? 8
                            : layout_bytes(4, smallest_kc) <= K::max_shared_bytes ? 4
                            : layout_bytes(2, smallest_kc) <= K::max_shared_bytes ? 2
                                                                                  : 1;
  // Coordinates per chunk: the whole D, or the largest of 64, 32, 16, 8 (a
  // multiple of the k-step) whose layout fits.
  static constexpr int chunk_coords() {
    int best = kstep;
    for (int c = 2 * kstep; c <= 64; c *= 2)
      if (c <= dpad && layout_bytes(nt, c) <= K::max_shared_bytes) best = c;
    return best;
  }
  static constexpr int kc = cache_rows ? dpad : chunk_coords();
  static constexpr int chunks = (dpad + kc - 1) / kc;
  static constexpr int ldw = row_words(kc);        // the staged rows' stride, in words
  static constexpr int ldo = ldw * per_word;        // the same, in operands
  static_assert(tc_conflict_free(ldw, split), "kops: internal error, a staged row stride with bank conflicts");
  // Operand element of coordinate c (of the chunk) in a staged row; part 1:
  // 3xTF32's small part.
  KOPS_HD static constexpr int slot(int c, int part) { return tc_slot(c / per_word, part, split) * per_word + c % per_word; }
  static_assert(layout_bytes(nt, kc) <= K::max_shared_bytes, "kops: internal error, tc_choice admitted a tile that does not fit");
  static constexpr int tile = 8 * nt;
  static_assert(tile <= block, "kops: internal error, a tile row per thread (the norms)");
  static constexpr int quarter_step = 2 * nt;  // indices of a quarter per step
  // The norms of the reduced axis from the staged tile (the operands' own
  // values: rounded to TF32 as the products see them), or, for a weighted
  // form, from the arguments in fp32.
  static constexpr bool staged_norms = norms && !weighted;
  // The reduction's op can test a term before it accumulates it (Op::may_enter:
  // the k smallest, reductions/detail/ksmallest.hpp), on a formula of dimension
  // 1: a step tests its 4 NT pairs, then inserts those that pass one by one,
  // out of the unrolled pair loop (tc_reduce). The insertion (K compare-and-
  // select steps, ~100 instructions at K = 8) is compiled 4 times (2 row halves,
  // checked and unchecked steps), not once per pair of each step kind (2 x 32);
  // a warp runs it as often as its busiest lane needs (2 NT <= 16 bits a row).
  static constexpr bool deferred = formula::dim == 1 && requires(typename K::acc_type& a, vec<T, 1> v) {
    K::op::template may_enter<typename K::math>(a, v);
  };
  static constexpr std::size_t exchange_bytes = std::size_t(block) * 2 * sizeof(typename K::acc_type);
  static constexpr std::size_t shared_bytes =
      layout_bytes(nt, kc) > exchange_bytes ? layout_bytes(nt, kc) : exchange_bytes;
};

// Element e of argument I as an MMA reads it: its float value (to be rounded
// to TF32), or its 16-bit bits.
template <class K, int I>
__device__ KOPS_INLINE auto tc_element(const typename K::args_type& a, std::int64_t e) {
  if constexpr (sizeof(typename K::operand) == 2) return std::uint16_t(a.p[I][e].x);  // kops::half / bfloat16: the bits
  else return float(kops::detail::load_arg<typename K::arg_policy, I>(a.p[I], e));
}

// The value of a staged operand element.
template <class K>
KOPS_HD KOPS_INLINE float tc_value(typename K::operand v) {
  if constexpr (K::arith == mma_arith::f16) {
#if defined(__CUDA_ARCH__)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
    return f;
#else
    return kops::detail::half_bits_to_float(v);
#endif
  }
  else if constexpr (K::arith == mma_arith::bf16) return float_of_bits(std::uint32_t(v) << 16);
  else return float_of_bits(v);
}

// w_k, the weight of coordinate k (1 without one).
template <class K>
__device__ KOPS_INLINE float tc_weight(const typename K::args_type& a, int k) {
  if constexpr (K::weighted) return kops::detail::load_arg<typename K::arg_policy, K::weight::index>(a.p[K::weight::index], k);
  else return 1.0f;
}

// sum_k w_k v_k^2 over the D coordinates of row r of argument I; without a
// weight, of the values the MMA multiplies (TF32-rounded, or 16-bit as stored),
// so that a point's distance to itself cancels to the accumulation's rounding.
template <class K, int I>
__device__ KOPS_INLINE float tc_norm(const typename K::args_type& a, std::int64_t r) {
  float s = 0;
  for (int k = 0; k < K::dim; ++k) {
    if constexpr (K::weighted) {
      const float v = kops::detail::load_arg<typename K::arg_policy, I>(a.p[I], r * K::dim + k);
      s += tc_weight<K>(a, k) * v * v;
    } else {
      const typename K::operand e = [&] {
        if constexpr (sizeof(typename K::operand) == 2) return tc_element<K, I>(a, r * K::dim + k);
        else return to_tf32(tc_element<K, I>(a, r * K::dim + k));
      }();
      const float v = tc_value<K>(e);
      s += v * v;
    }
  }
  return s;
}

// A fragments of step s for rows rbase.. (clamped to rows - 1): the MMA's A.
template <class K>
__device__ KOPS_INLINE void tc_row_fragment(const typename K::args_type& a, std::int64_t rbase, std::int64_t rows,
                                            int s, std::uint32_t (&big)[4], std::uint32_t (&small)[4]) {
  constexpr int I = K::row_var::index, D = K::dim;
  const int lane = int(threadIdx.x) % 32;
  const int k0 = s * K::kstep;
  if constexpr (K::arith == mma_arith::tf32 || K::arith == mma_arith::tf32x3) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const auto at = mma_layout::tf32_a(lane, i);
      const std::int64_t r = rbase + at.row < rows ? rbase + at.row : rows - 1;
      const int k = k0 + at.col;
      const float v = k < D ? float(tc_element<K, I>(a, r * D + k)) : 0.0f;
      tf32_parts<K::split>(v, big[i], small[i]);
    }
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) big[q] = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const auto at = mma_layout::h16_a(lane, i);
      const std::int64_t r = rbase + at.row < rows ? rbase + at.row : rows - 1;
      const int k = k0 + at.col;
      const std::uint32_t v = k < D ? std::uint32_t(tc_element<K, I>(a, r * D + k)) : 0u;
      big[i / 2] |= v << (16 * (i & 1));
    }
  }
}

// A lane's words t and t + 4 of k-step s of a staged row (tc_slot), with, for
// 3xTF32, their small parts: one shared load.
template <class K>
__device__ KOPS_INLINE tc_vector<std::uint32_t, 2 * K::parts> tc_fragment_words(const typename K::operand* row, int s) {
  const int t = int(threadIdx.x) % 4;
  const auto* w = reinterpret_cast<const std::uint32_t*>(row) + s * 8 * K::parts + 2 * K::parts * t;
  return *reinterpret_cast<const tc_vector<std::uint32_t, 2 * K::parts>*>(w);
}

// The A fragments of local k-step s of the staged chunk of the block's rows
// (rows: [block_rows][ldo]), the warp's 16 rows: A(g, t), A(g + 8, t), A(g, t +
// 4), A(g + 8, t + 4) in words (mma_layout's tf32_a, and h16_a's pairs).
template <class K>
__device__ KOPS_INLINE void tc_row_fragment_staged(const typename K::operand* rows, int s, std::uint32_t (&big)[4],
                                                   std::uint32_t (&small)[4]) {
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32, g = lane / 4;
  const typename K::operand* r = rows + (warp * 16 + g) * K::ldo;
  const auto lo = tc_fragment_words<K>(r, s), hi = tc_fragment_words<K>(r + 8 * K::ldo, s);
  big[0] = lo.v[0], big[1] = hi.v[0], big[2] = lo.v[1], big[3] = hi.v[1];
  if constexpr (K::split) small[0] = lo.v[2], small[1] = hi.v[2], small[2] = lo.v[3], small[3] = hi.v[3];
}

// P[n] += A (the step's fragments) times the tile's columns 8n .. 8n + 7, step s.
// (ops: the staged tile, TF32 bits or 16-bit pairs in fragment order.) A
// lane's B fragment, B(k, n) = tile row n, column k, is one shared load
// (tc_fragment_words): words t and t + 4 of the k-step (mma_layout's tf32_b,
// h16_b's pairs), and for 3xTF32 their small parts.
template <class K>
__device__ KOPS_INLINE void tc_multiply(float (&p)[K::nt][4], const std::uint32_t (&big)[4],
                                        const std::uint32_t (&small)[4], const typename K::operand* ops, int s) {
  const int g = (int(threadIdx.x) % 32) / 4;
#pragma unroll
  for (int n = 0; n < K::nt; ++n) {
    const auto w = tc_fragment_words<K>(ops + (n * 8 + g) * K::ldo, s);
    const std::uint32_t fb[2] = {w.v[0], w.v[1]};
    if constexpr (K::arith == mma_arith::tf32 || K::arith == mma_arith::tf32x3) {
      if constexpr (K::split) {
        const std::uint32_t sb[2] = {w.v[2], w.v[3]};
        mma_tf32_m16n8k8(p[n], big, sb, p[n]);  // the small products first
        mma_tf32_m16n8k8(p[n], small, fb, p[n]);
      }
      mma_tf32_m16n8k8(p[n], big, fb, p[n]);
    } else if constexpr (K::arith == mma_arith::f16) {
      mma_f16_m16n8k16(p[n], big, fb, p[n]);
    } else {
      mma_bf16_m16n8k16(p[n], big, fb, p[n]);
    }
  }
}

// Where tile row rr (MMA column rr % 8 of n-tile rr / 8) comes from at step st:
// quarter (rr % 8) / 2, position st * S + 2 (rr / 8) + rr % 2 in it.
template <class K>
KOPS_HD KOPS_INLINE std::int64_t tc_position(int rr, std::int64_t st) {
  return st * K::quarter_step + 2 * (rr / 8) + (rr & 1);
}

// The length of quarter u of a range of `length` indices in quarters of q.
KOPS_HD KOPS_INLINE std::int64_t tc_quarter_length(std::int64_t length, std::int64_t q, int u) {
  const std::int64_t rest = length - u * q;
  return rest < 0 ? 0 : rest < q ? rest : q;
}

// The block copies columns [k0, k0 + kc) of `count` operand rows of argument I
// into dst (row stride ldo, in fragment order: tc_slot), converted as the MMA
// reads them (TF32 bits, rounded once here, with 3xTF32's small parts, or the
// 16-bit values), zero past D and for the rows `source` marks absent. source(r) gives
// the argument row of dst row r, or -1. Weighted: the operand is w_k v_k.
template <class K, int I, bool Weighted, int Count, class Source>
__device__ KOPS_INLINE void tc_copy(typename K::operand* dst, const typename K::args_type& a, int k0, Source source) {
  using O = typename K::operand;
  using S = typename K::storage_type;
  constexpr int D = K::dim;
  // An element of the walk is one k-step of one row: E coordinates, 8 words,
  // read with vector loads of V coordinates (16 or 8 bytes) when D allows, and
  // written, reordered in registers, with 16-byte stores.
  constexpr int E = 8 * K::per_word, V16 = 16 / int(sizeof(S));
  constexpr int V = D % V16 == 0 ? V16 : D % (V16 / 2) == 0 ? V16 / 2 : 1;
  constexpr int per_row = K::kc / E, total = Count * per_row;
  const auto one = [&](int e, auto vector) {
    const int r = e / per_row, s = e - r * per_row, k = k0 + s * E;
    const std::int64_t row = source(r), at = row * D + k;
    // The k-step's coordinates: 16-bit bits as stored, or floats.
    using X = std::conditional_t<sizeof(O) == 2, O, float>;
    X x[E];
#pragma unroll
    for (int u = 0; u < E; u += V) {
      tc_vector<X, V> v{};
      if (row >= 0 && k + u < D) {  // (D a multiple of V: the whole vector or none of it)
        if constexpr (decltype(vector)::value && V > 1) {
          v = *reinterpret_cast<const tc_vector<X, V>*>(a.p[I] + at + u);
        } else {
#pragma unroll
          for (int m = 0; m < V; ++m) v.v[m] = tc_element<K, I>(a, at + u + m);
        }
        if constexpr (Weighted)
#pragma unroll
          for (int m = 0; m < V; ++m) v.v[m] *= tc_weight<K>(a, k + u + m);
      }
#pragma unroll
      for (int m = 0; m < V; ++m) x[u + m] = v.v[m];
    }
    // The k-step's 8 words (and 3xTF32's small parts), in the order tc_slot gives.
    std::uint32_t w[8];
    [[maybe_unused]] std::uint32_t sm[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      if constexpr (sizeof(O) == 2) w[q] = std::uint32_t(x[2 * q]) | std::uint32_t(x[2 * q + 1]) << 16;
      else tf32_parts<K::split>(x[q], w[q], sm[q]);
    }
    auto* out = reinterpret_cast<tc_vector<std::uint32_t, 4>*>(dst + r * K::ldo) + s * 2 * K::parts;
    if constexpr (K::split) {
#pragma unroll
      for (int q = 0; q < 4; ++q) out[q] = {{w[q], w[q + 4], sm[q], sm[q + 4]}};
    } else {
      out[0] = {{w[0], w[4], w[1], w[5]}};
      out[1] = {{w[2], w[6], w[3], w[7]}};
    }
  };
  // The walk unrolled (its trip count is a compile-time constant, most often
  // a whole number of passes of the block); an argument not aligned for the
  // vector loads takes a plain loop of scalar loads instead.
  if (V == 1 || reinterpret_cast<std::uintptr_t>(a.p[I]) % (V * sizeof(S)) == 0) {
#pragma unroll
    for (int it = 0; it < (total + K::block - 1) / K::block; ++it) {
      const int e = int(threadIdx.x) + it * K::block;
      if (total % K::block == 0 || e < total) one(e, std::true_type{});
    }
  } else {
#pragma unroll 1
    for (int e = int(threadIdx.x); e < total; e += K::block) one(e, std::false_type{});
  }
}

// The reduced axis's side of step st (file comment): which argument row a tile
// row holds, its narrow variables, its norms.
template <class K, class Sig = typename K::signature> struct tc_stage;
template <class K, class... Slots>
struct tc_stage<K, type_list<Slots...>> {
  using T = typename K::value_type;
  using O = typename K::operand;

  // The index of tile row rr at step st, or -1 past its quarter's end.
  KOPS_HD KOPS_INLINE static std::int64_t index(int rr, std::int64_t jb, std::int64_t length, std::int64_t q,
                                                std::int64_t st) {
    const int quarter = (rr & 7) / 2;
    const std::int64_t pos = tc_position<K>(rr, st);
    return pos < tc_quarter_length(length, q, quarter) ? jb + quarter * q + pos : -1;
  }

  // The tile's operand columns [k0, k0 + kc).
  __device__ KOPS_INLINE static void operands(O* ops, const typename K::args_type& a, std::int64_t jb,
                                              std::int64_t length, std::int64_t q, std::int64_t st, int k0) {
    tc_copy<K, K::red_var::index, K::weighted, K::tile>(ops, a, k0,
                                                        [&](int rr) { return index(rr, jb, length, q, st); });
  }

  // The tile's narrow variables, and the norms when they come from the arguments.
  __device__ KOPS_INLINE static void rest(T* narrow, T* ynorm, const typename K::args_type& a, std::int64_t jb,
                                          std::int64_t length, std::int64_t q, std::int64_t st) {
    if (const int rr = int(threadIdx.x); rr < K::tile) {  // (tile <= block)
      const std::int64_t i = index(rr, jb, length, q, st);
      const std::int64_t j = i >= 0 ? i : jb;  // a row past its quarter's end reads jb: never used
      if constexpr (K::norms && !K::staged_norms) ynorm[rr] = tc_norm<K, K::red_var::index>(a, j);
      (one<Slots>(narrow, a, rr, j), ...);
    }
  }

  // sum_k v_k^2 over the staged columns of tile row rr (K::staged_norms).
  __device__ KOPS_INLINE static float norm_part(const O* ops, int rr) {
    float s = 0;
#pragma unroll 8
    for (int k = 0; k < K::kc; ++k) {
      const float v = tc_value<K>(ops[rr * K::ldo + K::slot(k, 0)]);
      s += v * v;
    }
    return s;
  }

private:
  template <class Slot>
  __device__ KOPS_INLINE static void one(T* narrow, const typename K::args_type& a, int rr, std::int64_t j) {
    if constexpr (!kops::detail::is_unused_slot_v<Slot>) {
      if constexpr (Slot::cat == K::red_cat) {
        constexpr int D = Slot::dim;
        constexpr int off = kops::detail::row_offset<type_list<Slots...>, K::red_cat, Slot::index>();
#pragma unroll
        for (int k = 0; k < D; ++k)
          narrow[rr * K::red_dims + off + k] =
              kops::detail::load_arg<typename K::arg_policy, Slot::index>(a.p[Slot::index], j * D + k);
      }
    }
  }
};

// The value of sum s (a term of the plan) from the inner product p and the
// norms. A distance is clamped at 0 (the expansion may cancel below it) unless
// it is weighted and some weight is negative (`clamp` false: it may then be
// negative, as on the CUDA cores).
template <class Term>
KOPS_HD KOPS_INLINE float tc_term(float p, float nx, float ny, bool clamp) {
  if constexpr (Term::kind == kops::detail::inner_kind::dot) {
    return p;
  } else {
    const float d = fmaf(-2.0f, p, nx + ny);  // exactly 0 for a point and itself (nx = ny = p)
    if constexpr (Term::kind == kops::detail::inner_kind::sqdist) return d > 0.0f ? d : 0.0f;
    else return clamp && d < 0.0f ? 0.0f : d;
  }
}

template <class K, class Store>
__device__ KOPS_INLINE void tc_reduce(const typename K::args_type& a, const std::int64_t rows, const std::int64_t jb,
                                      const std::int64_t je, Store&& store) {
  using T = typename K::value_type;
  using Math = typename K::math;
  using Op = typename K::op;
  using Acc = typename K::acc_type;
  using Terms = typename K::iplan::terms;
  constexpr int NS = Terms::size;
  using Part = vec<T, 1>[NS];
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32, g = lane / 4, t = lane % 4;
  const std::int64_t rbase = std::int64_t(blockIdx.x) * K::block_rows + warp * 16;
  const std::int64_t row[2] = {rbase + g, rbase + g + 8};

  // The quarters of [jb, je) (file comment); this lane's is quarter t.
  const std::int64_t length = je > jb ? je - jb : 0;
  const std::int64_t q = (length + 3) / 4;
  const std::int64_t mine = tc_quarter_length(length, q, t);

  tile_context<K> ctx[2];
  float nx[2] = {0, 0};
  Acc acc[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int64_t r = row[h] < rows ? row[h] : rows - 1;
    load_row<K>(ctx[h], a, r, true);
    if constexpr (K::norms) nx[h] = tc_norm<K, K::row_var::index>(a, r);
    acc[h] = range_init<K>(jb + t * q, jb + t * q + mine);
  }
  // Weighted distances are clamped at 0 only when no weight is negative (tc_term).
  bool clamp = true;
  if constexpr (K::weighted)
    for (int k = 0; k < K::dim; ++k) clamp = clamp && !(tc_weight<K>(a, k) < 0.0f);
  std::uint32_t big[K::cache_rows ? K::ksteps : 1][4], small[K::cache_rows && K::split ? K::ksteps : 1][4];
  if constexpr (K::cache_rows) {
#pragma unroll
    for (int s = 0; s < K::ksteps; ++s) tc_row_fragment<K>(a, rbase, rows, s, big[s], small[K::split ? s : 0]);
  }

  unsigned char* shared = shared_tile<unsigned char>();
  T* narrow = reinterpret_cast<T*>(shared);
  T* ynorm = narrow + K::tile * K::red_dims;
  auto* ops = reinterpret_cast<typename K::operand*>(ynorm + K::tile);
  [[maybe_unused]] auto* rows_staged = ops + K::tile * K::ldo;  // !K::cache_rows: the block's rows
  int unflushed = 0;  // steps since the last flush (tile_walk.hpp: flush_schedule)
  // One step of the walk (file comment). Checked: some of the lane's pairs may
  // be past its quarter's end (the last steps); the steps before, where every
  // quarter is full (quarter 3, the shortest, has S more indices), skip the test.
  auto step = [&](const std::int64_t st, auto checked) {
    float p[K::nt][4];
#pragma unroll
    for (int n = 0; n < K::nt; ++n)
#pragma unroll
      for (int i = 0; i < 4; ++i) p[n][i] = 0.0f;
    [[maybe_unused]] float mine_norm = 0;  // of tile row threadIdx.x (< tile), over the chunks
    constexpr int kspc = K::kc / K::kstep;  // k-steps per chunk
    // Chunk c: staged, then multiplied (the first chunk also stages the rest).
    const auto chunk = [&](const int c, auto first) {
      __syncthreads();  // every warp is done with the previous chunk (or step)
      tc_stage<K>::operands(ops, a, jb, length, q, st, c * K::kc);
      if constexpr (!K::cache_rows)
        tc_copy<K, K::row_var::index, false, K::block_rows>(rows_staged, a, c * K::kc, [&](int r) {
          const std::int64_t b = std::int64_t(blockIdx.x) * K::block_rows + r;
          return b < rows ? b : rows - 1;
        });
      if constexpr (decltype(first)::value) tc_stage<K>::rest(narrow, ynorm, a, jb, length, q, st);
      __syncthreads();
      if constexpr (K::staged_norms)
        if (int(threadIdx.x) < K::tile) mine_norm += tc_stage<K>::norm_part(ops, int(threadIdx.x));
#pragma unroll
      for (int s = 0; s < kspc; ++s) {
        if constexpr (K::cache_rows) {
          tc_multiply<K>(p, big[s], small[K::split ? s : 0], ops, s);
        } else {
          std::uint32_t b1[4], s1[4];
          tc_row_fragment_staged<K>(rows_staged, s, b1, s1);
          tc_multiply<K>(p, b1, s1, ops, s);
        }
      }
    };
    chunk(0, std::true_type{});
#pragma unroll 1
    for (int c = 1; c < K::chunks; ++c) chunk(c, std::false_type{});
    if constexpr (K::staged_norms) {
      if (int(threadIdx.x) < K::tile) ynorm[threadIdx.x] = mine_norm;
      __syncthreads();  // the norms are in shared memory
    }
    // The lane's pairs of this step that are in its quarter: the first `avail` of its S.
    int avail = K::quarter_step;
    if constexpr (decltype(checked)::value) {
      const std::int64_t left = mine - st * K::quarter_step;
      avail = left < K::quarter_step ? int(left) : K::quarter_step;
    }
    const std::int64_t j0 = jb + t * q + st * K::quarter_step;
    // The formula at the lane's pair (n, i) of the step.
    const auto value = [&](const int n, const int i) KOPS_INLINE_LAMBDA {
      const int h = i / 2, rr = n * 8 + 2 * t + (i & 1);
      Part part;
      [&]<int... S>(std::integer_sequence<int, S...>) {
        ((part[S][0] = tc_term<typename Terms::template at<S>>(p[n][i], nx[h], ynorm[rr], clamp)), ...);
      }(std::make_integer_sequence<int, NS>{});
      if constexpr (K::red_dims > 0) ctx[h].red = narrow + rr * K::red_dims;
      const parts_context<K, Part, K::iplan::slot0> c{ctx[h], part};  // the sums as Slot<slot0 + s>
      return K::formula::eval(c);
    };
    if constexpr (K::deferred) {
      // The k smallest (tc_traits::deferred): the step's values and which ones
      // the k-min may take (Op::may_enter, against the accumulators before the
      // step: a superset), then the insertions, out of the unrolled loop, in
      // index order per row (ties keep index order, as accumulating pair by
      // pair does).
      T vals[2][2 * K::nt];
      unsigned enter[2] = {0u, 0u};
#pragma unroll
      for (int n = 0; n < K::nt; ++n) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int h = i / 2, pos = 2 * n + (i & 1);
          const auto v = value(n, i);
          vals[h][pos] = v[0];
          if ((!decltype(checked)::value || pos < avail) && Op::template may_enter<Math>(acc[h], v))
            enter[h] |= 1u << pos;
        }
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        for (unsigned m = enter[h]; m != 0u; m &= m - 1u) {
          const int pos = __ffs(int(m)) - 1;
          vec<T, 1> x;
          x[0] = vals[h][0];
#pragma unroll
          for (int k = 1; k < 2 * K::nt; ++k) x[0] = pos == k ? vals[h][k] : x[0];
          Op::template accumulate<Math>(acc[h], x, Math::template index<T>(j0 + pos));
        }
      }
    } else {
#pragma unroll
      for (int n = 0; n < K::nt; ++n) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int h = i / 2, pos = 2 * n + (i & 1);  // pos: tc_position<K>(rr, st) - st * S
          if (!decltype(checked)::value || pos < avail)
            Op::template accumulate<Math>(acc[h], value(n, i), Math::template index<T>(j0 + pos));
        }
      }
    }
    using FS = flush_schedule<Op, K::quarter_step>;  // block sums' flushes (tile_walk.hpp)
    if constexpr (FS::steps > 0) {
      if (++unflushed == FS::steps) {
        unflushed = 0;
        Op::template flush<Math>(acc[0]);
        Op::template flush<Math>(acc[1]);
      }
    }
  };
  const std::int64_t steps = (q + K::quarter_step - 1) / K::quarter_step;
  const std::int64_t full = tc_quarter_length(length, q, 3) / K::quarter_step;
  for (std::int64_t st = 0; st < full; ++st) step(st, std::false_type{});
  for (std::int64_t st = full; st < steps; ++st) step(st, std::true_type{});

  // The four quarters of each row, combined in order by the lane of quarter 0.
  __syncthreads();
  Acc* exchange = reinterpret_cast<Acc*>(shared);
  exchange[2 * int(threadIdx.x)] = acc[0];
  exchange[2 * int(threadIdx.x) + 1] = acc[1];
  __syncthreads();
  if (t == 0) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      Acc total = acc[h];
      for (int u = 1; u < 4; ++u)
        if (tc_quarter_length(length, q, u) > 0) Op::template combine<Math>(total, exchange[2 * (int(threadIdx.x) + u) + h]);
      if (row[h] < rows) store(total, row[h]);
    }
  }
}

} // namespace kops::cuda::detail
