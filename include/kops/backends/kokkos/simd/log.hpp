// Natural log on packs: vlog.
#pragma once

#include <cstdint>

#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/config.hpp>

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

// Natural log.  Subnormal x are first scaled by 2^25 (float) / 2^54 (double).
// Then x = 2^k * m with m in [sqrt(2)/2, sqrt(2)) (integer arithmetic on the bits),
// f = m - 1 in [-0.293, 0.415], log x = k*ln2 + log1p(f), ln2 = ln2_hi + ln2_lo.
// float : log1p(f) = f - f^2/2 + f^3*P(f), P the degree-8 Cephes logf polynomial.
// double: s = f/(2+f), log1p(f) = f - hfsq + s*(hfsq + R(s^2)), hfsq = f^2/2,
//         R the degree-14 (7 in s^2) fdlibm/musl minimax polynomial, |s| <= 0.1716.
// Special lanes are patched on the bit pattern: log(+inf) = +inf, log(NaN) = NaN,
// log(x < 0) = NaN (also -inf), log(+-0) = -inf; log(1) = +0 falls out exactly.
template <class VT>
KOPS_INLINE VT vlog(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using IV = typename Tr::ivec;
  using U = typename Tr::uelem;
  using UV = typename Tr::uvec;
  const IV ix = vbits<IV>(x);
  VT res;
  if constexpr (sizeof(E) == 4) {
    const IV sub = vlt_mask(ix, vsplat<IV>(0x00800000));  // subnormal (or <= 0: patched)
    const VT xs = vblend(sub, x * E(0x1p25), x);
    // wraps for +inf / NaN / negative x (patched below): unsigned addition
    const IV iy = vbits<IV>(vbits<UV>(xs) + U(0x3f800000 - 0x3f3504f3));
    const IV k = (iy >> 23) - 0x7f - (sub & 25);
    const VT f = vbits<VT>((iy & 0x007fffff) + 0x3f3504f3) - E(1);
    const VT kf = __builtin_convertvector(k, VT);
    const VT z = f * f;
    VT p = vsplat<VT>(E(7.0376836292e-2));
    p = p * f + E(-1.1514610310e-1);
    p = p * f + E(1.1676998740e-1);
    p = p * f + E(-1.2420140846e-1);
    p = p * f + E(1.4249322787e-1);
    p = p * f + E(-1.6668057665e-1);
    p = p * f + E(2.0000714765e-1);
    p = p * f + E(-2.4999993993e-1);
    p = p * f + E(3.3333331174e-1);
    VT t = opaque((f * z) * p + kf * E(-2.12194440e-4));
    t = opaque(t - E(0.5) * z);
    res = opaque(f + t) + kf * E(0.693359375);
    // The masks may be wrong on lanes that a later line overrides (wrapping
    // differences for negative ix), never on the lanes they decide.
    IV ri = vbits<IV>(res);
    ri = vblend(~vlt_mask(ix, vsplat<IV>(0x7f800000)), vbits<IV>(x + x), ri);  // +inf, +NaN
    ri = vblend(ix >> 31, vsplat<IV>(0x7fc00000), ri);  // x < 0, -NaN: NaN
    ri = vblend(vlt_mask(ix & 0x7fffffff, vsplat<IV>(1)), vsplat<IV>(std::int32_t(0xff800000u)),
                ri);  // +-0: -inf
    return vbits<VT>(ri);
  } else {
    const IV sub = vlt_mask(ix, vsplat<IV>(0x0010000000000000));
    const VT xs = vblend(sub, x * E(0x1p54), x);
    const IV iy = vbits<IV>(vbits<UV>(xs) + U(0x3ff0000000000000 - 0x3fe6a09e667f3bcd));
    const IV k = (iy >> 52) - 0x3ff - (sub & 54);
    const VT f = vbits<VT>((iy & 0x000fffffffffffff) + 0x3fe6a09e667f3bcd) - E(1);
    // int64 -> double for |k| < 2^51 without needing AVX-512DQ
    const VT kf = vbits<VT>(k + 0x4338000000000000) - E(0x1.8p52);
    const VT hfsq = E(0.5) * f * f;
    const VT s = f / (E(2) + f);
    const VT z = s * s;
    const VT w = z * z;
    const VT t1 = w * (E(3.999999999940941908e-01) +
                       w * (E(2.222219843214978396e-01) + w * E(1.531383769920937332e-01)));
    const VT t2 = z * (E(6.666666666666735130e-01) +
                       w * (E(2.857142874366239149e-01) +
                            w * (E(1.818357216161805012e-01) + w * E(1.479819860511658591e-01))));
    const VT R = t2 + t1;
    VT t = opaque(s * (hfsq + R) + kf * E(1.90821492927058770002e-10));
    t = opaque(t - hfsq);
    res = opaque(t + f) + kf * E(6.93147180369123816490e-01);
    IV ri = vbits<IV>(res);
    ri = vblend(~vlt_mask(ix, vsplat<IV>(0x7ff0000000000000)), vbits<IV>(x + x), ri);
    ri = vblend(ix >> 63, vsplat<IV>(std::int64_t(0x7ff8000000000000)), ri);
    ri = vblend(vlt_mask(ix & 0x7fffffffffffffff, vsplat<IV>(1)),
                vsplat<IV>(std::int64_t(0xfff0000000000000u)), ri);
    return vbits<VT>(ri);
  }
}

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
