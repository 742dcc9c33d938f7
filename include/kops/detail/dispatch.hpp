// The front end of every backend's eval: what a call is, checked once.
//
//   kops::kokkos::eval / kops::cuda::eval / kops::cuda::eval_host / kops::mpi::eval
//     1. compile time: the backend's protocol (check_eval_backend), policies,
//        the trailing options, one pointer per argument index, the element
//        type, the output pointer type                         (check_eval_call)
//     2. run time: sizes, null pointers, an output overlapping an input
//        (check_call_arguments; kops::mpi agrees on them across ranks instead)
//     3. the passes: a two-pass (Chained) reduction is its first pass into a
//        temporary, then its second reading it; a pass with no output row does
//        nothing; a wide output is one pass per chunk of its components; every
//        other pass is one launch of its form                   (run_passes)
//
// A backend supplies only what differs, through a protocol of concepts, each
// checked where eval_call takes the backend (a missing member is a kops::
// error there, never a capability silently lost):
//
//   EvalBackend           where, option_types, made from (where, option_set),
//                         and either passes or its own call:
//     Backend             launch (one dense pass on `rows` output rows over
//                         `cols` terms), with_temporary (n elements held for
//                         the length of a callback)
//     RangedBackend       + launch_ranged             (takes kops::block_sparsity)
//     HostSparsityBackend + host_sparsity             (structures in device memory)
//     BatchedBackend      + launch_batched, sum_batches   (takes kops::batch)
//     OutputChunkedBackend  output_chunk_min_dim and output_chunk, both or neither
//     OwnCallBackend      own_call, call: the whole checked call (eval_host)
//     PointerCheckingBackend  check_pointers, before the call (kops::cuda::eval:
//                         the arrays are device memory)
//
// A pass's form, pass_form<Ranged, Batched>, picks the one launch it runs
// (launch, launch_ranged or launch_batched). A 16-bit call's two-pass
// temporary holds float among the T pointers (storage.hpp, temporary_slot).
// Everything a call takes beyond its pointers (today kops::cuda::options and
// kops::solve_options) is a trailing option, split off here (split_call), so
// that a new kind of option (a block-sparsity structure, a batch) is parsed in
// one place for every backend.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <kops/core/batch.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/core/policy.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/detail/output_chunks.hpp>
#include <kops/detail/sparsity.hpp>
#include <kops/detail/storage.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::detail {

// A call's argument: a pointer, or a pointer marked kops::per_batch.
template <class A> inline constexpr bool is_per_batch_v = false;
template <class T> inline constexpr bool is_per_batch_v<per_batch_arg<T>> = true;
template <class A> inline constexpr bool is_call_argument_v = std::is_pointer_v<A> || is_per_batch_v<A>;

// (A CUDA __half / __nv_bfloat16 array is read as the kops type of the same
// bits: storage.hpp, storage_alias.)
template <class T> const storage_alias_t<T>* arg_pointer(const T* p) {
  return reinterpret_cast<const storage_alias_t<T>*>(p);
}
template <class T> const storage_alias_t<T>* arg_pointer(const per_batch_arg<T>& a) {
  return reinterpret_cast<const storage_alias_t<T>*>(a.ptr);
}
template <class A> struct arg_element { using type = storage_alias_t<std::remove_pointer_t<A>>; };
template <class T> struct arg_element<per_batch_arg<T>> { using type = storage_alias_t<T>; };
template <class A> using arg_element_t = typename arg_element<A>::type;

// Number of leading arguments (pointers, per_batch or not) among a call's
// trailing arguments.
template <class... Rest>
constexpr std::size_t leading_pointers() {
  constexpr bool is_pointer[] = {is_call_argument_v<Rest>..., false};
  std::size_t k = 0;
  while (k < sizeof...(Rest) && is_pointer[k]) ++k;
  return k;
}

// The I-th of a call's trailing arguments.
template <std::size_t I, class A, class... R>
constexpr const auto& nth_argument(const A& a, const R&... r) {
  if constexpr (I == 0) return a;
  else return nth_argument<I - 1>(r...);
}

// The trailing options of a call, one of each kind Opts (default-constructed
// where the call passes none): get_option<O>(set). A plain aggregate of
// bases rather than a std::tuple, whose machinery every call would compile.
template <class O> struct option_slot { O value{}; };
template <class... Opts> struct option_set : option_slot<Opts>... {};
template <class O, class... Opts> constexpr const O& get_option(const option_set<Opts...>& s) {
  return static_cast<const option_slot<O>&>(s).value;
}
template <class O, class... Opts> constexpr O& get_option(option_set<Opts...>& s) {
  return static_cast<option_slot<O>&>(s).value;
}

// How many of the types Ts have type O.
template <class O, class... Ts>
constexpr int count_type() {
  return (0 + ... + (std::is_same_v<Ts, O> ? 1 : 0));
}

// How many of the trailing arguments P + I of Rest have type O (a function,
// not a nested lambda over the pack I: nvcc rejects that).
template <class O, std::size_t P, class... Rest, std::size_t... I>
constexpr int count_trailing(std::index_sequence<I...>) {
  using Args = type_list<std::remove_cvref_t<Rest>...>;
  return count_type<O, typename Args::template at<int(P + I)>...>();
}

