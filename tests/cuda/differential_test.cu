// Randomised differential tests on the GPU: a quarter of the generated reductions
// of tests/differential/cases.hpp (every case whose number is a multiple of 4,
// spread over every op group and reduction kind of the generator), each run
//   GPU_1D, double, direct sum        |out - ref| <= 1e-9 (|ref| + S)
//   GPU_2D, double, direct sum,       |out - ref| <= 1e-9 (|ref| + S)
//          chunks of 5 (many chunks, the combining pass)
//   GPU_2D, float, default scheme     |out - ref| <= 2e-3 (|ref| + S)
// against the same double reference as the Kokkos runs of
// tests/unit/differential_test_{a,b}.cpp (tests/differential/runner.hpp), so
// that GPU_1D, GPU_2D and the CPU are compared on the same data through one
// oracle. A quarter (30), not all 120: nvcc compiles each case's kernels for two
// element types, and CI builds this file on two cores.
#include "cuda_support.hpp"

#include "../differential/cases.hpp"

#define KOPS_DIFF_CHECK kops_diff_gpu::check_case  // expanded in KOPS_DIFF_TEST below
#include "../differential/runner.hpp"

namespace kops_diff_gpu {

template <kops::cuda::scheme S, std::int64_t Chunk>
kops::cuda::options scheme_options() {
  kops::cuda::options o;
  o.scheme = S;
  o.gpu_2d_chunk = Chunk;
  return o;
}

template <class Red>
void check_case(Red, int id, const char* source, kops_diff::tally& t) {
  const kops_diff::case_data c = kops_diff::make_case<Red>(id);
  const auto M = c.M, N = c.N;
  const auto o1 = scheme_options<kops::cuda::scheme::gpu_1d, 0>();
  const auto o2 = scheme_options<kops::cuda::scheme::gpu_2d, 5>();
  std::string first;
  int bad = kops_diff::count_differences<Red, double>(
      c, [&](double* out, const auto*... a) { kops::cuda::eval_host<kops::sum_scheme::direct>(Red{}, M, N, out, a..., o1); },
      1e-9, "GPU_1D double", first);
  bad += kops_diff::count_differences<Red, double>(
      c, [&](double* out, const auto*... a) { kops::cuda::eval_host<kops::sum_scheme::direct>(Red{}, M, N, out, a..., o2); },
      1e-9, "GPU_2D double", first);
  bad += kops_diff::count_differences<Red, float>(
      c, [&](float* out, const auto*... a) { kops::cuda::eval_host(Red{}, M, N, out, a..., o2); }, 2e-3, "GPU_2D float",
      first);
  kops_diff::record(Red{}, id, source, c, bad, 3 * (long long)c.ref.size(), first, t);
}

} // namespace kops_diff_gpu

#define KOPS_DIFF_CASES_GPU(X) X(0) X(4) X(8) X(12) X(16) X(20) X(24) X(28) X(32) X(36) X(40) X(44) X(48) X(52) X(56) X(60) X(64) X(68) X(72) X(76) X(80) X(84) X(88) X(92) X(96) X(100) X(104) X(108) X(112) X(116)

KOPS_DIFF_TEST("differential GPU: random formulas, GPU_1D and GPU_2D vs the double reference", KOPS_DIFF_CASES_GPU)
