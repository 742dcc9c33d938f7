// Compile-time facts shared by the GPU kernels of one (reduction, element type,
// precision policy, summation scheme, accumulator type): the formula evaluated and its math provider, dims of the
// three per-category register/shared-memory layouts, block and tile sizes,
// accumulator and output types.
//
// Layouts (components in signature order, see detail/arguments.hpp):
//   row variables   (row_dims)             registers of the thread owning the row
//   parameters      (param_dims)           registers of every thread
//   reduced tile    (tile, red_dims)       dynamic shared memory, row-major:
//                                          tile[jj * red_dims + offset_I + k] = arg_I[j0 + jj, k]
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <kops/backends/cuda/fast_math.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/policy.hpp>
#include <kops/core/dtype_acc.hpp>
#include <kops/core/precision.hpp>
#include <kops/core/sum_scheme.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/core/variable.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/detail/storage.hpp>
#include <kops/lowering/plan.hpp>
#include <kops/reductions/detail/scheme_sum.hpp>

namespace kops::cuda::detail {

// The argument pointers, passed to kernels by value (kernel parameter space).
template <class T, int N>
struct arg_pointers {
  const T* p[N > 0 ? N : 1];
};

// Where batch b of a batched call (core/batch.hpp) is: argument k at
// p[k] + b * arg[k] (0: shared), the output at out + b * out, GPU_2D's
// partial accumulators at scratch + b * scratch; `count` batches.
template <int N>
struct batch_strides {
  std::int64_t arg[N > 0 ? N : 1];
  std::int64_t count, out, scratch;
};

template <precision P>
using math_for = std::conditional_t<P == precision::fast, fast_math, scalar_math>;

// What is evaluated (lowering/plan.hpp's evaluation plan on gpu_target): the
// reduction's formula with repeated sub-formulas factorized (core/factorize.hpp),
// as on the CPU; under the fast policy in float, with exp(a) rewritten as
// exp2(a log2 e) (lowering/lower.hpp: log2 e joins a's invariant factors),
// which fast_math maps to the ex2.approx instruction that __expf also ends in.
// Double has no fast exponential: its fast policy evaluates the same formula
// as the accurate one (gpu_target::fast_exp).
// Sums over at least gpu_chunk_min_dim (KOPS_GPU_CHUNK_MIN_DIM, 128) coordinates
// are evaluated gpu_chunk (16) components at a time (lowering/chunk.hpp), their variables read
// chunk by chunk instead of held in registers or the tile: staged over a tile
// of pairs (chunk_loop.hpp) when the formula has the staged form, else from
// global memory for each pair (tile_context::load_range).
inline constexpr int gpu_chunk_min_dim = KOPS_GPU_CHUNK_MIN_DIM;
inline constexpr int gpu_chunk = 16;  // components per chunk (chunk_loop.hpp's CH)
// Output components per final chunk: 32 in float, 16 in double (the chunk's
// accumulator, the row's chunk and the tile's parts stay in registers).
template <class T> inline constexpr int final_chunk_width = sizeof(T) > 4 ? 16 : 32;

// The GPU backend as lowering/plan.hpp's evaluation plan sees it. Final
// chunks (final_chunks.hpp): a sum of a formula at least
// KOPS_GPU_OUTPUT_CHUNK_MIN_DIM wide, accumulated in the data's type (block or
// direct sums), on T arrays: the output row (or GPU_2D's partial row) is the
// accumulator, the formula evaluated a tile of pairs and final_chunk_width<T>
// output components at a time.
struct gpu_target {
  static constexpr bool exp_scaled = false;
  template <class T> static constexpr bool fast_exp = std::is_same_v<T, float>;
  static constexpr int chunk_min_dim = gpu_chunk_min_dim;
  static constexpr int chunk = gpu_chunk;
  static constexpr int output_chunk_min_dim = KOPS_GPU_OUTPUT_CHUNK_MIN_DIM;
  template <class T> static constexpr int output_chunk = final_chunk_width<T>;
  static constexpr bool final_keeps_accumulator = false;
};
// The formula before chunking (the tensor-core kernel's, tensor_core.hpp).
template <class Red, class T, precision P>
using gpu_unchunked_formula_t = kops::detail::unchunked_formula_t<Red, gpu_target, T, P>;

// The slots of a signature as the register and tile layouts see them: a
// variable F reads only chunk by chunk (lowering/chunk.hpp) takes no room there.
template <class Sig, class F> struct layout_signature;
template <class... S, class F> struct layout_signature<type_list<S...>, F> {
  template <class Slot> static auto one() {
    if constexpr (kops::detail::is_unused_slot_v<Slot>) return std::type_identity<Slot>{};
    else if constexpr (kops::detail::reads_whole<F, Slot::index>::value) return std::type_identity<Slot>{};
    else return std::type_identity<Unused<Slot::index>>{};
  }
  using type = type_list<typename decltype(one<S>())::type...>;
};
template <class Sig, class F> using layout_signature_t = typename layout_signature<Sig, F>::type;

// How a kernel's arguments and output are stored: plain_io, T arrays and
// out_t<T>; stored_io for a call on 16-bit arrays (detail/storage.hpp):
// Stored arrays (read as T = float), an output of type Out (float or Stored),
// Pol the call's policy (which marks its own arguments).
struct plain_io {};
template <class Stored, class Out, class Pol>
struct stored_io {
  using stored = Stored;
  using out = Out;
  using pol = Pol;
};
template <class Io, class T, class Op, class Pol> struct io_types {
  using stored = T;
  using out = typename Op::template out_t<T>;
  using pol = Pol;
};
template <class Stored, class Out, class IoPol, class T, class Op, class Pol>
struct io_types<stored_io<Stored, Out, IoPol>, T, Op, Pol> {
  using stored = Stored;
  using out = Out;
  using pol = IoPol;
};

// A compile-time tuning of the dense kernels (reduce_kernel: GPU_1D and GPU_2D's
// first pass): R output rows per thread (register blocking, block_reduce.hpp:
// each tile element read once from shared memory for R rows) and B threads per
// block. tuning<1, 192> (default_tuning) is the kernel every call runs; the
// others exist for bench/sass and the scoreboard (bench/peer: kops_peer
// --variants) to measure, reachable through detail::eval_tuned (eval.hpp).
template <int R, int B>
struct tuning {
  static_assert(R == 1 || R == 2 || R == 4, "kops::cuda::detail::tuning: rows per thread must be 1, 2 or 4");
  static_assert(B >= 64 && B <= 256 && B % 32 == 0,
                "kops::cuda::detail::tuning: threads per block must be a multiple of 32 in [64, 256]");
  static constexpr int rows = R;
  static constexpr int threads = B;
};
using default_tuning = tuning<1, 192>;

template <class Red, class T, precision P, sum_scheme S = default_sum_scheme, dtype_acc A = dtype_acc::same,
          class Io = plain_io, class Tune = default_tuning>
struct kernel_traits {
  using reduction = Red;
  // S, A: the summation scheme and accumulator type of sum reductions
  // (reductions/detail/scheme_sum.hpp); other reductions ignore them. T: the
  // type evaluated in; Io: how the arguments and output are stored (above).
  using lowered = kops::detail::evaluation_plan<Red, gpu_target, T, P, S, A, !std::is_same_v<Io, plain_io>>;
  using formula = typename lowered::formula;
  // Staged: the chunked sums evaluated a tile of pairs at a time, each chunk of
  // a row's wide variables read once per tile (chunk_loop.hpp); a chunked
  // formula without the staged form reads them once per pair and chunk.
  using plan = typename lowered::sums;
  // The formula reads some variable chunk by chunk, from global memory.
  // (A pass of an output in chunks, detail/output_chunks.hpp, reads its wide
  // variables at moved pointers: strided_output, out_stride.)
  static constexpr bool chunked = lowered::reads_chunks;
  static constexpr bool staged = lowered::staged;
  // Final chunks (gpu_target): the dimension-1 parts of the formula that vary
  // with the pair, computed once per pair (from the staged sums' parts when
  // staged), then the formula over final_chunk_width output components at a time.
  static constexpr bool final_chunks = lowered::final_chunks;
  using final_plan = typename lowered::final_plan;
  // Block sums are flushed by reduce_range once per group of tiles (CallerFlushes);
  // final chunks add each tile's partial sums to the output row (the plain sum).
  using op = std::conditional_t<final_chunks, typename Red::op,
                                kops::detail::accumulation_op_t<typename Red::op, S, A, true>>;
  // The variables kept in registers (row, parameters) and in the tile (reduced
  // axis): those the formula reads whole.
  using signature = layout_signature_t<
      typename Red::signature,
      std::conditional_t<final_chunks, typename kops::detail::final_reads<final_plan>::type, formula>>;
  using math = math_for<P>;
  using value_type = T;
  using io = io_types<Io, T, op, policy<P, S, A>>;
  using storage_type = typename io::stored;  // the arguments' element type
  using arg_policy = typename io::pol;       // for detail::load_arg
  using out_type = typename io::out;
  using acc_type = decltype(op::template init<math, T, formula::dim>(0));
  using args_type = arg_pointers<storage_type, Red::nargs>;
  using batch_type = batch_strides<Red::nargs>;