// Whether what follows the pointers is a list of distinct types among Opts.
template <class... Opts, class... Rest>
constexpr bool valid_option_tail(type_list<Opts...>, type_list<Rest...>) {
  constexpr std::size_t P = leading_pointers<Rest...>();
  if constexpr (P == sizeof...(Rest)) {
    return true;
  } else {
    constexpr auto tail = std::make_index_sequence<sizeof...(Rest) - P>{};
    return (0 + ... + count_trailing<Opts, P, Rest...>(tail)) == int(sizeof...(Rest) - P) &&
           ((count_trailing<Opts, P, Rest...>(tail) <= 1) && ...);
  }
}

// Calls f(option_set<Opts...>{the options given, the others default}, pointers...).
// The tail must be valid (valid_option_tail).
template <class... Opts, class Fn, class... Rest>
decltype(auto) split_call(type_list<Opts...>, Fn&& f, const Rest&... rest) {
  constexpr std::size_t P = leading_pointers<Rest...>();
  if constexpr (P == sizeof...(Rest)) {
    return f(option_set<Opts...>{}, rest...);
  } else {
    option_set<Opts...> opts{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((get_option<std::remove_cvref_t<decltype(nth_argument<P + I>(rest...))>>(opts) = nth_argument<P + I>(rest...)),
       ...);
    }(std::make_index_sequence<sizeof...(Rest) - P>{});
    return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
      return f(static_cast<const option_set<Opts...>&>(opts), nth_argument<I>(rest...)...);
    }(std::make_index_sequence<P>{});
  }
}

// The first argument of eval and solve: a reduction. (An invalid_reduction,
// from a builder whose rule broke, has been reported already.)
template <class F>
constexpr bool check_is_reduction() {
  constexpr bool ok = ReductionType<F> || std::is_same_v<F, invalid_reduction>;
  static_assert(ok, "kops::eval / kops::solve: the first argument must be a reduction, e.g. "
                    "kops::sum_reduction(f, kops::axis_j): a formula alone says neither how to reduce it nor over "
                    "which axis");
  return ok;
}

template <auto... Policy>
constexpr bool check_policies() {
  constexpr bool ok = valid_policies_v<Policy...>;
  static_assert(ok, "kops::eval: the template arguments are policies, at most one of each kind: "
                    "a kops::precision, a kops::sum_scheme, a kops::dtype_acc, a kops::tensor_cores");
  return ok;
}

// The arguments after the output pointer: pointers, then options of the
// backend's kinds (Opts), each at most once.
template <class... Opts, class... Rest>
constexpr bool check_eval_tail(type_list<Opts...> opts, type_list<Rest...> rest) {
  constexpr bool ok = valid_option_tail(type_list<Opts...>{}, type_list<Rest...>{});
  static_assert(ok, "kops::eval: after the output pointer, pass one pointer per argument index, optionally "
                    "followed by the backend's options (kops::cuda::options on the GPU), last");
  (void)opts;
  (void)rest;
  return ok;
}

// Whether a reduction on T arrays may write Out: out_t of the compute type
// (T*, std::int64_t*, kops::value_index<T>*; float for 16-bit T), or, for a
// value reduction on 16-bit arrays, T* as well (core/half.hpp).
template <class Red, class T, class Out>
inline constexpr bool valid_output_v =
    std::is_same_v<Out, typename Red::op::template out_t<compute_t<T>>> ||
    (is_16bit_v<T> && std::is_same_v<Out, T> &&
     std::is_same_v<typename Red::op::template out_t<compute_t<T>>, compute_t<T>>);

// Whether a reduction on T arrays writing Out writes values (not indices).
template <class T, class Out>
inline constexpr bool value_output_v = std::is_same_v<Out, T> || std::is_same_v<Out, compute_t<T>>;

// The pointers: one per argument index, one element type, the output pointer
// the reduction writes. True when all hold; the backends compile the call only
// then, so that a broken rule is the only error reported. (Out and Args: the
// kops types, storage_alias applied.)
template <class Red, class Out, class... Args>
constexpr bool check_eval_call() {
  using T = call_element_t<Out, Args...>;
  constexpr bool same = (std::is_same_v<T, std::remove_cv_t<Args>> && ...);
  constexpr bool count = sizeof...(Args) == Red::nargs;
  static_assert(arguments_expected<Red::nargs>::template given<int(sizeof...(Args))>,
                "kops::eval: pass exactly one pointer per argument index of the formula (0 .. max index), in index "
                "order (the note below says how many were expected and how many given)");
  constexpr bool output = valid_output_v<Red, T, Out>;
  static_assert(output, "kops::eval: wrong output pointer type (value reductions write T*, "
                        "index reductions such as argmin write std::int64_t*, value-and-index reductions such "
                        "as min_argmin write kops::value_index<T>*; on kops::half / kops::bfloat16 arrays, "
                        "T is float, and value reductions may write the 16-bit type too)");
  return same && count && output;
}

// The policy type of a call on T arrays with the policies Policy...: the
// 16-bit calls' marks their own arguments (storage.hpp).
template <class Red, class T, auto... Policy>
using call_policy_t = std::conditional_t<is_16bit_v<T>, stored_policy<policy_of_t<Policy...>, Red::nargs>,
                                         policy_of_t<Policy...>>;

