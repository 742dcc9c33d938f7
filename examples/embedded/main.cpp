// A compile-time-fixed kops kernel inside a time-stepping loop: a softened
// gravitational N-body simulation, the way an HPC code embeds kops. The force
// formula is a constexpr value whose type is the kernel (no JIT, no formula
// string, nothing built at run time), and the time loop allocates nothing: the
// example counts every call of the global operator new and checks it.
//
// The math (G = 1, total mass 1). Each particle feels the acceleration
//
//   a_i = sum_j m_j (x_j - x_i) / (|x_i - x_j|^2 + eps^2)^(3/2)
//
// (the j = i term is 0), one kops sum reduction over j per step. The potential
// phi_i = sum_j m_j / sqrt(|x_i - x_j|^2 + eps^2) (a second reduction; its j = i
// term m_i / eps is removed below) gives the energy
//   E = sum_i m_i |v_i|^2 / 2 - sum_i m_i (phi_i - m_i / eps) / 2.
// Integration: leapfrog, kick-drift-kick (v += a dt/2; x += v dt; new a; v += a dt/2),
// symplectic, so E oscillates at O(dt^2) instead of drifting; the pair forces
// are antisymmetric, so the total momentum sum_i m_i v_i is conserved up to rounding.
//
// Self-check (exit code 0 only if all hold):
//   1. no operator new during the time loop after its first step;
//   2. |E(t) - E(0)| / |E(0)| <= 1e-4 at every energy sample (every 25 steps and the last);
//   3. |P(end) - P(0)| <= 1e-12 sum_i m_i |v_i| (P the total momentum);
//   4. the accelerations of the last step equal a direct double loop, each
//      component within 1e-12 of sum_j |term| (the scale of the rounding of a sum).
//
// Build and run: it is built with the examples (cmake -DKOPS_BUILD_EXAMPLES=ON,
// targets embedded and, in the embedded profile of docs/embedded.md,
// embedded_noexcept: -fno-exceptions, and -fno-rtti with Kokkos >= 4; ctest -L
// example runs both), or by hand from the repository root:
//   g++ -std=c++20 -O2 -march=native -Iinclude -isystem /usr/include/trilinos
//       examples/embedded/main.cpp -ltrilinos_kokkoscore -ldl -o embedded
//   ./embedded [N] [steps]          (default N = 1000 particles, 300 steps)
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

// Every allocation of the program goes through these (the deallocations and
// the array and nothrow forms of new call them by default): count them.
namespace {
std::atomic<std::int64_t> allocations{0};
// Out of memory: std::bad_alloc, or, built without exceptions (the embedded
// profile, target embedded_noexcept), a message and abort.
[[noreturn]] void out_of_memory() {
#if defined(__cpp_exceptions)
  throw std::bad_alloc();
#else
  std::fputs("embedded: out of memory\n", stderr);
  std::abort();
#endif
}
} // namespace
void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  out_of_memory();
}
void* operator new(std::size_t n, std::align_val_t al) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(al);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  out_of_memory();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

constexpr auto x = kops::vi<0, 3>;     // positions as rows i, (N, 3)
constexpr auto y = kops::vj<1, 3>;     // the same positions as columns j, (N, 3)
constexpr auto m = kops::vj<2, 1>;     // masses m_j, (N, 1)
constexpr auto eps2 = kops::pm<3, 1>;  // softening eps^2, (1)
constexpr auto inv_r = kops::rsqrt(kops::sqdist(x, y) + eps2);
constexpr auto accel = kops::sum_reduction(m * (y - x) * kops::pow<3>(inv_r), kops::axis_j);  // (N, 3)
constexpr auto potential = kops::sum_reduction(m * inv_r, kops::axis_j);                      // (N, 1)
static_assert(decltype(accel)::dim == 3 && decltype(potential)::dim == 1);  // the kernel is a type

