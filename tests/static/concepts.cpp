// static_assert-only tests: the extension points' concepts (core/concepts.hpp,
// reductions/reduction.hpp: ReductionOp, detail/dispatch.hpp: the backend
// protocol, Backend and its capabilities, solve/solve_call.hpp: Solver) hold for
// every type the backends supply, and fail for types that lack a member, so that
// they can catch a broken extension. (The CUDA backend's types are checked in
// tests/cuda/errors_test.cu, which both nvcc and kops::cuda_emulated compile.)
#include <kops/backends/kokkos/block_kernel.hpp>
#include <kops/backends/kokkos/pack.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/kops.hpp>
#include <kops/solve/solve_call.hpp>
#if __has_include(<Kokkos_Core.hpp>)
#include <kops/backends/kokkos/eval.hpp>
#include <kops/backends/kokkos/solve.hpp>
#endif

#include "../common/reference.hpp"

#include <cstdint>

namespace {
using namespace kops;
using simd::pack;
using kokkos::detail::block_context;

using Sig = type_list<Var<category::i, 0, 3>, Var<category::j, 1, 3>, Var<category::param, 2, 1>>;
template <class P, class M = simd::pack_math>
using cpu_ctx = block_context<P, category::i, Sig, M>;
constexpr int W = 16;  // any power of two: the pack's lane count

// Math providers: the reference scalar one (both backends' accurate GPU math
// and every test's reference), the CPU's over packs, accurate and fast.
static_assert(MathProvider<scalar_math, float> && MathProvider<scalar_math, double>);
static_assert(MathProvider<simd::pack_math, pack<float, W>> && MathProvider<simd::pack_math, pack<double, 8>>);
static_assert(MathProvider<simd::pack_math_fast, pack<float, W>>);
static_assert(MathProvider<simd::pack_math, pack<float, 4>>);

// Evaluation contexts: the CPU block's, the tests' reference one, and the
// Factorized node's slot context over them.
static_assert(EvaluationContext<cpu_ctx<pack<float, W>>> && EvaluationContext<cpu_ctx<pack<double, 8>>>);
static_assert(EvaluationContext<cpu_ctx<pack<float, W>, simd::pack_math_fast>>);
// ... on 16-bit arguments, evaluated in float (detail/storage.hpp).
static_assert(EvaluationContext<block_context<pack<float, W>, category::i, Sig, simd::pack_math, kops::half,
                                              kops::detail::stored_policy<kops::detail::policy_of_t<>, 3>>>);
static_assert(EvaluationContext<block_context<pack<float, W>, category::j, Sig, simd::pack_math, kops::bfloat16,
                                              kops::detail::stored_policy<kops::detail::policy_of_t<>, 3>>>);
static_assert(EvaluationContext<kops_test::reference_context<double>>);
using slot_ctx = kops::detail::slot_context<kops_test::reference_context<double>, 1, vec<double, 2>>;
static_assert(SlotContext<slot_ctx, 1, 2>);
static_assert(!SlotContext<kops_test::reference_context<double>, 1, 2>);

// Reduction ops, each with both kinds of context.
template <class Op, int D>
constexpr bool reduces_everywhere = ReductionOp<Op, cpu_ctx<pack<float, W>>, D> &&
                                    ReductionOp<Op, cpu_ctx<pack<double, 8>>, D> &&
                                    ReductionOp<Op, kops_test::reference_context<double>, D>;
static_assert(reduces_everywhere<sum_op, 3>);
static_assert(reduces_everywhere<min_op, 2> && reduces_everywhere<max_op, 2>);
static_assert(reduces_everywhere<argmin_op, 2> && reduces_everywhere<argmax_op, 2>);
static_assert(reduces_everywhere<min_argmin_op, 2> && reduces_everywhere<max_argmax_op, 2>);
static_assert(reduces_everywhere<kmin_op<3>, 1> && reduces_everywhere<argkmin_op<3>, 1>);
static_assert(reduces_everywhere<kmin_argkmin_op<3>, 1>);
static_assert(reduces_everywhere<logsumexp_op, 1>);
static_assert(reduces_everywhere<sumsoftmaxweight_op, 4>);
// Sums under every summation scheme and accumulator type.
static_assert(reduces_everywhere<kops::detail::accumulation_op_t<sum_op, sum_scheme::kahan, dtype_acc::same, false>, 3>);
static_assert(reduces_everywhere<kops::detail::accumulation_op_t<sum_op, sum_scheme::block, dtype_acc::float64, true>, 3>);
static_assert(reduces_everywhere<kops::detail::accumulation_op_t<sum_op, sum_scheme::direct, dtype_acc::same, false>, 3>);

// The concepts reject what lacks a member.
struct math_without_pow : scalar_math {
  static void pow() = delete;  // hides scalar_math::pow: everything else is there
};
static_assert(MathProvider<scalar_math, float> && !MathProvider<math_without_pow, float>);
struct sum_without_combine {
  static constexpr const char* name = "s";
  static constexpr const char* keops_name = "S";
  template <int D> static constexpr int out_dim = D;
  template <class T> using out_t = T;
  template <class V, class IV, int D> struct acc { vec<V, D> s; };
  template <class M, class V, int D> static auto init(std::int64_t) { return acc<V, typename M::template index_t<V>, D>{}; }
  template <class M, class V, class IV, int D> static void accumulate(acc<V, IV, D>&, const vec<V, D>&, const IV&) {}
  template <class M, class V, class IV, int D, class Out> static void finalize(const acc<V, IV, D>&, int, Out*) {}
};
static_assert(!ReductionOp<sum_without_combine, kops_test::reference_context<double>, 1>);
struct context_without_load {
  using value_type = double;
  using scalar_type = double;
  using math = scalar_math;
};
static_assert(!EvaluationContext<context_without_load>);

// Backends as the eval front end sees them (detail/dispatch.hpp: the protocol),
// each modelling what it claims.
#if __has_include(<Kokkos_Core.hpp>)
using kokkos::detail::basic_host_backend;
using kokkos::detail::host_backend;
static_assert(kops::detail::Backend<host_backend>);
static_assert(kops::detail::Backend<basic_host_backend<false>>);
static_assert(kops::detail::RangedBackend<host_backend> && kops::detail::BatchedBackend<host_backend>);
static_assert(kops::detail::OutputChunkedBackend<host_backend> && kops::detail::check_output_chunks<host_backend>());
static_assert(!kops::detail::HostSparsityBackend<host_backend> && !kops::detail::OwnCallBackend<host_backend>);
static_assert(kops::detail::EvalBackend<basic_host_backend<false>> && kops::detail::EvalBackend<host_backend>);
static_assert(kops::detail::check_eval_backend<kokkos::detail::eval_backend>());
// kops::kokkos::eval compiles no sliced loops on a Serial host space (one
// thread: plan_host never slices there), and all of them elsewhere.
#if defined(KOKKOS_ENABLE_SERIAL)
static_assert(std::is_same_v<kokkos::detail::eval_backend,
                             kokkos::detail::basic_host_backend<!std::is_same_v<Kokkos::DefaultHostExecutionSpace,
                                                                                 Kokkos::Serial>>>);
#else
static_assert(std::is_same_v<kokkos::detail::eval_backend, kokkos::detail::basic_host_backend<true>>);
#endif
#endif

// The protocol's concepts, each shown to hold for a type with its members
// and to reject one that lacks one (or misspells it).
namespace protocol {
using kops::detail::call_form;
using kops::detail::option_set;
using kops::detail::pass_extent;

struct backend_without_temporary {
  const char* where;
};
struct backend_without_launch {
  const char* where;
  template <class T, class F>
  bool with_temporary(std::size_t, F&&) { return true; }
};
struct dense : backend_without_launch {
  template <class Pol, class Red, class T, class Out>
  bool launch(const pass_extent&, Out*, const T* const*) { return true; }
};
static_assert(kops::detail::Backend<dense>);
static_assert(!kops::detail::Backend<backend_without_temporary> && !kops::detail::Backend<backend_without_launch>);

struct ranged : dense {
  template <class Pol, class Red, class T, class Out>
  bool launch_ranged(const pass_extent&, Out*, const T* const*) { return true; }
};
struct ranged_misspelt : dense {
  template <class Pol, class Red, class T, class Out>
  bool launch_range(const pass_extent&, Out*, const T* const*) { return true; }
};
static_assert(kops::detail::RangedBackend<ranged> && !kops::detail::RangedBackend<dense>);
static_assert(!kops::detail::RangedBackend<ranged_misspelt>);

struct device_ranged : ranged {
  bool host_sparsity(const block_sparsity&, kops::detail::sparsity_copy&, block_sparsity&) { return true; }
};
static_assert(kops::detail::HostSparsityBackend<device_ranged> && !kops::detail::HostSparsityBackend<ranged>);

struct batched_without_sum : ranged {
  template <class Pol, class Red, bool Ranged, class T, class Out>
  bool launch_batched(const pass_extent&, Out*, const T* const*) { return true; }
};
struct batched : batched_without_sum {
  template <class T, class Out>
  bool sum_batches(const T*, std::int64_t, std::int64_t, Out*) { return true; }
};
struct batched_without_launch : ranged {
  template <class T, class Out>
  bool sum_batches(const T*, std::int64_t, std::int64_t, Out*) { return true; }
};
static_assert(kops::detail::BatchedBackend<batched>);
static_assert(!kops::detail::BatchedBackend<batched_without_sum> && !kops::detail::BatchedBackend<batched_without_launch>);

// Output chunks: both constants, integral; one alone (a misspelt name) or a
// non-integral one is declared but not modelled, which check_output_chunks
// reports (tests/compile_fail/backend_one_output_chunk.cpp).
struct chunked : dense {
  static constexpr int output_chunk_min_dim = 64;
  static constexpr int output_chunk = 32;
};
struct chunk_misspelt : dense {
  static constexpr int output_chunk_min_dims = 64;
  static constexpr int output_chunk = 32;
};
struct chunk_not_integral : dense {
  static constexpr int output_chunk_min_dim = 64;
  static constexpr double output_chunk = 32;
};
static_assert(kops::detail::OutputChunkedBackend<chunked> && kops::detail::DeclaresOutputChunks<chunked>);
static_assert(!kops::detail::OutputChunkedBackend<dense> && !kops::detail::DeclaresOutputChunks<dense>);
static_assert(!kops::detail::OutputChunkedBackend<chunk_misspelt> && kops::detail::DeclaresOutputChunks<chunk_misspelt>);
static_assert(!kops::detail::OutputChunkedBackend<chunk_not_integral>);
static_assert(kops::detail::check_output_chunks<chunked>() && kops::detail::check_output_chunks<dense>());

// Entries: options, a constructor, then passes or an own call.
struct entry : batched {
  using option_types = type_list<block_sparsity, batch>;
  entry(const char* w, const option_set<block_sparsity, batch>&) { where = w; }
};
struct entry_without_constructor : batched {
  using option_types = type_list<block_sparsity, batch>;
};
struct entry_without_options : batched {
  entry_without_options(const char* w, const option_set<>&) { where = w; }
};
static_assert(kops::detail::EvalBackend<entry> && kops::detail::check_eval_backend<entry>());
static_assert(!kops::detail::EvalBackend<entry_without_constructor>);
static_assert(!kops::detail::EvalBackend<entry_without_options>);

struct own_without_call {
  static constexpr bool own_call = true;
  using option_types = type_list<batch>;
  const char* where;
  own_without_call(const char* w, const option_set<batch>&) : where(w) {}
};
struct own : own_without_call {
  using own_without_call::own_without_call;
  template <class Pol, class Red, bool Ranged, bool Batched, class T, class Out>
  bool call(std::int64_t, std::int64_t, Out*, const T* const*, const call_form&) { return true; }
};
struct own_off : own {
  using own::own;
  static constexpr bool own_call = false;
};
static_assert(kops::detail::OwnCallBackend<own> && kops::detail::EvalBackend<own>);
static_assert(kops::detail::check_eval_backend<own>());
static_assert(!kops::detail::OwnCallBackend<own_without_call> && !kops::detail::EvalBackend<own_without_call>);
static_assert(!kops::detail::OwnCallBackend<own_off> && !kops::detail::EvalBackend<own_off>);

// own_checks: an own-call backend that takes no kops::batch (kops::mpi's
// entry); not one that takes batches, nor a backend of passes.
struct own_checks_unbatched {
  static constexpr bool own_call = true, own_checks = true;
  using option_types = type_list<block_sparsity>;
  const char* where;
  own_checks_unbatched(const char* w, const option_set<block_sparsity>&) : where(w) {}
  template <class Pol, class Red, bool Ranged, bool Batched, class T, class Out>
  bool call(std::int64_t, std::int64_t, Out*, const T* const*, const call_form&) { return true; }
};
struct own_checks_batched : own {
  using own::own;
  static constexpr bool own_checks = true;
};
struct own_checks_passes : entry {
  using entry::entry;
  static constexpr bool own_checks = true;
};
static_assert(kops::detail::OwnChecksBackend<own_checks_unbatched> &&
              kops::detail::check_eval_backend<own_checks_unbatched>());
static_assert(kops::detail::DeclaresOwnChecks<own_checks_batched> &&
              !kops::detail::OwnChecksBackend<own_checks_batched>);
static_assert(kops::detail::DeclaresOwnChecks<own_checks_passes> && !kops::detail::OwnChecksBackend<own_checks_passes>);
static_assert(!kops::detail::DeclaresOwnChecks<own> && !kops::detail::OwnChecksBackend<own>);
} // namespace protocol

// Backends as the solve front end sees them.
#if __has_include(<Kokkos_Core.hpp>)
static_assert(kops::detail::Solver<kokkos::detail::host_solver>);
#endif
struct solver_without_solve_options {
  using option_types = type_list<block_sparsity>;
  const char* where;
};
static_assert(!kops::detail::Solver<solver_without_solve_options>);

} // namespace