// The run-time checks of every backend (arguments.hpp): true when the call
// may run; else reported (kops::error, or the error handler) and false.
template <class Red, class T, class Out>
[[nodiscard]] bool check_call_arguments(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                                        const T* const* args) {
  return check_arguments<Red>(where, M, N, out, args) && check_no_overlap<Red>(where, M, N, out, args);
}

// Output rows of a reduction (or pass) with M i-rows and N j-rows.
template <class Red>
constexpr std::int64_t output_rows(std::int64_t M, std::int64_t N) {
  return Red::row_cat == category::i ? M : N;
}

// The batches of a batched call (core/batch.hpp): `count` of them; argument k
// of batch b at ptrs[k] + b * stride[k] (0: shared by every batch).
struct batch_extent {
  std::int64_t count = 1;
  const std::int64_t* stride = nullptr;
  batch_output output = batch_output::each;
};

// One pass of a call, as a backend runs it: `rows` output rows, each reducing
// `cols` terms (0 for a sum of the zero formula, whatever the sizes); with a
// block-sparsity structure (checked) for these rows, or none (dense); with
// batches (the output of batch b at out + b * out_stride), or none.
struct pass_extent {
  std::int64_t M, N, rows, cols;
  const block_sparsity* sparsity = nullptr;
  const batch_extent* batch = nullptr;
  std::int64_t out_stride = 0;  // output elements per batch: rows * dim
};

// The structures of a ranged call for the passes whose output rows are i and
// those whose output rows are j (null: dense, or no pass of that kind).
struct call_sparsity {
  const block_sparsity* by_i = nullptr;
  const block_sparsity* by_j = nullptr;
  const block_sparsity* of(category rows) const { return rows == category::i ? by_i : by_j; }
};

template <class Red>
constexpr pass_extent extent_of(std::int64_t M, std::int64_t N, const call_sparsity& sp = {},
                                const batch_extent* batch = nullptr) {
  const std::int64_t rows = output_rows<Red>(M, N);
  return {M, N, rows, Red::no_work ? 0 : Red::row_cat == category::i ? N : M, sp.of(Red::row_cat), batch,
          rows * out_stride_v<Red>};
}

// Whether some pass of Red has output rows of the other category than Red's own.
template <class Red, category Rows = Red::row_cat>
constexpr bool has_other_rows() {
  if constexpr (is_chained_v<Red>)
    return has_other_rows<typename Red::first, Rows>() || has_other_rows<typename Red::second, Rows>();
  else
    return Red::row_cat != Rows;
}

// The backend protocol (see the header comment): one concept per capability,
// so that a backend that lacks a member is told so where eval_call takes it
// (check_eval_backend) instead of failing deep inside run_passes, or, for an
// optional member, silently running without it. A launch is named with
// protocol_probe for its Pol and Red: the members declare their return type
// (bool), so checking one instantiates no body. Every member returns false
// after a reported failure (only without exceptions). (tests/static/concepts.cpp
// checks each concept both ways, and what every backend models.)
struct temporary_probe {
  template <class B, class T>
  bool operator()(B&, T*) const { return true; }
};
struct protocol_probe {};

// The passes' backend (run_passes):
//   be.where                                   the entry's name, for messages
//   be.launch<Pol, Red>(extent, out, ptrs)     one (unchained) dense pass with rows > 0
//   be.with_temporary<T>(n, f)                 f(inner, buffer) with n elements of
//                                              T held for f's length; `inner` is
//                                              the backend to run f's passes on
//                                              (e.g. with the device already set)
template <class B>
concept Backend = requires(B& be, std::size_t n, const pass_extent& e, float* out, const float* const* ptrs) {
  { be.where } -> std::convertible_to<const char*>;
  { be.template with_temporary<float>(n, temporary_probe{}) } -> std::same_as<bool>;
  { be.template launch<protocol_probe, protocol_probe>(e, out, ptrs) } -> std::same_as<bool>;
};

// A backend that runs block-sparse passes (a kops::block_sparsity among its
// options): be.launch_ranged<Pol, Red>(extent, out, ptrs), extent.sparsity
// checked and in host memory.
template <class B>
concept RangedBackend =
    Backend<B> && requires(B& be, const pass_extent& e, float* out, const float* const* ptrs) {
      { be.template launch_ranged<protocol_probe, protocol_probe>(e, out, ptrs) } -> std::same_as<bool>;
    };

// A backend that reads a structure from memory the host cannot read (the
// GPU's): be.host_sparsity(s, storage, view) copies it to the host first
// (run_sparse_passes).
template <class B>
concept HostSparsityBackend = requires(B& be, const block_sparsity& s, sparsity_copy& storage, block_sparsity& view) {
  { be.host_sparsity(s, storage, view) } -> std::same_as<bool>;
};

