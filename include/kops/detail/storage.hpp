// How the kernels read a call's arguments and write its output when they are
// stored in 16 bits (core/half.hpp). The element type T of the passes stays
// the type of the arguments (kops::half, say); the kernels compute in
// compute_t<T> (float) and convert at the two ends:
//
//   load_arg<Pol, I>(p, e)          element e of argument I, widened (exact)
//   store_row<Op, Math, D>(a, l, row)   an output row, finalized in float and
//                                   rounded once when the output is 16-bit
//
// The temporaries of a two-pass reduction (reductions/chained.hpp) hold float
// even then: a call's own arguments are its first K = Red::nargs slots, and
// the front end (dispatch.hpp) marks the call's policy with K
// (stored_policy<Pol, K>; run_passes marks it too, for any entry); a slot at
// or past K is a temporary, passed in the same pointer array (as const T*,
// cast back here, temporary_slot: its batch stride then counts T elements).
// Calls on float or double arrays keep their plain policy and compile exactly
// as before.
#pragma once

#include <cstdint>
#include <type_traits>

#include <kops/config.hpp>
#include <kops/core/half.hpp>

#if defined(__CUDA_FP16_TYPES_EXIST__) || defined(__CUDA_FP16_H__)
#define KOPS_HAS_CUDA_HALF 1
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__) || defined(__CUDA_BF16_H__)
#define KOPS_HAS_CUDA_BFLOAT16 1
#endif

namespace kops::detail {

// The policy of a call on 16-bit arguments: Pol, and K, the call's own arguments.
template <class Pol, int K>
struct stored_policy : Pol {
  static constexpr int stored_args = K;
};

template <class Pol>
constexpr int stored_args_of() {
  if constexpr (requires { Pol::stored_args; }) return Pol::stored_args;
  else return 1 << 30;
}

// Pol marked with K own arguments where a call on T arrays needs it (16-bit
// T) and nothing has marked it yet (run_passes: the first Chained level).
template <class Pol, class T, int K>
using marked_policy_t =
    std::conditional_t<is_16bit_v<T> && stored_args_of<Pol>() == (1 << 30), stored_policy<Pol, K>, Pol>;

// Whether argument I of a call on T arrays with policy Pol is a temporary
// held in compute_t<T> (only 16-bit calls have such slots).
template <class Pol, class T, int I>
inline constexpr bool computed_slot_v = is_16bit_v<T> && I >= stored_args_of<Pol>();

// A two-pass reduction's temporary on a call on T arrays, as the passes carry
// it: a buffer of compute_t<T> values passed among the call's const T*
// arguments (pointer), read back as values (values: load_arg), and stepped in
// T elements (a batch's stride, an output chunk's offset): n values span
// t_elements(n) of T, 2n for kops::half / kops::bfloat16 (float values), n
// for float and double. The one place the buffer's type is punned.
template <class T>
struct temporary_slot {
  using value_type = compute_t<T>;
  static_assert(sizeof(value_type) % sizeof(T) == 0,
                "kops: internal error, a temporary's values are not a whole number of T elements");

  // The T elements that n values span.
  static constexpr std::int64_t t_elements(std::int64_t n) { return n * std::int64_t(sizeof(value_type) / sizeof(T)); }
  // The buffer as an argument pointer.
  static const T* pointer(const value_type* buffer) { return reinterpret_cast<const T*>(buffer); }
  // An argument pointer to a temporary, as its values.
  KOPS_HD KOPS_INLINE static const value_type* values(const T* p) { return reinterpret_cast<const value_type*>(p); }
};

// Element e of argument I, in the compute type.
template <class Pol, int I, class T>
KOPS_HD KOPS_INLINE compute_t<T> load_arg(const T* p, std::int64_t e) {
  if constexpr (computed_slot_v<Pol, T, I>) return temporary_slot<T>::values(p)[e];
  else return compute_t<T>(p[e]);
}

// One output row (D components) from accumulator a, lane l: finalized in
// place, or, for a 16-bit output, finalized in float and rounded once.
template <class Op, class Math, int D, class Acc, class Out>
KOPS_HD KOPS_INLINE void store_row(const Acc& a, int lane, Out* row) {
  if constexpr (is_16bit_v<Out>) {
    float f[D];
    Op::template finalize<Math>(a, lane, f);
    for (int k = 0; k < D; ++k) row[k] = Out(f[k]);
  } else {
    Op::template finalize<Math>(a, lane, row);
  }
}

// The kops type of a CUDA 16-bit type (same bits, core/half.hpp), or T.
template <class T> struct storage_alias { using type = T; };
#if defined(KOPS_HAS_CUDA_HALF)
template <> struct storage_alias<__half> { using type = half; };
#endif
#if defined(KOPS_HAS_CUDA_BFLOAT16)
template <> struct storage_alias<__nv_bfloat16> { using type = bfloat16; };
#endif
template <class T> using storage_alias_t = typename storage_alias<std::remove_cv_t<T>>::type;

} // namespace kops::detail
