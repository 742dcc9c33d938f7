// Batch dimensions: B independent problems of the same M and N in one call.
//
//   eval(red, M, N, out, per_batch(px), py, per_batch(pb), pg, kops::batch{B})
//
// An argument wrapped in kops::per_batch has a leading batch axis: batch b
// reads its rows at ptr + b * rows * D (rows = M for an i-variable, N for a
// j-variable) and a parameter at ptr + b * D. A plain pointer is shared: every
// batch reads the same array (broadcast). The output is (B, rows, dim): batch
// b's rows at out + b * rows * dim. With batch_output::sum the output is
// (rows, dim), the sum over the batches of what each would write (the
// gradient with respect to a shared argument is the sum of the batches'
// gradients). B = 0 writes nothing; B < 0 is a kops::error.
//
// How batch b's result relates to a plain call: it is the call with each
// per-batch pointer advanced to batch b (and the shared ones as given),
// computed in the same order, so bit for bit the same where the backend's
// plan for the call is the same (docs/concepts.md "Batches").
#pragma once

#include <cstdint>

namespace kops {

/// What a batched call writes: every batch's output, or their sum.
enum class batch_output : std::int8_t {
  each,  ///< out: (B, rows, dim), batch after batch
  sum,   ///< out: (rows, dim), the sum over the batches (value reductions only)
};

/// The batch option of an eval call: B problems of the same sizes (file comment).
struct batch {
  std::int64_t count = 1;
  batch_output output = batch_output::each;
};

/// An argument with a leading batch axis (made by kops::per_batch).
template <class T>
struct per_batch_arg {
  const T* ptr = nullptr;
};

/// Marks `p` as holding one array per batch: batch b at p + b * rows * D (a
/// parameter: p + b * D). Arguments not so marked are shared by every batch.
template <class T>
constexpr per_batch_arg<T> per_batch(const T* p) noexcept {
  return {p};
}

} // namespace kops