// A backend that runs batches (a kops::batch among its options):
//   be.launch_batched<Pol, Red, Ranged>(extent, out, ptrs)   every batch of a pass
//                                              (extent.batch) at once: one launch,
//                                              one parallel loop
//   be.sum_batches(each, B, n, out)            out[i] = the sum over b of
//                                              each[b * n + i], n elements
template <class B>
concept BatchedBackend =
    Backend<B> && requires(B& be, const pass_extent& e, float* out, const float* const* ptrs, const float* each,
                           std::int64_t count) {
      { be.template launch_batched<protocol_probe, protocol_probe, false>(e, out, ptrs) } -> std::same_as<bool>;
      { be.sum_batches(each, count, count, out) } -> std::same_as<bool>;
    };

// A backend that runs a wide output in chunks (output_chunks.hpp): both
// B::output_chunk_min_dim (the narrowest output chunked) and B::output_chunk
// (the components per chunk), integral. Declaring one without the other is
// an error (check_output_chunks), not a backend without chunks.
template <class B>
concept OutputChunkedBackend = requires {
  requires std::integral<std::remove_cvref_t<decltype(B::output_chunk_min_dim)>>;
  requires std::integral<std::remove_cvref_t<decltype(B::output_chunk)>>;
};
template <class B>
concept DeclaresOutputChunks = requires { B::output_chunk_min_dim; } || requires { B::output_chunk; };

template <class B>
constexpr bool check_output_chunks() {
  constexpr bool ok = OutputChunkedBackend<B> || !DeclaresOutputChunks<B>;
  static_assert(ok, "kops::eval: the backend declares only one of output_chunk_min_dim and output_chunk, or one "
                    "that is not an integer: output chunking needs both (detail/output_chunks.hpp)");
  return ok;
}

// The form of a pass: block-sparse (Ranged) or dense, every batch at once
// (Batched) or one problem; each form is one of the backend's launches.
template <bool Ranged, bool Batched> struct pass_form;
template <> struct pass_form<false, false> {
  static constexpr bool ranged = false, batched = false;
  template <class Pol, class Red, Backend B, class T, class Out>
  static bool launch(B& be, const pass_extent& e, Out* out, const T* const* ptrs) {
    return be.template launch<Pol, Red>(e, out, ptrs);
  }
};
template <> struct pass_form<true, false> {
  static constexpr bool ranged = true, batched = false;
  template <class Pol, class Red, RangedBackend B, class T, class Out>
  static bool launch(B& be, const pass_extent& e, Out* out, const T* const* ptrs) {
    return be.template launch_ranged<Pol, Red>(e, out, ptrs);
  }
};
template <bool Ranged> struct pass_form<Ranged, true> {
  static constexpr bool ranged = Ranged, batched = true;
  template <class Pol, class Red, BatchedBackend B, class T, class Out>
  static bool launch(B& be, const pass_extent& e, Out* out, const T* const* ptrs) {
    return be.template launch_batched<Pol, Red, Ranged>(e, out, ptrs);
  }
};

// One pass, through the backend's launch for its form.
template <class Pol, class Red, class Form, class B, class T, class Out>
[[nodiscard]] bool launch_pass(B& be, const pass_extent& e, Out* out, const T* const* ptrs) {
  return Form::template launch<Pol, Red>(be, e, out, ptrs);
}

// Whether backend B runs Red's output in chunks (output_chunks.hpp): B
// models OutputChunkedBackend, and Red qualifies.
template <class B, class Red>
inline constexpr bool output_chunked_v = [] {
  if constexpr (check_output_chunks<B>() && OutputChunkedBackend<B>)
    return output_chunks<Red, B::output_chunk_min_dim, B::output_chunk>::ok;
  else return false;
}();

