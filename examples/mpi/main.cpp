// kops across processes: the points y_j are spread over MPI ranks, each rank
// holding one slice of the j range, and two reductions over j are computed as
// if one machine held everything (kops/mpi.hpp):
//
//   Gaussian sum      a_i = sum_j exp(-g |x_i - y_j|^2) b_j
//   nearest neighbour (d_i, n_i) = (min_j |x_i - y_j|^2, argmin_j |x_i - y_j|^2)
//
// Each rank reduces its slice into partial accumulators; one MPI_Allreduce
// with a custom, non-commutative MPI_Op merges them with the reduction's own
// combine (rank order, so n_i is the index on the whole j range, ties to the
// lowest). Every rank ends with the whole a and (d, n). Rank 0 then checks them
// against kops::kokkos::eval over the whole data in one process.
//
// Each rank generates only its own slice: point j is a hash of j, so rank 0
// can regenerate all of them for the check.
//
//   mpiexec -n 3 ./mpi [M] [N]     (default M = 1000 queries, N = 100000 points)
#include <kops/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Component k of point j (a float in [0, 1)): splitmix64 of (j, k).
float coordinate(std::uint64_t j, std::uint64_t k, std::uint64_t seed) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (4 * j + k + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return float((z ^ (z >> 31)) >> 40) * 0x1p-24f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  bool ok = false;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    const std::int64_t M = argc > 1 ? std::atoll(argv[1]) : 1000;
    const std::int64_t N = argc > 2 ? std::atoll(argv[2]) : 100000;

    constexpr auto x = kops::vi<0, 3>;  // queries x_i, (M, 3): every rank
    constexpr auto y = kops::vj<1, 3>;  // points y_j, (N_r, 3): this rank's slice
    constexpr auto b = kops::vj<2, 1>;  // weights b_j, (N_r, 1): this rank's slice
    constexpr auto g = kops::pm<3, 1>;  // gamma, (1)
    constexpr auto gauss = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
    constexpr auto nearest = kops::min_argmin_reduction(kops::sqdist(x, y), kops::axis_j);

    // Rank r holds points [j0, j0 + Nr): N / ranks each, the remainder on the first ranks.
    const std::int64_t Nr = N / ranks + (rank < N % ranks ? 1 : 0);
    const std::int64_t j0 = rank * (N / ranks) + std::min<std::int64_t>(rank, N % ranks);
    auto points = [](std::int64_t first, std::int64_t count, std::vector<float>& py, std::vector<float>& pb) {
      py.resize(std::size_t(count * 3));
      pb.resize(std::size_t(count));
      for (std::int64_t j = 0; j < count; ++j) {
        for (int k = 0; k < 3; ++k)
          py[std::size_t(j * 3 + k)] = coordinate(std::uint64_t(first + j), std::uint64_t(k), 1);
        pb[std::size_t(j)] = coordinate(std::uint64_t(first + j), 3, 1) - 0.5f;
      }
    };
    std::vector<float> px(std::size_t(M * 3)), py, pb, pg{20.0f};
    for (std::int64_t i = 0; i < M; ++i)
      for (int k = 0; k < 3; ++k) px[std::size_t(i * 3 + k)] = coordinate(std::uint64_t(i), std::uint64_t(k), 2);
    points(j0, Nr, py, pb);

    std::vector<float> a(static_cast<std::size_t>(M));
    std::vector<kops::value_index<float>> nn(static_cast<std::size_t>(M));
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    kops::mpi::eval(gauss, MPI_COMM_WORLD, M, Nr, a.data(), px.data(), py.data(), pb.data(), pg.data());
    kops::mpi::eval(nearest, MPI_COMM_WORLD, M, Nr, nn.data(), px.data(), py.data());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::vector<std::int64_t> slices(std::size_t(2 * ranks));
    const std::int64_t mine[2] = {j0, Nr};
    MPI_Gather(mine, 2, MPI_INT64_T, slices.data(), 2, MPI_INT64_T, 0, MPI_COMM_WORLD);

    if (rank == 0) {
      // The same reductions in one process over all N points.
      std::vector<float> ya, ba, a1(static_cast<std::size_t>(M));
      std::vector<kops::value_index<float>> nn1(static_cast<std::size_t>(M));
      points(0, N, ya, ba);
      kops::kokkos::eval(gauss, M, N, a1.data(), px.data(), ya.data(), ba.data(), pg.data());
      kops::kokkos::eval(nearest, M, N, nn1.data(), px.data(), ya.data());
      double err = 0, scale = 0;
      std::int64_t same_nn = 0;
      for (std::int64_t i = 0; i < M; ++i) {
        err = std::max(err, std::fabs(double(a[std::size_t(i)]) - a1[std::size_t(i)]));
        scale = std::max(scale, std::fabs(double(a1[std::size_t(i)])));
        same_nn += nn[std::size_t(i)].index == nn1[std::size_t(i)].index &&
                   nn[std::size_t(i)].value == nn1[std::size_t(i)].value;
      }
      ok = err <= 1e-5 * scale && same_nn == M;

      std::printf("kops::mpi::eval on %d rank(s): N = %lld points split over the ranks, M = %lld queries\n", ranks,
                  (long long)N, (long long)M);
      for (int r = 0; r < ranks; ++r)
        std::printf("  rank %d      : points [%lld, %lld)\n", r, (long long)slices[std::size_t(2 * r)],
                    (long long)(slices[std::size_t(2 * r)] + slices[std::size_t(2 * r + 1)]));
      std::printf("  gaussian sum : a_0 = %.7g, a_%lld = %.7g\n", a[0], (long long)(M - 1), a[std::size_t(M - 1)]);
      std::printf("  nearest      : query 0 -> point %lld at distance %.4g\n", (long long)nn[0].index,
                  std::sqrt(nn[0].value));
      std::printf("  time         : %.4f s for both (%.3g pairs/s per rank)\n", secs,
                  2.0 * double(M) * double(N) / ranks / secs);
      std::printf("check: %s (vs one process: sums within %.2g of max |a| = %.3g, %lld/%lld neighbours identical)\n",
                  ok ? "PASS" : "FAIL", err, scale, (long long)same_nn, (long long)M);
    }
  }
  int result = ok ? 1 : 0;
  MPI_Bcast(&result, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return result ? 0 : 1;
}
