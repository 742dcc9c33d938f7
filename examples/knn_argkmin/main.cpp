// k-nearest-neighbour classification with kops::argkmin_reduction<K>: the K
// training points closest to each test point, then a majority vote of their labels.
//
// The math. Training points y_j in R^4 with labels c_j in {0, 1, 2} (three
// Gaussian blobs, fixed seed), test points x_i drawn the same way. For each i,
//
//   nn_i = the K indices j with the smallest |x_i - y_j|^2, sorted ascending
//          (equal distances in index order: numpy's argsort(kind="stable")),
//
// one reduction over j: argkmin_reduction<K>(sqdist(x, y), axis_j), output (M, K)
// std::int64_t. The predicted class is the most frequent label among the K
// neighbours (a tie goes to the class of the nearest of the tied neighbours).
//
// Self-check (exit code 0 only if both hold):
//   1. every test point's K indices equal, exactly and in order, those of a
//      brute-force reference: double distances, std::stable_sort of 0..N-1.
//      The data are double, so kops and the reference compute the same
//      sum_k (x_k - y_k)^2 in the same type; one training point in 20 is an
//      exact duplicate of another, so exact ties occur and the tie rule
//      (smaller index first) is checked too. (With float data, kops' float
//      distances and a double reference can order two nearly equal distances
//      differently; one would then compare the distance lists with a tolerance.)
//   2. the test accuracy is at least 0.9 (the blobs overlap a little: about 0.97).
//
// Build and run: it is built with the examples (cmake -DKOPS_BUILD_EXAMPLES=ON,
// target knn_argkmin; ctest -L example runs it), or by hand from the repository root:
//   g++ -std=c++20 -O2 -march=native -Iinclude -isystem /usr/include/trilinos
//       examples/knn_argkmin/main.cpp -ltrilinos_kokkoscore -ldl -o knn_argkmin
//   ./knn_argkmin [N] [M]          (default N = 4000 training, M = 1000 test points)
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr int D = 4;        // dimension of the points
constexpr int K = 7;        // neighbours per test point
constexpr int classes = 3;  // blobs

// n points of dimension D around three centres (unit standard deviation),
// label = blob, in a random order.
void make_blobs(std::mt19937& rng, std::int64_t n, std::vector<double>& p, std::vector<int>& label) {
  static constexpr double centre[classes][D] = {{0, 0, 0, 0}, {4, 1, 0, 1}, {1, 4, 2, -1}};
  std::uniform_int_distribution<int> pick(0, classes - 1);
  std::normal_distribution<double> gauss(0.0, 1.0);
  p.resize(std::size_t(n) * D);
  label.resize(std::size_t(n));
  for (std::int64_t j = 0; j < n; ++j) {
    label[j] = pick(rng);
    for (int k = 0; k < D; ++k) p[j * D + k] = centre[label[j]][k] + gauss(rng);
  }
}

// The majority label among the K neighbours nn[0..K) (sorted nearest first);
// a tie goes to the tied class whose first neighbour comes first.
int vote(const std::int64_t* nn, const std::vector<int>& label) {
  std::array<int, classes> count{};
  for (int k = 0; k < K; ++k) ++count[label[nn[k]]];
  int best = label[nn[0]];
  for (int k = 1; k < K; ++k)
    if (count[label[nn[k]]] > count[best]) best = label[nn[k]];
  return best;
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t N = argc > 1 ? std::atoll(argv[1]) : 4000;
  const std::int64_t M = argc > 2 ? std::atoll(argv[2]) : 1000;
  if (N < K || M < 1) {
    std::fprintf(stderr, "usage: knn_argkmin [N >= %d] [M >= 1]\n", K);
    return 2;
  }

  constexpr auto x = kops::vi<0, D>;  // test points x_i, (M, D)
  constexpr auto y = kops::vj<1, D>;  // training points y_j, (N, D)
  constexpr auto knn = kops::argkmin_reduction<K>(kops::sqdist(x, y), kops::axis_j);

  std::mt19937 rng(2024);
  std::vector<double> py, px;
  std::vector<int> ly, lx;
  make_blobs(rng, N, py, ly);
  make_blobs(rng, M, px, lx);
  // Exact ties: training point j (j % 20 == 19) becomes a copy of a random earlier one.
  for (std::int64_t j = 19; j < N; j += 20) {
    const std::int64_t src = std::uniform_int_distribution<std::int64_t>(0, j - 1)(rng);
    std::copy_n(&py[src * D], D, &py[j * D]);
    ly[j] = ly[src];
  }

  std::vector<std::int64_t> nn(std::size_t(M) * K);  // (M, K): nn[i * K + k]
  kops::kokkos::eval(knn, M, N, nn.data(), px.data(), py.data());  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  kops::kokkos::eval(knn, M, N, nn.data(), px.data(), py.data());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::int64_t correct = 0;
  for (std::int64_t i = 0; i < M; ++i) correct += vote(&nn[i * K], ly) == lx[i];
  const double accuracy = double(correct) / double(M);

  // Reference: all N distances in double, a stable sort of the indices by distance.
  std::int64_t rows_equal = 0, ties_seen = 0;
  std::vector<double> d(static_cast<std::size_t>(N));
  std::vector<std::int64_t> order(static_cast<std::size_t>(N));
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < D; ++k) {
        const double t = px[i * D + k] - py[j * D + k];
        s += t * t;
      }
      d[j] = s;
    }
    std::iota(order.begin(), order.end(), std::int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return d[a] < d[b]; });
    rows_equal += std::equal(order.begin(), order.begin() + K, &nn[i * K]);
    for (int k = 0; k + 1 < K; ++k) ties_seen += d[order[k]] == d[order[k + 1]];
  }

  const bool ok_idx = rows_equal == M, ok_acc = accuracy >= 0.9, ok = ok_idx && ok_acc;
  std::printf("kops knn_argkmin: %d-NN classification, 3 Gaussian blobs in R^%d, float64\n", K, D);
  std::printf("  data     : N = %lld training points (%lld exact duplicates), M = %lld test points\n",
              (long long)N, (long long)(N / 20), (long long)M);
  std::printf("  neighbours: argkmin_reduction<%d>(sqdist(x, y), axis_j) in %.4f s (%.3g pairs/s)\n", K, secs,
              double(M) * double(N) / secs);
  std::printf("  first    : test point 0 (class %d): neighbours %lld %lld %lld ..., predicted class %d\n", lx[0],
              (long long)nn[0], (long long)nn[1], (long long)nn[2], vote(&nn[0], ly));
  std::printf("  accuracy : %.4f (%lld / %lld)\n", accuracy, (long long)correct, (long long)M);
  std::printf("check: %s (K indices equal a double stable-sort reference on %lld / %lld rows, %lld exact ties "
              "among them: %s; accuracy %.4f >= 0.9: %s)\n",
              ok ? "PASS" : "FAIL", (long long)rows_equal, (long long)M, (long long)ties_seen,
              ok_idx ? "ok" : "FAILED", accuracy, ok_acc ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
