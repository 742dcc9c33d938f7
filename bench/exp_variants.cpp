// Which accurate exp can the CPU's default policy afford?  The 3-D Gaussian sum
// a_i = sum_j exp(-g |x_i - y_j|^2) b_j on one core, float32, AVX-512, written as
// the CPU backend's inner loop (two packs of 16 rows, y_j broadcast) with the
// exponential swapped between variants, beside the hand loop of hand_loop.cpp
// (the "physical limit" of docs/performance.md: g log2 e folded into the
// coordinates, degree-5 exp2).  Per variant: time, ratio to the hand loop, and
// the measured max error in ulp of its e^(-g d) against the exact value (a sweep
// of d with results down to the subnormals) and whether it gets the IEEE special
// values (d = +-inf, NaN, huge).
//
//   g++ -O3 -march=native -std=c++20 -Iinclude bench/exp_variants.cpp -o build/exp_variants
//   taskset -c 0 build/exp_variants            # docs/performance.md quotes a run
//
// Needs AVX-512F+DQ (vrange, vreduce).  Not built by CMake: a measurement
// behind one paragraph of the docs, run by hand.
#include <kops/backends/kokkos/simd_math.hpp>

#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "bench/exp_variants.cpp needs AVX-512F and AVX-512DQ (-march=native on such a host)"
#endif

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