// The passes of Red, arguments already checked: see the header comment.
// Form (pass_form): ranged, every pass has a block-sparsity structure (sp)
// and runs with be.launch_ranged instead of be.launch (a separate kernel,
// compiled only by the calls that take a structure); batched, bt (count >= 1)
// says where each batch's arguments are, and every pass runs with
// be.launch_batched; a two-pass reduction's temporary then holds every
// batch's first pass.
template <class Pol, class Red, class Form = pass_form<false, false>, class B, class T, class Out>
[[nodiscard]] bool run_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                              const call_sparsity& sp = {}, const batch_extent* bt = nullptr) {
  if constexpr (is_chained_v<Red>) {
    using First = typename Red::first;
    // The temporary holds the compute type (float for 16-bit arrays), passed
    // among the T pointers and read back as such (storage.hpp,
    // temporary_slot): the passes' policy says which slots are temporaries,
    // whatever the entry.
    using Slot = temporary_slot<T>;
    using C = typename Slot::value_type;
    using P = marked_policy_t<Pol, T, Red::nargs>;
    constexpr bool Batched = Form::batched;
    const std::size_t n = std::size_t(output_rows<First>(M, N)) * First::dim;
    const std::size_t batches = Batched ? std::size_t(bt->count) : 1;
    if (Batched && n > 0 && batches > (std::size_t(1) << 62) / sizeof(C) / n)
      return fail("%s: kops::batch{%lld}: the first pass of every batch needs more than 2^62 bytes", be.where,
                  (long long)batches);
    return be.template with_temporary<C>(n * batches, [&](auto& inner, C* buffer) {
      if (!run_passes<P, First, Form>(inner, M, N, buffer, ptrs, sp, bt)) return false;
      const T* second[Red::nargs + 1];
      for (int k = 0; k < Red::nargs; ++k) second[k] = ptrs[k];
      second[Red::nargs] = Slot::pointer(buffer);
      if constexpr (Batched) {
        // The temporary is per batch: batch b's first pass at buffer + b * n,
        // n elements of C, which the backends step over as T elements.
        std::int64_t stride[Red::nargs + 1];
        for (int k = 0; k < Red::nargs; ++k) stride[k] = bt->stride[k];
        stride[Red::nargs] = Slot::t_elements(std::int64_t(n));
        const batch_extent with_buffer{bt->count, stride, bt->output};
        return run_passes<P, typename Red::second, Form>(inner, M, N, out, second, sp, &with_buffer);
      } else {
        return run_passes<P, typename Red::second, Form>(inner, M, N, out, second, sp);
      }
    });
  } else {
    const pass_extent e = extent_of<Red>(M, N, sp, bt);
    if (e.rows == 0) return true;
    if constexpr (output_chunked_v<B, Red>) {
      // A wide output, CH components at a time (output_chunks.hpp): the
      // arguments read at the chunk, the output rows written at the chunk.
      using OC = output_chunks<Red, B::output_chunk_min_dim, B::output_chunk>;
      using Passes = output_chunk_passes<Red, B::output_chunk>;
      constexpr int W = OC::width, CH = B::output_chunk;
      // A 16-bit call's two-pass temporaries hold compute_t<T> (storage.hpp):
      // their pointers move by o of those.
      constexpr auto step = []<int... K>(std::integer_sequence<int, K...>) {
        return std::array<std::int64_t, sizeof...(K)>{
            {(computed_slot_v<Pol, T, K> ? temporary_slot<T>::t_elements(1) : 1)...}};
      }(std::make_integer_sequence<int, Red::nargs>{});
      const T* moved[Red::nargs];
      for (int o = 0; o < W; o += CH) {
        for (int k = 0; k < Red::nargs; ++k)
          moved[k] = k < 64 && ((OC::moved >> k) & 1) ? ptrs[k] + o * step[std::size_t(k)] : ptrs[k];
        const bool ok = o + CH <= W ? launch_pass<Pol, typename Passes::full, Form>(be, e, out + o, moved)
                                    : launch_pass<Pol, typename Passes::tail, Form>(be, e, out + o, moved);
        if (!ok) return false;
      }
      return true;
    } else {
      return launch_pass<Pol, Red, Form>(be, e, out, ptrs);
    }
  }
}

// The rows a structure describes, passed with a reduction whose rows are `rows`.
constexpr category sparsity_rows(const block_sparsity& s, category rows) {
  return s.axis == sparsity_axis::i ? category::i : s.axis == sparsity_axis::j ? category::j : rows;
}

// check_sparsity of s passed with Red (M i rows, N j rows), against the axis
// it describes; with a gradient w.r.t. a reduced-axis variable, s tagged first.
template <class Red>
[[nodiscard]] bool check_sparsity_for(const char* where, const block_sparsity& s, std::int64_t M, std::int64_t N,
                                      message* keep = nullptr) {
  if constexpr (reduced_axis_gradient_v<Red>)
    if (!check_sparsity_tagged(where, s, Red::row_cat == category::i ? "i" : "j", keep)) return false;
  const bool rows_i = sparsity_rows(s, Red::row_cat) == category::i;
  return check_sparsity(where, s, rows_i ? M : N, rows_i ? N : M, rows_i ? "i" : "j", keep);
}

// The passes of a call with the block-sparsity structure s (checked, in host
// memory), transposed for the passes whose rows are of the other axis than
// the ones s describes.
template <class Pol, class Red, bool Batched = false, class B, class T, class Out>
[[nodiscard]] bool run_checked_sparse_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                                             const block_sparsity& s, const batch_extent* bt = nullptr) {
  const category own = sparsity_rows(s, Red::row_cat);
  call_sparsity sp;
  (own == category::i ? sp.by_i : sp.by_j) = &s;
  if (own == Red::row_cat && !has_other_rows<Red>())
    return run_passes<Pol, Red, pass_form<true, Batched>>(be, M, N, out, ptrs, sp, bt);
  // A backend may keep the transpose of a structure it knows (the CUDA
  // backend's resident_sparsity): be.kept_transpose(s), else null.
  if constexpr (requires { { be.kept_transpose(s) } -> std::same_as<const block_sparsity*>; }) {
    if (const block_sparsity* kept = be.kept_transpose(s)) {
      (own == category::i ? sp.by_j : sp.by_i) = kept;
      return run_passes<Pol, Red, pass_form<true, Batched>>(be, M, N, out, ptrs, sp, bt);
    }
  }
  const sparsity_copy other = transpose_sparsity(s);
  const block_sparsity view = other.view();
  (own == category::i ? sp.by_j : sp.by_i) = &view;
  return run_passes<Pol, Red, pass_form<true, Batched>>(be, M, N, out, ptrs, sp, bt);
}

