// The host execution space as the CPU backend (kops::kokkos) uses it: one
// cached instance, and the parallel loops of eval.hpp and partial.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace kops::kokkos::detail {

using host_range = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>;

// One instance of the host execution space, made at the first eval and
// dropped when Kokkos finalizes. A default-constructed Kokkos 4 OpenMP
// instance allocates (a shared pointer's control block), and a policy made
// without an instance default-constructs one: per call, that broke the
// no-allocation rule of a successful eval. Copies share the instance.
struct host_space_cache {
  std::optional<Kokkos::DefaultHostExecutionSpace> space;
  host_space_cache() {
    space.emplace();
    Kokkos::push_finalize_hook([] { instance().space.reset(); });
  }
  static host_space_cache& instance() {
    static host_space_cache c;
    return c;
  }
};
inline Kokkos::DefaultHostExecutionSpace host_space() {
  host_space_cache& c = host_space_cache::instance();
  return c.space ? *c.space : Kokkos::DefaultHostExecutionSpace();
}

// Whether a parallel loop on the host space has finished when parallel_for
// returns: Serial and OpenMP run it inside the call (OpenMP's parallel region
// joins before returning). For them kops does not fence: Kokkos 4's
// OpenMP::fence builds strings, an allocation per call that the embedded
// profile forbids (examples/embedded counts them). Other spaces (Threads, HPX)
// are fenced.
inline constexpr bool host_space_synchronous =
#if defined(KOKKOS_ENABLE_SERIAL)
    std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::Serial> ||
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::OpenMP> ||
#endif
    false;

// Whether the host space is Kokkos::Serial: one thread, on which plan_host
// never slices the reduced axis (eval.hpp, basic_host_backend).
inline constexpr bool host_space_serial =
#if defined(KOKKOS_ENABLE_SERIAL)
    std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::Serial>;
#else
    false;
#endif

// Waits for the host space's loops (see host_space_synchronous).
inline void host_fence() {
  if constexpr (!host_space_synchronous) {
#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 30500
    static const std::string label = "kops::kokkos::eval: fence";
    host_space().fence(label);
#else
    host_space().fence();
#endif
  }
}

// Kokkos 3.4 takes a parallel loop's label as a std::string: the labels are
// built once, not per call (a successful eval allocates nothing).
enum class host_loop { rows, slices, combine, partial_accumulate, partial_finalize, ranges };
inline const std::string& host_label(host_loop l) {
  static const std::string labels[6] = {"kops::kokkos::eval", "kops::kokkos::eval::slices",
                                        "kops::kokkos::eval::combine", "kops::kokkos::partial::accumulate",
                                        "kops::kokkos::partial::finalize", "kops::kokkos::eval::ranges"};
  return labels[int(l)];
}

// The one functor type the host loops hand to Kokkos: f, type-erased. Kokkos'
// parallel_for machinery (its policy, its per-backend dispatch and loops) is
// then instantiated and compiled once per translation unit instead of once per
// kernel, and the kernel's body once, in run_task<F>, instead of once per
// Kokkos loop variant (the OpenMP backend has several) plus the serial loop.
// A task is a whole block of rows, or a slice of one: the indirect call costs
// nothing measurable (bench/run_cpu.sh before and after).
struct host_task {
  void (*run)(const void*, std::int64_t);
  const void* f;
  void operator()(const std::int64_t t) const { run(f, t); }
};
template <class F>
[[gnu::noinline]] void run_task(const void* f, std::int64_t t) {
  (*static_cast<const F*>(f))(t);
}

// f(t) for t in [0, n): on the host threads, or (serial) in a plain loop on
// the calling thread; done when host_for returns (the task refers to f, which
// the caller's temporaries hold).
template <class F>
void host_for(bool serial, host_loop loop, std::int64_t n, const F& f) {
  const host_task task{&run_task<F>, &f};
  if (serial) {
    for (std::int64_t t = 0; t < n; ++t) task(t);
    return;
  }
  Kokkos::parallel_for(host_label(loop), host_range(host_space(), 0, n), task);
  host_fence();
}

} // namespace kops::kokkos::detail
