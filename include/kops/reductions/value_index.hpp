#pragma once

#include <cstdint>

namespace kops {

/// value_index<T>: one output component of the reductions that return a value
/// and its index together (min_argmin, max_argmax, kmin_argkmin). The output
/// buffer is an array of these, (rows, dim) row-major like every other output:
/// ```text
///   kops::value_index<float> out[M * dim];  out[i * dim + k].value / .index
/// ```
/// Indices are std::int64_t, never floats.
template <class T>
struct value_index {
  /// The value (the minimum, maximum or k-th smallest).
  T value;
  /// Its index on the reduced axis (the first one on ties; -1 for an empty range).
  std::int64_t index;
};

} // namespace kops
