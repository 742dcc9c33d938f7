// kops::mpi::eval without exceptions (docs/embedded.md): when one rank passes
// a bad argument, every rank's error handler is called (that rank's with its
// own message, the others' naming it), no rank hangs, and no rank's output is
// written. Run on 2 ranks (ctest embedded.mpi).
#include "harness.hpp"

#include <mpi.h>

#include <kops/kops.hpp>
#include <kops/kokkos.hpp>
#include <kops/mpi.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace embedded_test;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int failed = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    kops::set_error_handler(&record);
    constexpr auto x = kops::vi<0, 3>;
    constexpr auto y = kops::vj<1, 3>;
    constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)), kops::axis_j);
    const std::int64_t M = 4, N = 3;
    std::vector<float> px(3 * M, 0.25f), py(3 * N, 0.5f);
    const float sentinel = -12345.5f;
    std::vector<float> out(M, sentinel);
    const int last = ranks - 1;
    // The last rank's y is null.
    kops::mpi::eval(conv, MPI_COMM_WORLD, M, N, out.data(), px.data(), rank == last ? nullptr : py.data());
    const std::string expected =
        rank == last ? std::string("kops::mpi::eval: argument 1 (vj<1,3>) is a null pointer")
                     : "kops::mpi::eval: rank " + std::to_string(last) +
                           " rejected its arguments (its kops::error says why); no rank evaluated the reduction";
    expect(messages().size() == 1, "rank %d: the handler is called once (%zu calls)", rank, messages().size());
    const std::string got = messages().empty() ? "" : messages().front();
    expect(got == expected, "rank %d: the message\n    got:      \"%s\"\n    expected: \"%s\"", rank, got.c_str(),
           expected.c_str());
    expect(untouched(out.data(), out.size(), sentinel), "rank %d: the output is untouched", rank);

    // Then a good call: the whole sum over every rank's slice, no handler call.
    messages().clear();
    kops::mpi::eval(conv, MPI_COMM_WORLD, M, N, out.data(), px.data(), py.data());
    const float d2 = 3 * 0.25f * 0.25f;
    const double want = double(ranks) * double(N) * std::exp(-double(d2));
    expect(std::abs(double(out[0]) - want) <= 1e-5 * want, "rank %d: a good call (%g, expected %g)", rank,
           double(out[0]), want);
    expect(messages().empty(), "rank %d: a good call calls no handler", rank);
    failed = failures;
  }
  int total = 0;
  MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    failures = total;
    summary("kops embedded profile, kops::mpi::eval");
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
