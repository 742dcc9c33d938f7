// floor and round on packs, exact, on the bits: vfloor, vround.
#pragma once

#include <limits>

#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/config.hpp>

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

// x rounded to the nearest integer by the copysign(2^p, x) addition (p = 23 / 52: the
// sum has no fraction bits left), for lanes with |x| < 2^p; the result is never -0.
// (The barriers keep (x + c) - c from being folded to x under -ffast-math.)
template <class VT>
KOPS_INLINE VT round_small(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  constexpr E two_p = sizeof(E) == 4 ? E(0x1p23) : E(0x1p52);
  const VT c = vbits<VT>(vsplat<IV>(vbits<I>(two_p)) | (vbits<IV>(x) & std::numeric_limits<I>::min()));
  return opaque(opaque(x + c) - c);
}

// All-ones in the lanes where |x| < 2^23 (2^52): lanes that may have a fraction
// (not inf, not NaN).
template <class VT>
KOPS_INLINE typename vec_traits<VT>::ivec may_have_fraction(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  constexpr E two_p = sizeof(E) == 4 ? E(0x1p23) : E(0x1p52);
  return vlt_mask(vbits<IV>(x) & std::numeric_limits<I>::max(), vsplat<IV>(vbits<I>(two_p)));
}

// floor x, exact, on the bits (no conversion to integers, so any magnitude works
// and no float compare is folded under -ffast-math): r = nearest integer, minus 1
// where r > x; lanes with |x| >= 2^23 (2^52), inf and NaN are returned as they are.
// The sign bit of x is put back, so floor(-0) = -0 (every other result already has
// the sign of x).
template <class VT>
KOPS_INLINE VT vfloor(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  const IV ix = vbits<IV>(x);
  const VT r = round_small(x);
  // r - x is exact (|r - x| <= 1/2) and never -0 (r is never -0): its bits, as a
  // signed integer, are > 0 exactly when r > x.
  const IV above = vlt_mask(IV{}, vbits<IV>(r - x));
  const VT f = r - vbits<VT>(above & vbits<I>(E(1)));
  const IV res = vblend(may_have_fraction(x), vbits<IV>(f), ix);
  return vbits<VT>(res | (ix & std::numeric_limits<I>::min()));
}

// Nearest integer with halfway cases away from zero (C round): on a = |x|,
// t = floor(a), plus 1 where a - t >= 1/2 (a - t is exact), with the sign of x.
// Lanes with |x| >= 2^23 (2^52), inf and NaN are returned as they are.
template <class VT>
KOPS_INLINE VT vround(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  const IV ix = vbits<IV>(x);
  const VT a = vbits<VT>(ix & std::numeric_limits<I>::max());
  const VT r = round_small(a);
  const IV above = vlt_mask(IV{}, vbits<IV>(r - a));
  const VT t = r - vbits<VT>(above & vbits<I>(E(1)));
  // a - t in [0, 1): non-negative, so its bits order like its value.
  const IV half_up = ~vlt_mask(vbits<IV>(a - t), vsplat<IV>(vbits<I>(E(0.5))));
  const VT u = t + vbits<VT>(half_up & vbits<I>(E(1)));
  const IV res = vblend(may_have_fraction(x), vbits<IV>(u), ix);
  return vbits<VT>(res | (ix & std::numeric_limits<I>::min()));
}

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