double energy(const std::vector<double>& pos, const std::vector<double>& vel, const std::vector<double>& mass,
              double eps, std::vector<double>& phi) {
  const std::int64_t N = std::int64_t(mass.size());
  const double e2 = eps * eps;
  kops::kokkos::eval(potential, N, N, phi.data(), pos.data(), pos.data(), mass.data(), &e2);
  double kinetic = 0, pot = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    const double* v = &vel[3 * i];
    kinetic += 0.5 * mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    pot -= 0.5 * mass[i] * (phi[i] - mass[i] / eps);
  }
  return kinetic + pot;
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t N = argc > 1 ? std::atoll(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 300;
  if (N < 2 || steps < 1) {
    std::fprintf(stderr, "usage: embedded [N >= 2] [steps >= 1]\n");
    return 2;
  }
  const double eps = 0.05, dt = 0.005;

  // A uniform ball of radius 1 with random velocities scaled to virial
  // equilibrium (kinetic = |potential| / 2), the centre of mass at rest.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<double> pos(3 * N), vel(3 * N), acc(3 * N), mass(N, 1.0 / double(N)), phi(N);
  for (std::int64_t i = 0; i < N; ++i) {
    double* p = &pos[3 * i];
    do { p[0] = u(rng), p[1] = u(rng), p[2] = u(rng); } while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 1);
    for (int k = 0; k < 3; ++k) vel[3 * i + k] = gauss(rng);
  }
  for (int k = 0; k < 3; ++k) {
    double mean = 0;
    for (std::int64_t i = 0; i < N; ++i) mean += vel[3 * i + k] / double(N);
    for (std::int64_t i = 0; i < N; ++i) vel[3 * i + k] -= mean;
  }
  const std::vector<double> still(3 * N, 0.0);
  const double u0 = energy(pos, still, mass, eps, phi), t0_kin = energy(pos, vel, mass, eps, phi) - u0;
  for (double& v : vel) v *= std::sqrt(-0.5 * u0 / t0_kin);

  auto momentum = [&](double (&P)[3]) {
    double scale = 0;
    P[0] = P[1] = P[2] = 0;
    for (std::int64_t i = 0; i < N; ++i) {
      const double* v = &vel[3 * i];
      for (int k = 0; k < 3; ++k) P[k] += mass[i] * v[k];
      scale += mass[i] * std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    return scale;
  };
  double P0[3], P1[3];
  momentum(P0);
  const double E0 = energy(pos, vel, mass, eps, phi);
  const double e2 = eps * eps;
  kops::kokkos::eval(accel, N, N, acc.data(), pos.data(), pos.data(), mass.data(), &e2);

  // The time loop: one reduction per step and one per energy sample, no allocation.
  double max_drift = 0;
  std::int64_t after_first_step = 0, reductions = 0, later_reductions = 0;  // eval calls: all, in steps 2..
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 1; s <= steps; ++s) {
    for (std::int64_t k = 0; k < 3 * N; ++k) vel[k] += 0.5 * dt * acc[k];
    for (std::int64_t k = 0; k < 3 * N; ++k) pos[k] += dt * vel[k];
    kops::kokkos::eval(accel, N, N, acc.data(), pos.data(), pos.data(), mass.data(), &e2);
    for (std::int64_t k = 0; k < 3 * N; ++k) vel[k] += 0.5 * dt * acc[k];
    ++reductions;
    if (s % 25 == 0 || s == steps) {
      max_drift = std::fmax(max_drift, std::abs(energy(pos, vel, mass, eps, phi) - E0) / std::abs(E0));
      ++reductions;
    }
    if (s == 1) after_first_step = allocations.load(), later_reductions = -reductions;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::int64_t loop_allocations = allocations.load() - after_first_step;
  later_reductions += reductions;

  const double p_scale = momentum(P1);
  const double p_drift = std::sqrt((P1[0] - P0[0]) * (P1[0] - P0[0]) + (P1[1] - P0[1]) * (P1[1] - P0[1]) +
                                   (P1[2] - P0[2]) * (P1[2] - P0[2]));

  // The last step's accelerations (at the final positions) by a direct double loop.
  double force_err = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    double s[3] = {0, 0, 0}, sabs[3] = {0, 0, 0};
    for (std::int64_t j = 0; j < N; ++j) {
      double d[3], r2 = e2;
      for (int k = 0; k < 3; ++k) d[k] = pos[3 * j + k] - pos[3 * i + k], r2 += d[k] * d[k];
      const double w = mass[j] / (r2 * std::sqrt(r2));
      for (int k = 0; k < 3; ++k) s[k] += w * d[k], sabs[k] += std::abs(w * d[k]);
    }
    for (int k = 0; k < 3; ++k) force_err = std::fmax(force_err, std::abs(acc[3 * i + k] - s[k]) / (sabs[k] + 1e-300));
  }

  const bool ok_alloc = loop_allocations == 0, ok_energy = max_drift <= 1e-4, ok_mom = p_drift <= 1e-12 * p_scale,
             ok_force = force_err <= 1e-12, ok = ok_alloc && ok_energy && ok_mom && ok_force;
  auto verdict = [](bool b) { return b ? "ok" : "FAILED"; };
  std::printf("kops embedded: softened N-body, leapfrog, float64, Kokkos %s\n",
              Kokkos::DefaultHostExecutionSpace::name());
  std::printf("  kernel   : %s\n", kops::to_string(accel).c_str());
  std::printf("  profile  : %s\n", KOPS_EXCEPTIONS ? "with exceptions (bad input throws kops::error)"
                                                    : "without exceptions (bad input calls the kops error handler)");
  std::printf("  system   : N = %lld, eps = %.3g, dt = %.3g, %d steps (t = %.3g)\n", (long long)N, eps, dt, steps,
              dt * steps);
  std::printf("  time     : %.3f s: %.1f steps/s, %.3g pair interactions/s (one force reduction per step, "
              "one potential per 25 steps)\n", secs, steps / secs, double(N) * double(N) * double(reductions) / secs);
  std::printf("  energy   : E(0) = %.8f, max |E(t) - E(0)| / |E(0)| = %.2e\n", E0, max_drift);
  std::printf("  memory   : %lld operator new calls in steps 2..%d (%lld reductions)\n", (long long)loop_allocations,
              steps, (long long)later_reductions);
  std::printf("check: %s (allocations in steps 2..%d: %lld: %s; max energy drift %.2e <= 1e-4: %s; momentum drift "
              "%.2e <= 1e-12 sum m|v|: %s; forces vs a double loop %.2e <= 1e-12: %s)\n",
              ok ? "PASS" : "FAIL", steps, (long long)loop_allocations, verdict(ok_alloc), max_drift,
              verdict(ok_energy), p_drift / p_scale, verdict(ok_mom), force_err, verdict(ok_force));
  return ok ? 0 : 1;
}
