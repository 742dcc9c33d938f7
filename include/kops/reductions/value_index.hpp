#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <kops/config.hpp>

namespace kops {

/// value_index<T>: one output component of the reductions that return a value
/// and its index together (min_argmin, max_argmax, kmin_argkmin). The output
/// buffer is an array of these, (rows, dim) row-major like every other output:
/// ```text
///   kops::value_index<float> out[M * dim];  out[i * dim + k].value / .index
/// ```
/// Indices are std::int64_t, never floats. min_argmin and max_argmax write
/// every byte of an element (the 4 padding bytes of value_index<float> as
/// zeros), so memory checkers (compute-sanitizer initcheck, MSan) see no
/// uninitialised byte; kmin_argkmin does so on the GPU only (on the CPU it
/// writes the two members, see reductions/detail/ksmallest.hpp).
template <class T>
struct value_index {
  /// The value (the minimum, maximum or k-th smallest).
  T value;
  /// Its index on the reduced axis (the first one on ties; -1 for an empty range).
  std::int64_t index;
};

namespace detail {

// The host half of store_value_index: the element assembled in zeroed words
// and copied out whole. Out of line on purpose: inlined into the Kokkos
// backend's SIMD-pack loop, any byte-wise store to the element (memcpy,
// memset, a byte loop) made g++ 12 (-O1, -O2) delete the whole loop of stores,
// as a braced store of SIMD lanes did before; a call per output element costs
// nothing next to the reduction that produced it.
template <class T>
[[gnu::noinline]] void store_value_index_host(value_index<T>* out, T value, std::int64_t index) {
  using E = value_index<T>;
  std::uint64_t words[sizeof(E) / 8] = {};
  memcpy(reinterpret_cast<unsigned char*>(words) + offsetof(E, value), &value, sizeof value);
  memcpy(reinterpret_cast<unsigned char*>(words) + offsetof(E, index), &index, sizeof index);
  memcpy(static_cast<void*>(out), words, sizeof words);
}

// *out = {value, index} with every byte written, the padding between the
// members (4 bytes in value_index<float>) as zeros. Member stores would leave
// the padding as it was, and a braced temporary's padding is unspecified.
template <class T, class V>
KOPS_HD KOPS_INLINE void store_value_index(value_index<T>* out, const V& value, std::int64_t index) {
  using E = value_index<T>;
  static_assert(sizeof(E) % 8 == 0 && alignof(E) == 8, "kops::value_index: whole 8-byte words");
  const T v = value;
#if defined(__CUDA_ARCH__)
  // 8-byte stores of the assembled words, as CUDA code writes vectors (nvcc
  // turns a memcpy to an address of unknown alignment into byte stores).
  std::uint64_t words[sizeof(E) / 8] = {};
  memcpy(reinterpret_cast<unsigned char*>(words) + offsetof(E, value), &v, sizeof v);
  memcpy(reinterpret_cast<unsigned char*>(words) + offsetof(E, index), &index, sizeof index);
  auto* const dst = reinterpret_cast<std::uint64_t*>(out);
  for (std::size_t k = 0; k < sizeof(E) / 8; ++k) dst[k] = words[k];
#else
  store_value_index_host(out, v, index);
#endif
}

} // namespace detail
} // namespace kops
