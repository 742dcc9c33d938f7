// What kops::cuda::eval's check of its pointers costs (backends/cuda/pointers.hpp:
// one cudaPointerGetAttributes per array, before any work), against the call
// it guards. Prints, in nanoseconds per call (the best of 5 rounds of `reps`):
//   cudaPointerGetAttributes on device, managed, pinned and pageable memory;
//   the whole check of a 3-D Gaussian sum's call (output, x, y, b: 4 queries);
//   kops::cuda::eval of that sum, M = N = 256 (launch-bound), host time per
//   call (queued back to back, one synchronisation per round) and with a
//   synchronisation after each call;
// and the check's share of each eval time. Built with the GPU benchmark
// (bench/CMakeLists.txt, kops::cuda); `bench_pointer_check [reps]`. Results:
// docs/cuda.md ("What a call checks").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <kops/cuda.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

// The best of 5 rounds of f() reps times, in ns per call; `after` runs at the
// end of each round, inside the timing (a synchronisation).
template <class F, class G>
double ns_per_call(int reps, F&& f, G&& after) {
  double best = 1e300;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = clock_type::now();
    for (int r = 0; r < reps; ++r) f();
    after();
    best = std::min(best, std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / reps);
  }
  return best;
}

void require(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_pointer_check: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

} // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20000;
  constexpr std::int64_t M = 256, N = 256;
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto red = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  float *dx = nullptr, *dy = nullptr, *db = nullptr, *dout = nullptr, *managed = nullptr, *pinned = nullptr;
  require(cudaMalloc(&dx, M * 3 * sizeof(float)), "cudaMalloc");
  require(cudaMalloc(&dy, N * 3 * sizeof(float)), "cudaMalloc");
  require(cudaMalloc(&db, N * sizeof(float)), "cudaMalloc");
  require(cudaMalloc(&dout, M * sizeof(float)), "cudaMalloc");
  require(cudaMallocManaged(&managed, 1024 * sizeof(float)), "cudaMallocManaged");
  require(cudaMallocHost(&pinned, 1024 * sizeof(float)), "cudaMallocHost");
  std::vector<float> pageable(1024, 0.5f), hx(M * 3, 0.25f), hy(N * 3, 0.5f), hb(N, 1.0f);
  require(cudaMemcpy(dx, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  require(cudaMemcpy(dy, hy.data(), hy.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  require(cudaMemcpy(db, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");

  cudaDeviceProp prop{};
  int device = 0, pageable_access = 0;
  require(cudaGetDevice(&device), "cudaGetDevice");
  require(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  require(cudaDeviceGetAttribute(&pageable_access, cudaDevAttrPageableMemoryAccess, device), "cudaDeviceGetAttribute");
  std::printf("# %s, cudaDevAttrPageableMemoryAccess = %d (1: kops skips the queries), %d calls per round\n",
              prop.name, pageable_access, reps);

  auto nothing = [] {};
  cudaPointerAttributes a{};
  const struct {
    const char* name;
    const void* p;
  } kinds[] = {{"device", dx}, {"managed", managed}, {"pinned", pinned}, {"pageable", pageable.data()}};
  for (const auto& k : kinds) {
    const double t = ns_per_call(reps, [&] { (void)cudaPointerGetAttributes(&a, k.p); }, nothing);
    std::printf("cudaPointerGetAttributes(%s),%.1f\n", k.name, t);
  }
  (void)cudaGetLastError();
  const float* const args[] = {dx, dy, db};
  const double check = ns_per_call(
      reps,
      [&] {
        if (!kops::cuda::detail::check_device_pointers<decltype(red)>("bench", M, N, dout, args)) std::exit(1);
      },
      nothing);
  std::printf("check_device_pointers (out, x, y, b),%.1f\n", check);
  auto sync = [] { require(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); };
  kops::cuda::eval(red, M, N, dout, dx, dy, db);  // warm-up: the first call's set-up
  sync();
  const int eval_reps = std::max(1, std::min(reps, 2000));
  const double queued = ns_per_call(eval_reps, [&] { kops::cuda::eval(red, M, N, dout, dx, dy, db); }, sync);
  const double synced = ns_per_call(eval_reps, [&] { kops::cuda::eval(red, M, N, dout, dx, dy, db), sync(); }, nothing);
  std::printf("kops::cuda::eval M=N=256 queued,%.1f\n", queued);
  std::printf("kops::cuda::eval M=N=256 synchronised,%.1f\n", synced);
  std::printf("check share of queued eval,%.3f\n", check / queued);
  std::printf("check share of synchronised eval,%.3f\n", check / synced);

  require(cudaFree(dx), "cudaFree");
  require(cudaFree(dy), "cudaFree");
  require(cudaFree(db), "cudaFree");
  require(cudaFree(dout), "cudaFree");
  require(cudaFree(managed), "cudaFree");
  require(cudaFreeHost(pinned), "cudaFreeHost");
  return 0;
}