// The structure s of a call of Red where the host reads it, into `host`:
// copied first (into `copy`) where the backend reads it from memory the host
// cannot (HostSparsityBackend), unless `on_host` says it is there already;
// then checked for Red's sizes and axes (check_sparsity_for). False after a
// reported failure. (eval's run_sparse_passes and solve_call share it.)
template <class Red, class B>
[[nodiscard]] bool host_checked_sparsity(B& be, const char* where, const block_sparsity& s, sparsity_copy& copy,
                                         block_sparsity& host, std::int64_t M, std::int64_t N, bool on_host = false) {
  host = s;
  if constexpr (HostSparsityBackend<B>) {
    if (!on_host && !be.host_sparsity(s, copy, host)) return false;
  }
  return check_sparsity_for<Red>(where, host, M, N);
}

// The passes of a call with the block-sparsity structure s for Red's output
// rows (or the axis it is tagged with): s (copied to the host first where the
// backend needs it, unless `on_host` says it is there already) checked, and
// transposed for the passes on the other axis (a two-pass gradient's first
// pass, say). Every pass gets a structure in host memory. False after a
// reported failure.
template <class Pol, class Red, bool Batched = false, class B, class T, class Out>
[[nodiscard]] bool run_sparse_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                                     const block_sparsity& s, const batch_extent* bt = nullptr,
                                     bool on_host = false) {
  sparsity_copy copy;
  block_sparsity host;
  return host_checked_sparsity<Red>(be, be.where, s, copy, host, M, N, on_host) &&
         run_checked_sparse_passes<Pol, Red, Batched>(be, M, N, out, ptrs, host, bt);
}

// What a call runs beyond its pointers, for run_call: a block-sparsity
// structure as the user passed it (Ranged; `on_host`: in host memory whatever
// the backend) and the batches (Batched; count checked >= 0).
struct call_form {
  const block_sparsity* sparsity = nullptr;
  const batch_extent* batch = nullptr;
  bool sparsity_on_host = false;
};

// The passes of a checked call on backend be, in the form f: a batched call
// with batch_output::sum runs every batch into a temporary, then sums it.
template <class Pol, class Red, bool Ranged, bool Batched, class B, class T, class Out>
[[nodiscard]] bool run_call(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                            const call_form& f) {
  if constexpr (Batched) {
    const batch_extent& bt = *f.batch;
    if (bt.count == 0) return true;
    if constexpr (value_output_v<T, Out>) {
      if (bt.output == batch_output::sum) {
        // Every batch in the compute type, summed into out (rounded once there).
        using C = compute_t<T>;
        const std::size_t n = std::size_t(output_rows<Red>(M, N)) * Red::dim;
        if (n == 0) return true;
        return be.template with_temporary<C>(n * std::size_t(bt.count), [&](auto& inner, C* each) {
          const batch_extent all{bt.count, bt.stride, batch_output::each};
          call_form g = f;
          g.batch = &all;
          return run_call<Pol, Red, Ranged, Batched>(inner, M, N, each, ptrs, g) &&
                 inner.sum_batches(each, bt.count, std::int64_t(n), out);
        });
      }
    }
  }
  if constexpr (Ranged)
    return run_sparse_passes<Pol, Red, Batched>(be, M, N, out, ptrs, *f.sparsity, f.batch, f.sparsity_on_host);
  else
    return run_passes<Pol, Red, pass_form<false, Batched>>(be, M, N, out, ptrs, {}, f.batch);
}

// The run-time checks of a batched call (core/batch.hpp), and its strides
// into `stride` (one per argument index): true when it may run, else
// reported (kops::error, or the error handler) and false. per_batch[k]:
// argument k was marked kops::per_batch.
[[nodiscard, gnu::noinline]] inline bool check_batch_impl(const char* where, const call_info& c, std::int64_t M,
                                                          std::int64_t N, const void* out, const void* const* args,
                                                          std::size_t out_size, std::size_t arg_size,
                                                          const batch& b, bool value_output, const bool* per_batch,
                                                          std::int64_t* stride) {
  if (b.count < 0)
    return reject(nullptr, "%s: kops::batch{B}: B (the number of batches) must be >= 0, got %lld", where,
                  (long long)b.count);
  if (b.output == batch_output::sum && !value_output)
    return reject(nullptr,
                  "%s: kops::batch_output::sum adds the batches' outputs, which only a value reduction writes "
                  "(%s writes indices)",
                  where, c.reduction);
  if (b.count == 0) {  // nothing is read or written: empty (null) arrays are fine
    if (M < 0 || N < 0) return check_arguments_impl(where, c, M, N, out, args);
    return true;
  }
  if (!check_arguments_impl(where, c, M, N, out, args)) return false;
  // Every batch's elements (the output's, each per-batch argument's, and a
  // temporary of every batch's output) must be countable in 63 bits.
  constexpr std::int64_t most = std::int64_t(1) << 62;
  auto fits = [&](std::int64_t elements) { return elements <= most / b.count; };
  const std::int64_t rows = c.row_cat == category::i ? M : N;
  bool ok = rows <= most / (c.out_dim > 0 ? c.out_dim : 1) && fits(rows * c.out_dim);
  for (int k = 0; k < c.nslots; ++k) {
    const slot_info& s = c.slots[k];
    const std::int64_t n = s.cat == category::i ? M : s.cat == category::j ? N : 1;
    stride[s.index] = s.used && per_batch[s.index] ? n * s.dim : 0;
    ok = ok && fits(stride[s.index]);
  }
  if (!ok)
    return reject(nullptr, "%s: kops::batch{%lld}: the batches' arrays hold more than 2^62 elements", where,
                  (long long)b.count);
  const std::int64_t out_batches = b.output == batch_output::sum ? 1 : b.count;
  return check_no_overlap_impl(where, c, M, N, out, args, out_size, arg_size, nullptr, b.count, per_batch,
                               out_batches);
}