// Intrinsics through simd_math.hpp's full-mask wrappers (kd::avx512::scalef,
// rint, frac) or their _mask_ forms: g++ 12's unmasked ones start from
// _mm512_undefined_ps and warn -Wmaybe-uninitialized once inlined.
namespace {

using V = __m512;
V S(float a) { return _mm512_set1_ps(a); }
namespace kd = kops::simd::detail;
using v16 = kd::avx512::v16sf;

constexpr float kLhi = 0x1.715476p+0f, kLlo = 1.925962991127e-8f;  // log2 e = kLhi + kLlo

// --- the exponentials ---------------------------------------------------------
// hand: 2^t on pre-scaled arguments, degree-5 polynomial (hand_loop.cpp).
V exp2_hand(V t) {
  V n = V(kd::avx512::rint(v16(t)));
  V r = _mm512_sub_ps(t, n);
  V p = _mm512_fmadd_ps(S(0.0013390863314270973f), r, S(0.009676031768321991f));
  p = _mm512_fmadd_ps(p, r, S(0.055503569543361664f));
  p = _mm512_fmadd_ps(p, r, S(0.2402210682630539f));
  p = _mm512_fmadd_ps(p, r, S(0.6931471824645996f));
  p = _mm512_fmadd_ps(p, r, S(1.0000001192092896f));
  return V(kd::avx512::scalef(v16(p), v16(n)));
}

// poly6: the accurate exp of kops before the table (commit a3adcab): x log2 e as
// u + e, vreduce, degree-6 polynomial on [-1/2, 1/2], vrange for the specials.
V exp_poly6(V x) {
  const V u = _mm512_mul_ps(x, S(kLhi));
  V e = _mm512_fmadd_ps(x, S(kLlo), _mm512_fmsub_ps(x, S(kLhi), u));
  e = _mm512_mask_range_ps(e, 0xffff, e, S(0x1p-10f), 0x2);
  const V f = V(kd::avx512::frac(v16(u)));
  const V n = _mm512_sub_ps(u, f);
  const V s = _mm512_add_ps(f, e);
  V p = _mm512_fmadd_ps(S(0x1.416b44p-13f), s, S(0x1.5f0830p-10f));
  p = _mm512_fmadd_ps(p, s, S(0x1.3b2de0p-7f));
  p = _mm512_fmadd_ps(p, s, S(0x1.c6af7cp-5f));
  p = _mm512_fmadd_ps(p, s, S(0x1.ebfbdcp-3f));
  p = _mm512_fmadd_ps(p, s, S(0x1.62e430p-1f));
  p = _mm512_fmadd_ps(p, s, S(1.0f));
  return V(kd::avx512::scalef(v16(p), v16(n)));
}

// table1: a 32-entry table of 2^(j/32) rounded to float (one vpermt2ps), result
// fma(T, q, T); with or without the vrange that keeps the special values.
struct Table1 {
  V lo, hi;
  Table1() {
    alignas(64) float t[32];
    for (int j = 0; j < 32; ++j) t[j] = float(std::exp2l(j / 32.0L));
    lo = _mm512_load_ps(t);
    hi = _mm512_load_ps(t + 16);
  }
};
template <bool range>
V exp2dd_table1(const Table1& T, V x, V mhi, V mlo) {
  const V magic = S(0x1.8p18f);
  const V v = _mm512_fmadd_ps(x, mhi, magic);
  const V k = _mm512_sub_ps(v, magic);
  V r = _mm512_fmadd_ps(x, mlo, _mm512_fmsub_ps(x, mhi, k));
  if constexpr (range) r = _mm512_mask_range_ps(r, 0xffff, r, S(0x1p-5f), 0x2);
  V q = _mm512_fmadd_ps(r, S(0x1.c6b08ep-5f), S(0x1.ebfbep-3f));
  q = _mm512_fmadd_ps(q, r, S(0x1.62e43p-1f));
  q = _mm512_mul_ps(q, r);
  const V t = _mm512_permutex2var_ps(T.lo, _mm512_castps_si512(v), T.hi);
  return V(kd::avx512::scalef(v16(_mm512_fmadd_ps(t, q, t)), v16(k)));
}

struct Input {
  std::int64_t M, N;
  std::vector<float> x, y, b;
  float g;
};

// The Gaussian sum with one of the exponentials: two packs of 16 rows per block,
// y_j and b_j broadcast. Kind: how the argument reaches the exp.
enum class arg { prescaled, times_minus_g, scaled };
template <arg A, class Exp>
void gauss(const Input& in, float* out, Exp ex) {
  constexpr int K = 2;
  const std::int64_t M = in.M, N = in.N;
  const float s = A == arg::prescaled ? std::sqrt(in.g * 1.4426950408889634f) : 1.0f;
  std::vector<float> Y(4 * N);
  for (std::int64_t j = 0; j < N; ++j) {
    for (int c = 0; c < 3; ++c) Y[4 * j + c] = s * in.y[3 * j + c];
    Y[4 * j + 3] = in.b[j];
  }
  // -g log2 e = mhi + mlo, as kops' exp_scaled forms it (simd_math.hpp).
  const float mhi = -in.g * kLhi;
  const float mlo = std::fma(-in.g, kLlo, std::fma(-in.g, kLhi, -mhi));
  for (std::int64_t i0 = 0; i0 < M; i0 += 16 * K) {
    V x0[K], x1[K], x2[K], acc[K];
    for (int k = 0; k < K; ++k) {
      alignas(64) float t[3][16];
      for (int l = 0; l < 16; ++l) {
        const std::int64_t i = std::min<std::int64_t>(i0 + k * 16 + l, M - 1);
        for (int c = 0; c < 3; ++c) t[c][l] = s * in.x[3 * i + c];
      }
      x0[k] = _mm512_load_ps(t[0]);
      x1[k] = _mm512_load_ps(t[1]);
      x2[k] = _mm512_load_ps(t[2]);
      acc[k] = _mm512_setzero_ps();
    }
    const V mg = S(-in.g), vmhi = S(mhi), vmlo = S(mlo);
    for (std::int64_t j = 0; j < N; ++j) {
      const float* p = &Y[4 * j];
#pragma GCC unroll 2
      for (int k = 0; k < K; ++k) {
        const V dx = _mm512_sub_ps(x0[k], S(p[0])), dy = _mm512_sub_ps(x1[k], S(p[1])),
                dz = _mm512_sub_ps(x2[k], S(p[2]));
        V e;
        if constexpr (A == arg::prescaled) {
          V t = _mm512_fnmadd_ps(dx, dx, _mm512_setzero_ps());
          t = _mm512_fnmadd_ps(dy, dy, t);
          t = _mm512_fnmadd_ps(dz, dz, t);
          e = ex(t);
        } else {
          V d = _mm512_mul_ps(dy, dy);
          d = _mm512_fmadd_ps(dx, dx, d);
          d = _mm512_fmadd_ps(dz, dz, d);
          if constexpr (A == arg::times_minus_g) e = ex(_mm512_mul_ps(d, mg), mg);
          else e = ex(d, mg, vmhi, vmlo);
        }
        acc[k] = _mm512_fmadd_ps(e, S(p[3]), acc[k]);
      }
    }
    for (int k = 0; k < K; ++k) {
      alignas(64) float t[16];
      _mm512_store_ps(t, acc[k]);
      for (int l = 0; l < 16 && i0 + k * 16 + l < M; ++l) out[i0 + k * 16 + l] = t[l];
    }
  }
}

// Max error in ulp of e^(-g d), computed the row's way from d, against the exact
// value: d = x / (-g) for every 61st float x in [-104, 89] (both signs, results
// down to the subnormals); and the specials d = +-inf, NaN, +-1e30, 0.
struct Accuracy {
  double max_ulp = 0;
  bool specials = true;
};
double ulp_err(float got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : 1e9;
  if (ref > 0x1.fffffep127L) return std::isinf(got) ? 0 : 1e9;
  int e;
  std::frexp((double)ref, &e);
  const long double u = std::ldexp(1.0L, std::max(e - 24, -149));
  return double(std::fabs((long double)got - ref) / u);
}
template <class ExpOfD>
Accuracy accuracy(float g, ExpOfD f) {
  Accuracy a;
  alignas(64) float in[16], out[16];
  std::vector<float> ds;
  for (std::uint32_t bits = 0; bits < 0x42d00000u; bits += 61) {
    float v;
    std::memcpy(&v, &bits, 4);
    if (v < 89.0f) ds.push_back(v / -g);
    if (v < 104.0f) ds.push_back(-v / -g);
  }
  for (std::size_t i = 0; i < ds.size(); i += 16) {
    for (int l = 0; l < 16; ++l) in[l] = ds[std::min(i + l, ds.size() - 1)];
    _mm512_store_ps(out, f(_mm512_load_ps(in)));
    for (int l = 0; l < 16; ++l)
      a.max_ulp = std::max(a.max_ulp, ulp_err(out[l], std::exp(-(long double)g * in[l])));
  }
  const float inf = INFINITY;
  const float sd[] = {inf, -inf, NAN, 1e30f, -1e30f, 0.0f};
  for (float d : sd) {
    _mm512_store_ps(out, f(S(d)));
    const float want = std::exp(-g * d);
    a.specials = a.specials && (std::isnan(want) ? std::isnan(out[0]) : out[0] == want);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  Input in;
  in.M = in.N = argc > 1 ? std::atoll(argv[1]) : 20000;
  // Not a power of two, so that -g d is rounded where the product is formed (as for
  // most user scales); the exp ranges over about [e^-5, 1].
  in.g = 1.7f;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  in.x.resize(3 * in.M);
  in.y.resize(3 * in.N);
  in.b.resize(in.N);
  for (auto& v : in.x) v = u(gen);
  for (auto& v : in.y) v = u(gen);
  for (auto& v : in.b) v = u(gen);
  const Table1 t1;

  struct Row {
    const char* name;
    const char* what;
    double best = 1e30;
    Accuracy acc;
    std::vector<float> out;
  };
  std::vector<Row> rows(7);
  auto run = [&](int r, auto fn) {
    auto t0 = std::chrono::steady_clock::now();
    fn(rows[r].out.data());
    rows[r].best = std::min(rows[r].best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  auto name = [&](int r, const char* n, const char* w) {
    rows[r].name = n;
    rows[r].what = w;
    rows[r].out.resize(in.M);
  };
  name(0, "hand", "hand_loop.cpp: g log2 e folded into the coordinates, degree-5 exp2 (~1.6 ulp + |x| ulp)");
  name(1, "poly6", "kops accurate before: x = -g d, degree-6 polynomial on [-1/2, 1/2]");
  name(2, "table2", "x = -g d, 32-entry double-float table, degree 3 (kops vexp)");
  name(3, "table2-scaled", "d (-g log2 e as two floats), double-float table (kops vexp_scaled: the accurate policy now)");
  name(4, "table1-scaled", "as table2-scaled with a float table (one vpermt2ps, no add)");
  name(5, "table1-scaled-norange", "as table1-scaled without the vrange that keeps the special values");
  name(6, "fast", "kops precision::fast: vexp2_fast(d (-g log2 e)), -g log2 e one float (~1.6 ulp + |x| ulp)");

  for (int rep = 0; rep < 5; ++rep) {
    run(0, [&](float* o) { gauss<arg::prescaled>(in, o, [](V t) { return exp2_hand(t); }); });
    run(1, [&](float* o) { gauss<arg::times_minus_g>(in, o, [](V x, V) { return exp_poly6(x); }); });
    run(2, [&](float* o) { gauss<arg::times_minus_g>(in, o, [](V x, V) { return V(kd::avx512::exp(v16(x))); }); });
    run(3, [&](float* o) {
      gauss<arg::scaled>(in, o, [](V d, V mg, V, V) { return V(kd::avx512::exp_scaled(v16(d), v16(mg))); });
    });
    run(4, [&](float* o) {
      gauss<arg::scaled>(in, o, [&](V d, V, V mhi, V mlo) { return exp2dd_table1<true>(t1, d, mhi, mlo); });
    });
    run(5, [&](float* o) {
      gauss<arg::scaled>(in, o, [&](V d, V, V mhi, V mlo) { return exp2dd_table1<false>(t1, d, mhi, mlo); });
    });
    run(6, [&](float* o) {
      gauss<arg::scaled>(in, o, [](V d, V, V mhi, V) { return V(kd::vexp2_fast(v16(_mm512_mul_ps(d, mhi)))); });
    });
  }
  {
    const float g = in.g;
    const float mhi = -g * kLhi, mlo = std::fma(-g, kLlo, std::fma(-g, kLhi, -mhi));
    const V mg = S(-g), vmhi = S(mhi), vmlo = S(mlo), fast_m = S(-g * 1.4426950408889634f);
    rows[0].acc = accuracy(g, [&](V d) { return exp2_hand(_mm512_mul_ps(d, fast_m)); });
    rows[1].acc = accuracy(g, [&](V d) { return exp_poly6(_mm512_mul_ps(d, mg)); });
    rows[2].acc = accuracy(g, [&](V d) { return V(kd::avx512::exp(v16(_mm512_mul_ps(d, mg)))); });
    rows[3].acc = accuracy(g, [&](V d) { return V(kd::avx512::exp_scaled(v16(d), v16(mg))); });
    rows[4].acc = accuracy(g, [&](V d) { return exp2dd_table1<true>(t1, d, vmhi, vmlo); });
    rows[5].acc = accuracy(g, [&](V d) { return exp2dd_table1<false>(t1, d, vmhi, vmlo); });
    rows[6].acc = accuracy(g, [&](V d) { return V(kd::vexp2_fast(v16(_mm512_mul_ps(d, fast_m)))); });
  }
  // Rows that round -g d (or -g d log2 e) before the exp: their error grows with
  // |g d| (up to 104 in the sweep); the benchmark's arguments stay in [-5.1, 0].

  std::printf("3-D Gaussian sum, float32, one thread, N = M = %lld, g = %g; best of 5\n\n", (long long)in.M, in.g);
  std::printf("| variant | time | vs hand loop | exp max error (ulp) | IEEE specials | max rel. diff. of the sums vs table2-scaled | what |\n");
  std::printf("|---|---:|---:|---:|---|---:|---|\n");
  for (const auto& r : rows) {
    double diff = 0;
    for (std::int64_t i = 0; i < in.M; ++i)
      diff = std::max(diff, std::fabs(double(r.out[i]) - rows[3].out[i]) / std::fabs(double(rows[3].out[i])));
    std::printf("| %s | %.4f s | %.3f | %.3f | %s | %.1e | %s |\n", r.name, r.best, rows[0].best / r.best,
                r.acc.max_ulp, r.acc.specials ? "yes" : "no", diff, r.what);
  }
  return 0;
}
