// Vectorisable exp / log / sin / cos (and floor, round, float pow) on GCC/Clang
// vector-extension packs, one header per family under simd/ (all in namespace
// kops::simd::detail):
//   simd/common.hpp       vec_traits, vbits, vsplat, vblend, masks, opaque, clamps, NaN
//                         patching; the conventions every function follows
//   simd/x86.hpp          the intrinsics headers and x86_clamp (KOPS_SIMD_X86, config.hpp)
//   simd/avx512.hpp       namespace avx512: one-register types and intrinsic wrappers;
//                         avx512_reg (KOPS_SIMD_AVX512, config.hpp)
//   simd/exp_generic.hpp  vexp_generic, vexp2_generic, vexp2_fast_generic, exp2_poly
//   simd/exp_avx512.hpp   avx512::exp2_dd (table-driven), exp, exp_scaled, exp2
//   simd/exp.hpp          vexp, vexp_scaled, vexp2, vexp2_fast, vexp_fast (ISA dispatch)
//   simd/log.hpp          vlog
//   simd/trig.hpp         vsin, vcos
//   simd/round.hpp        vfloor, vround
//   simd/pow.hpp          vpow (float packs)
#pragma once

#include <kops/backends/kokkos/simd/avx512.hpp>
#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/backends/kokkos/simd/exp.hpp>
#include <kops/backends/kokkos/simd/exp_avx512.hpp>
#include <kops/backends/kokkos/simd/exp_generic.hpp>
#include <kops/backends/kokkos/simd/log.hpp>
#include <kops/backends/kokkos/simd/pow.hpp>
#include <kops/backends/kokkos/simd/round.hpp>
#include <kops/backends/kokkos/simd/trig.hpp>
#include <kops/backends/kokkos/simd/x86.hpp>
