// The evaluation context of one GPU thread (see core/formula.hpp for what a
// context provides). Row variables and parameters are copied into registers
// once per thread; reduced-axis variables are read from the shared-memory tile
// at the current index. Every offset is a compile-time constant, so after
// inlining the arrays below are plain registers (no local memory).
//
//   load<row_cat, I, D>   row[offset_I + k]          registers
//   load<param,   I, D>   prm[offset_I + k]          registers
//   load<red_cat, I, D>   red[offset_I + k]          shared memory (red = tile row jj)
#pragma once

#include <cstdint>

#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/core/vec.hpp>
#include <kops/detail/storage.hpp>

namespace kops::cuda::detail {

// All kernels share one dynamic shared-memory symbol (same type everywhere, as
// nvcc requires of extern __shared__ arrays of the same name). Under
// kops::cuda_emulated (the kernels on CPU fibers) the running block's buffer
// comes from the emulator instead: the one hook the backend has for it.
template <class T>
__device__ KOPS_INLINE T* shared_tile() {
#if defined(KOPS_CUDA_EMULATED)
  return kops::cuda_emulated::dynamic_shared<T>();
#else
  extern __shared__ __align__(16) unsigned char kops_shared_tile[];
  return reinterpret_cast<T*>(kops_shared_tile);
#endif
}

// What a chunked formula (lowering/chunk.hpp) needs to read its wide variables
// from global memory: the arguments, the thread's row and the current index of
// the reduced axis. Empty for every other formula.
template <class K, bool = K::chunked>
struct chunk_state {};
template <class K>
struct chunk_state<K, true> {
  typename K::args_type a;
  std::int64_t row, red;
};

template <class K>
struct tile_context {
  using value_type = typename K::value_type;
  using scalar_type = typename K::value_type;
  using math = typename K::math;
  using T = value_type;
  using Sig = typename K::signature;

  T row[K::row_dims > 0 ? K::row_dims : 1];
  T prm[K::param_dims > 0 ? K::param_dims : 1];
  const T* red;
  [[no_unique_address]] chunk_state<K> chunk;

  template <category C, int I, int D>
  KOPS_HD KOPS_INLINE vec<T, D> load() const {
    constexpr int off = kops::detail::row_offset<Sig, C, I>();
    vec<T, D> out;
    for (int k = 0; k < D; ++k) {
      if constexpr (C == K::row_cat) out[k] = row[off + k];
      else if constexpr (C == category::param) out[k] = prm[off + k];
      else out[k] = red[off + k];
    }
    return out;
  }

  // Components [k0, k0 + CH) of variable I, from global memory (only chunked
  // formulas read variables this way; the layouts leave those out).
  template <category C, int I, int D, int CH>
  KOPS_HD KOPS_INLINE vec<T, CH> load_range(int k0) const {
    const std::int64_t base = C == K::row_cat ? chunk.row * D + k0 : C == category::param ? k0 : chunk.red * D + k0;
    const auto* src = chunk.a.p[I];
    vec<T, CH> out;
    for (int k = 0; k < CH; ++k) out[k] = kops::detail::load_arg<typename K::arg_policy, I>(src, base + k);
    return out;
  }
};

// dst[offset_I + k] = arg_I[r, k] for every slot I of category C (a fold over
// the signature's slots: no Hana in device code), in K's value type.
template <class K, category C, class Sig = typename K::signature> struct gather;
template <class K, category C, class... S>
struct gather<K, C, type_list<S...>> {
  using T = typename K::value_type;
  using Stored = typename K::storage_type;
  __device__ KOPS_INLINE static void row(T* dst, const Stored* const* args, std::int64_t r) {
    (one<S>(dst, args, r), ...);
  }

private:
  template <class Slot>
  __device__ KOPS_INLINE static void one(T* dst, const Stored* const* args, std::int64_t r) {
    if constexpr (!kops::detail::is_unused_slot_v<Slot>) {
      if constexpr (Slot::cat == C) {
        constexpr int D = Slot::dim;
        constexpr int off = kops::detail::row_offset<type_list<S...>, C, Slot::index>();
        const Stored* src = args[Slot::index];
#pragma unroll
        for (int k = 0; k < D; ++k)
          dst[off + k] = kops::detail::load_arg<typename K::arg_policy, Slot::index>(src, r * D + k);
      }
    }
  }
};

// Cooperative, coalesced load of reduced-axis indices [j0, j0 + len) into the
// tile, by the whole block (K::block threads): argument I's rows j0.. are
// contiguous in global memory, so consecutive threads read consecutive words.
//   arg_I:(cols, D) -> tile:(len, red_dims) at column offset_I
// 16-bit arguments are read in 16 bits (half the global traffic) and widened
// here, once per tile element: the tile, and the pair loop, stay float.
template <class K, class Sig = typename K::signature> struct tile_loader;
template <class K, class... S>
struct tile_loader<K, type_list<S...>> {
  using T = typename K::value_type;
  using Stored = typename K::storage_type;

  __device__ KOPS_INLINE static void load(T* tile, const Stored* const* args, std::int64_t j0, int len) {
    (one<S>(tile, args, j0, len), ...);
  }

private:
  template <class Slot>
  __device__ KOPS_INLINE static void one(T* tile, const Stored* const* args, std::int64_t j0, int len) {
    if constexpr (!kops::detail::is_unused_slot_v<Slot>) {
      if constexpr (Slot::cat == K::red_cat) {
        constexpr int D = Slot::dim;
        constexpr int off = kops::detail::row_offset<type_list<S...>, K::red_cat, Slot::index>();
        const Stored* src = args[Slot::index];
        for (int e = int(threadIdx.x); e < len * D; e += K::block) {
          const int jj = e / D;
          tile[jj * K::red_dims + off + (e - jj * D)] =
              kops::detail::load_arg<typename K::arg_policy, Slot::index>(src, j0 * D + e);
        }
      }
    }
  }
};

} // namespace kops::cuda::detail