template <class Red, class T, class Out>
[[nodiscard]] bool check_batched_call(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                                      const T* const* args, const batch& b, const bool* per_batch,
                                      std::int64_t* stride) {
  const void* untyped[Red::signature::size + 1] = {};
  for (int k = 0; k < Red::signature::size; ++k) untyped[k] = args[k];
  return check_batch_impl(where, call_info_of<Red>::value, M, N, out, untyped, sizeof(Out), sizeof(T), b,
                          value_output_v<T, Out>, per_batch, stride);
}

// The options Be takes: Be::option_types, or none where it has no such list
// (check_eval_backend reports it).
template <class Be> struct options_of { using type = type_list<>; };
template <class Be>
  requires requires { typename Be::option_types; }
struct options_of<Be> { using type = typename Be::option_types; };
template <class Be> using options_of_t = typename options_of<Be>::type;

// Whether Be can be made from (where, the option_set of the types in List).
template <class Be, class List> inline constexpr bool makes_from_options_v = false;
template <class Be, class... Opts>
inline constexpr bool makes_from_options_v<Be, type_list<Opts...>> =
    std::is_constructible_v<Be, const char*, const option_set<Opts...>&>;

// Whether T is among the options Opts.
template <class T, class... Opts>
constexpr bool takes_option(type_list<Opts...>) {
  return (std::is_same_v<T, Opts> || ...);
}

// A backend with its own call: `static constexpr bool own_call = true` and
//   be.call<Pol, Red, Ranged, Batched>(M, N, out, ptrs, form)   the checked call
//                                              (form.sparsity: the structure as
//                                              the user passed it)
template <class Be>
concept DeclaresOwnCall = requires { requires Be::own_call; };
template <class Be>
concept OwnCallBackend =
    DeclaresOwnCall<Be> && requires(Be& be, std::int64_t m, float* out, const float* const* ptrs, const call_form& f) {
      { be.template call<protocol_probe, protocol_probe, false, false>(m, m, out, ptrs, f) } -> std::same_as<bool>;
    };

// A backend whose pointers must be of some kind of memory checks them before
// the call: be.check_pointers<Red>(M, N, out, ptrs), false after a report.
template <class Be>
concept PointerCheckingBackend = requires(Be& be, std::int64_t m, float* out, const float* const* ptrs) {
  { be.template check_pointers<protocol_probe>(m, m, out, ptrs) } -> std::same_as<bool>;
};

// What eval_call takes: be.where, Be::option_types (a kops::type_list of the
// trailing options it takes), made from (where, option_set<its options...>),
// and either its own call or passes (Backend; RangedBackend and
// BatchedBackend when it takes a kops::block_sparsity or a kops::batch:
// check_eval_backend).
template <class Be>
concept EvalBackend = requires(Be& be) {
  { be.where } -> std::convertible_to<const char*>;
  typename Be::option_types;
  requires makes_from_options_v<Be, typename Be::option_types>;
} && (OwnCallBackend<Be> || Backend<Be>);

// A backend whose call makes the run-time argument checks itself (kops::mpi:
// on every rank together, so that every rank reports or none does) also sets
// `static constexpr bool own_checks = true`; eval_call then leaves them to it.
// Only an own-call backend that takes no kops::batch may (check_eval_backend).
template <class Be>
concept DeclaresOwnChecks = requires { requires Be::own_checks; };
template <class Be>
concept OwnChecksBackend = DeclaresOwnChecks<Be> && OwnCallBackend<Be> && !takes_option<batch>(options_of_t<Be>{});

// The protocol, checked where eval_call takes Be: true when Be models what it
// claims (its options, its own call, its output chunks); else reported.
template <class Be>
constexpr bool check_eval_backend() {
  using Opts = options_of_t<Be>;
  constexpr bool options = requires { typename Be::option_types; } && makes_from_options_v<Be, Opts>;
  static_assert(options, "kops::eval: the backend has no option_types (a kops::type_list of the options it takes) "
                         "or cannot be made from (where, option_set<its options...>)");
  constexpr bool own = !DeclaresOwnCall<Be> || OwnCallBackend<Be>;
  static_assert(own, "kops::eval: the backend declares own_call but has no "
                     "call<Pol, Red, Ranged, Batched>(M, N, out, ptrs, form) returning bool");
  constexpr bool passes = DeclaresOwnCall<Be> || Backend<Be>;
  static_assert(passes, "kops::eval: the backend has neither its own call nor passes: where, "
                        "launch<Pol, Red>(extent, out, ptrs) and with_temporary<T>(n, f) (detail/dispatch.hpp, "
                        "Backend)");
  constexpr bool ranged = DeclaresOwnCall<Be> || !takes_option<block_sparsity>(Opts{}) || RangedBackend<Be>;
  static_assert(ranged, "kops::eval: the backend lists kops::block_sparsity among its options but has no "
                        "launch_ranged<Pol, Red>(extent, out, ptrs) (detail/dispatch.hpp, RangedBackend)");
  constexpr bool batched = DeclaresOwnCall<Be> || !takes_option<batch>(Opts{}) || BatchedBackend<Be>;
  static_assert(batched, "kops::eval: the backend lists kops::batch among its options but has no "
                         "launch_batched<Pol, Red, Ranged>(extent, out, ptrs) and sum_batches(each, B, n, out) "
                         "(detail/dispatch.hpp, BatchedBackend)");
  constexpr bool checks = !DeclaresOwnChecks<Be> || OwnChecksBackend<Be>;
  static_assert(checks, "kops::eval: the backend declares own_checks (it checks the arguments itself) but is not "
                        "an own-call backend, or takes kops::batch (whose checks eval_call makes)");
  return options && own && passes && ranged && batched && checks && check_output_chunks<Be>() && EvalBackend<Be>;
}

