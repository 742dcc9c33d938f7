// Wall-clock helpers shared by the CPU benchmarks (bench_batch, bench_half,
// bench_block_sparse): seconds since a time point, and the best of R runs.
#pragma once

#include <algorithm>
#include <chrono>

namespace bench {

using clock_type = std::chrono::steady_clock;

inline double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// The shortest wall time of `reps` calls of f, in seconds.
template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    f();
    best = std::min(best, since(t0));
  }
  return best;
}

} // namespace bench