  static constexpr category row_cat = Red::row_cat;
  static constexpr category red_cat = Red::red_cat;
  static constexpr int row_dims = kops::detail::row_dims<signature, row_cat>();
  static constexpr int red_dims = kops::detail::row_dims<signature, red_cat>();
  static constexpr int param_dims = kops::detail::row_dims<signature, category::param>();

  // Shared memory per block: at most 48 KiB, the limit every device grants
  // without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize).
  static constexpr std::size_t max_shared_bytes = 48 * 1024;
  // Threads per block (= output rows per block at one row per thread). 192 as
  // KeOps: 10 resident blocks (1920 threads) per SM on sm_80/sm_90 when
  // registers allow; Tune::threads (192 unless a tuning says otherwise).
  // (Row variables read whole stay in registers at every width: staging rows
  // wider than 256 bytes in shared memory, with blocks of 32-128 threads, was
  // tried and doubled the SASS instructions per pair of the D = 64 double and
  // D = 256 float Gaussians (one shared load per component per pair,
  // bench/sass) for the few local loads per pair it saved. Wide sums over
  // coordinates are chunked instead: formula, chunk_loop.hpp.)
  static constexpr int block = Tune::threads;
  // Output rows per thread (Tune::rows): R > 1 only for the plain pair loop
  // (block_reduce.hpp: fold_rows); chunked, staged and final-chunk formulas
  // fall back to one row per thread at compile time (their loops keep one
  // row's state: chunk_loop.hpp, final_chunks.hpp).
  static constexpr int rows_per_thread = chunked || staged || final_chunks ? 1 : Tune::rows;
  // Output rows per block: the reduce kernel's grid is ceil(rows / block_rows).
  static constexpr int block_rows = block * rows_per_thread;
  // Reduced-axis indices per tile: one per thread, fewer when the reduced
  // variables are so wide that a block's worth would not fit.
  // The chunk buffer (chunk_loop.hpp, final_chunks.hpp): per tile row, the
  // largest of the staged sums' chunk and the output chunk's wide variables.
  static constexpr int buffer_row = [] {
    const int sums = staged ? plan::template count<red_cat> * plan::chunk : 0;
    const int outs = final_chunks ? final_plan::template count<red_cat> * final_plan::chunk : 0;
    return sums > outs ? sums : outs;
  }();
  static constexpr int tile = [] {
    if constexpr (staged || final_chunks) {
      // A tile's parts live in registers: at most 32 per chunked sum; fewer
      // when the reduced-axis variables read whole are wide.
      const std::size_t row = (std::size_t(red_dims) + buffer_row) * sizeof(T);
      const std::size_t fit = row == 0 ? 32 : max_shared_bytes / row;
      return int(fit < 32 ? fit : 32);
    } else if constexpr (red_dims == 0) {
      return block;
    } else {
      const std::size_t fit = max_shared_bytes / (std::size_t(red_dims) * sizeof(T));
      return int(fit < std::size_t(block) ? fit : std::size_t(block));
    }
  }();
  static_assert(tile >= 1,
                "kops::cuda::eval: the reduced-axis variables of this formula take more than 48 KiB "
                "per index; the GPU backend cannot tile them");
  // The tile, and in the staged form the chunk buffer after it (chunk_loop.hpp).
  static constexpr std::size_t shared_bytes = [] {
    if constexpr (staged || final_chunks) return std::size_t(tile) * (red_dims + buffer_row) * sizeof(T);
    else return std::size_t(tile) * red_dims * sizeof(T);
  }();
  // Reduced-axis rows this narrow are copied from the tile to registers before
  // each evaluation (block_reduce.hpp); wider ones are read in place.
  static constexpr bool stage_red = red_dims > 0 && red_dims <= 8;
  // The 32-bit registers a thread's own state takes before any evaluation: its
  // row variables, the parameters and the accumulator.
  static constexpr std::size_t state_regs = ((std::size_t(row_dims) + param_dims) * sizeof(T) + sizeof(acc_type)) / 4;
  // Pairs per iteration of the pair loop: 8 for narrow formulas (the loop's
  // 5 instructions of overhead then cost 0.6 per pair: bench/sass), 4 when the
  // variables are wide enough that 8 evaluations in flight would spill, 1 when
  // the state alone takes over 3/4 of the 255 registers a thread may have
  // (attention in double, a 64-wide query and 66 accumulators: at 4, ptxas gave
  // the kernel 32 registers and 22 KB of spill stores per thread; at 1, 255
  // registers and 768 B; bench/sass's attention64).
  static constexpr int unroll = row_dims + red_dims <= 16 ? 8 : state_regs > 192 ? 1 : 4;
  // The CUDA-core kernel (tensor_core.hpp's tc_traits: the tensor-core one).
  static constexpr bool tensor_core = false;
};

// The kernel traits of one pass of a call with policy Pol (core/policy.hpp,
// or detail/storage.hpp's stored_policy) on T arrays writing Out: 16-bit
// arrays are evaluated in float and stored as they are (stored_io).
// Tune: the kernels' tuning (above).
template <class Pol, class Red, class T, class Out, class Tune = default_tuning>
using pass_traits_t = std::conditional_t<
    kops::detail::is_16bit_v<T>,
    kernel_traits<Red, kops::detail::compute_t<T>, Pol::prec, Pol::scheme, Pol::acc, stored_io<T, Out, Pol>, Tune>,
    kernel_traits<Red, T, Pol::prec, Pol::scheme, Pol::acc, plain_io, Tune>>;

} // namespace kops::cuda::detail