// The checked call on a backend made for it: its own call, or run_call.
template <class Be, class Pol, class Red, bool Ranged, bool Batched, class Opts, class T, class Out>
void run_entry(const char* where, const Opts& opts, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
               const call_form& form) {
  Be be(where, opts);
  if constexpr (PointerCheckingBackend<Be>)
    if (!be.template check_pointers<Red>(M, N, out, ptrs)) return;
  if constexpr (OwnCallBackend<Be>)
    (void)be.template call<Pol, Red, Ranged, Batched>(M, N, out, ptrs, form);
  else
    (void)run_call<Pol, Red, Ranged, Batched>(be, M, N, out, ptrs, form);
}

// The whole of an eval entry: compile-time rules, the options split off, the
// run-time checks, the passes. Be::option_types lists the trailing options it
// takes; Be(where, option_set) makes the backend for a call (EvalBackend).
// A backend whose call is more than its passes (kops::cuda::eval_host copies
// the arguments in and the output out around them) has its own call
// (OwnCallBackend), which runs instead of run_call.
template <class Be, auto... Policy, class Red, class UserOut, class... Rest>
void eval_call(const char* where, Red, std::int64_t M, std::int64_t N, UserOut* user_out, const Rest&... rest) {
  using Out = storage_alias_t<UserOut>;  // __half* is a kops::half* (storage.hpp)
  Out* const out = reinterpret_cast<Out*>(user_out);
  constexpr bool backend = check_eval_backend<Be>();
  constexpr bool policies = check_policies<Policy...>();
  constexpr bool ranged = (std::is_same_v<Rest, block_sparsity> || ...);
  constexpr bool batched = (std::is_same_v<Rest, batch> || ...);
  constexpr bool marked = (is_per_batch_v<Rest> || ...);
  static_assert(!marked || batched, "kops::eval: an argument marked kops::per_batch needs the option "
                                    "kops::batch{B} (the number of batches), after the pointers");
  constexpr bool ranges_ok = !ranged || takes_option<block_sparsity>(options_of_t<Be>{});
  static_assert(ranges_ok, "kops::eval: this backend does not take a kops::block_sparsity yet "
                           "(kops::kokkos::eval does)");
  constexpr bool batch_ok = !batched || takes_option<batch>(options_of_t<Be>{});
  static_assert(batch_ok, "kops::eval: this backend does not take a kops::batch (kops::kokkos::eval, "
                          "kops::cuda::eval and kops::cuda::eval_host do)");
  constexpr bool tail =
      ranges_ok && batch_ok && (!marked || batched) && check_eval_tail(options_of_t<Be>{}, type_list<Rest...>{});
  if constexpr (backend && policies && tail) {
    split_call(
        options_of_t<Be>{},
        [&]<class... A>(const auto& opts, const A&... args) {
          if constexpr (check_eval_call<Red, Out, arg_element_t<A>...>()) {
            using T = call_element_t<Out, arg_element_t<A>...>;
            const T* const ptrs[sizeof...(A) + 1] = {arg_pointer(args)..., nullptr};  // + 1: no empty array
            using Pol = call_policy_t<Red, T, Policy...>;
            call_form form;
            if constexpr (ranged) form.sparsity = &get_option<block_sparsity>(opts);
            if constexpr (batched) {
              const bool per_batch[sizeof...(A) + 1] = {is_per_batch_v<A>..., false};
              const batch& b = get_option<batch>(opts);
              std::int64_t stride[sizeof...(A) + 1] = {};
              if (!check_batched_call<Red>(where, M, N, out, ptrs, b, per_batch, stride)) return;
              const batch_extent bt{b.count, stride, b.output};
              form.batch = &bt;
              run_entry<Be, Pol, Red, ranged, batched>(where, opts, M, N, out, ptrs, form);
            } else {
              if constexpr (!OwnChecksBackend<Be>) {
                if (!check_call_arguments<Red>(where, M, N, out, ptrs)) return;
              }
              run_entry<Be, Pol, Red, ranged, batched>(where, opts, M, N, out, ptrs, form);
            }
          }
        },
        rest...);
  }
}

} // namespace kops::detail
