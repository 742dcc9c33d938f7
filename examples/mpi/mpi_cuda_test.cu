// Test of kops::mpi::cuda::eval (kops/mpi_cuda.hpp): each rank's slice of the
// reduced axis on its (emulated) GPU, the partial accumulators merged across
// ranks; the result equals one kops::cuda::eval over the whole data: indices
// and min / k-min values bit for bit (the points sit on a coarse grid, so
// many distances tie, across ranks too: ties must go to the lowest global
// index), sums and log-sum-exps within the rounding of another order of
// additions, and a Gaussian sum within 1e-5 of a double loop. Slices: uneven,
// an empty first slice. Every rank holds the whole data (same seed).
//
//   mpiexec -n 2 ./mpi_cuda_test     (ctest: example.mpi_cuda_test.2, on kops::cuda_emulated)
#include <kops/mpi_cuda.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

static_assert(kops::detail::Backend<kops::mpi::detail::mpi_cuda_backend<kops::category::j>>);
static_assert(kops::detail::OwnChecksBackend<kops::mpi::detail::mpi_cuda_entry> &&
              kops::detail::check_eval_backend<kops::mpi::detail::mpi_cuda_entry>());

int rank_ = 0, ranks_ = 1, failures = 0, checks = 0;

// A device copy of a host vector, freed at scope exit.
template <class T>
struct on_device {
  T* p = nullptr;
  explicit on_device(const std::vector<T>& v) {
    if (cudaMalloc(&p, std::max<std::size_t>(1, v.size()) * sizeof(T)) != cudaSuccess) std::abort();
    if (!v.empty() && cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
      std::abort();
  }
  ~on_device() { (void)cudaFree(p); }
  std::vector<T> host(std::size_t n) const {
    std::vector<T> v(n);
    if (cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) std::abort();
    return v;
  }
};

void expect(bool ok, const char* what, int how) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("rank %d: FAILED %s (cut %d)\n", rank_, what, how);
  }
}

// out of the whole call vs this rank's slices through kops::mpi::cuda::eval;
// tol < 0: the same bytes.
template <class Out, class Red>
void check(Red red, const char* what, double tol, std::int64_t M, std::int64_t N, const std::vector<float>& x,
           const std::vector<float>& y, const std::vector<float>& b, const std::vector<float>& g, int how,
           std::vector<Out>* result = nullptr) {
  const std::int64_t n0 = how == 0 ? N * 3 / 7 : 0, n = rank_ == 0 ? n0 : N - n0, at = rank_ == 0 ? 0 : n0;
  const on_device<float> dx(x), dy(y), db(b), dg(g);
  const on_device<float> dy_r(std::vector<float>(y.begin() + at * 2, y.begin() + (at + n) * 2)),
      db_r(std::vector<float>(b.begin() + at, b.begin() + at + n));
  const std::size_t size = std::size_t(M) * Red::dim;
  on_device<Out> whole{std::vector<Out>(size)}, split{std::vector<Out>(size)};
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  o.gpu_2d_chunk = 64;
  kops::cuda::eval(red, M, N, whole.p, dx.p, dy.p, db.p, dg.p, o);
  kops::mpi::cuda::eval(red, MPI_COMM_WORLD, M, n, split.p, dx.p, dy_r.p, db_r.p, dg.p, o);
  const std::vector<Out> want = whole.host(size), got = split.host(size);
  bool ok = true;
  for (std::size_t k = 0; k < size; ++k) {
    if constexpr (std::is_floating_point_v<Out>) {
      if (tol < 0) ok = ok && std::memcmp(&got[k], &want[k], sizeof(Out)) == 0;
      else ok = ok && std::abs(double(got[k]) - double(want[k])) <= tol * (1 + std::abs(double(want[k])));
    } else {
      ok = ok && got[k] == want[k];
    }
  }
  expect(ok, what, how);
  if (result) *result = got;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  if (ranks_ != 2) {
    if (rank_ == 0) std::printf("mpi_cuda_test: run it on 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  const std::int64_t M = 37, N = 1201;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> grid(0, 31);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> x(M * 2), y(N * 2), b(N), g{0.7f};
  for (auto& v : x) v = 0.125f * float(grid(rng));
  for (auto& v : y) v = 0.125f * float(grid(rng));
  for (auto& v : b) v = u(rng);
  constexpr auto xi = kops::vi<0, 2>;
  constexpr auto yj = kops::vj<1, 2>;
  constexpr auto bj = kops::vj<2, 1>;
  constexpr auto gp = kops::pm<3, 1>;
  constexpr auto d2 = kops::sqdist(xi, yj);
  for (int how : {0, 1}) {
    std::vector<float> sum;
    check<float>(kops::sum_reduction(kops::exp(-gp * d2) * bj, kops::axis_j), "sum", 1e-5, M, N, x, y, b, g, how,
                 &sum);
    bool close = true;  // against a double loop
    for (std::int64_t i = 0; i < M; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double dx0 = x[i * 2] - y[j * 2], dx1 = x[i * 2 + 1] - y[j * 2 + 1];
        s += std::exp(-0.7 * (dx0 * dx0 + dx1 * dx1)) * b[j];
      }
      close = close && std::abs(sum[i] - s) <= 1e-5 * (1 + std::abs(s));
    }
    expect(close, "sum vs a double loop", how);
    check<std::int64_t>(kops::argmin_reduction(d2 - gp * gp, kops::axis_j), "argmin (ties)", -1, M, N, x, y, b, g,
                        how);
    check<float>(kops::min_reduction(d2 - gp * bj, kops::axis_j), "min", -1, M, N, x, y, b, g, how);
    check<std::int64_t>(kops::argkmin_reduction<3>(d2 - gp * gp, kops::axis_j), "argkmin<3> (ties)", -1, M, N, x,
                        y, b, g, how);
    check<float>(kops::kmin_reduction<3>(d2 - gp * bj, kops::axis_j), "kmin<3>", -1, M, N, x, y, b, g, how);
    check<float>(kops::logsumexp_reduction(-gp * d2 + bj, kops::axis_j), "logsumexp", 1e-5, M, N, x, y, b, g, how);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("mpi_cuda_test: %d checks per rank, %d failures on all ranks\n", checks, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
