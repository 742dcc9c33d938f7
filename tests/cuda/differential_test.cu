// Randomised differential tests on the GPU: the generated cases of
// tests/differential/cases/cases_gpu.hpp (every 12th forward and every 12th
// gradient case of tests/differential/generate.py: 30 of 360, across the op
// groups and reduction kinds), each run
//   forward:  GPU_1D, double, direct sum        |out - ref| <= 1e-9 (|ref| + S)
//             GPU_2D, double, direct sum,       |out - ref| <= 1e-9 (|ref| + S)
//                    chunks of 5 (many chunks, the combining pass)
//             GPU_2D, float, default scheme     |out - ref| <= 2e-3 (|ref| + S)
//   gradient: GPU_1D and GPU_2D (chunks of 5), double, against central finite
//             differences of the forward reference, 1e-6 (|fd| + S)
// against the same double reference as the Kokkos runs of
// tests/unit/differential_test_<p>.cpp (tests/differential/runner.hpp), so
// that GPU_1D, GPU_2D and the CPU are compared on the same data through one
// oracle. A twelfth, not all: nvcc compiles two or three kernels per case, and
// CI builds this file on two cores.
#include "cuda_support.hpp"

#include "../differential/cases/cases_gpu.hpp"

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

// Forward cases: GPU_1D and GPU_2D in double (direct sum), GPU_2D in float;
// gradient cases: GPU_1D and GPU_2D in double, against finite differences.
template <class Red, class Check>
void check_case(Red, Check, int id, std::int64_t M, std::int64_t N, const char* source, kops_diff::tally& t) {
  const kops_diff::case_data c = kops_diff::make_case<Red, Check>(id, M, N);
  const auto o1 = scheme_options<kops::cuda::scheme::gpu_1d, 0>();
  const auto o2 = scheme_options<kops::cuda::scheme::gpu_2d, 5>();
  constexpr double tol = kops_diff::double_tolerance<Check>;
  std::string first;
  int bad = kops_diff::count_differences<Red, double>(
      c, [&](auto* out, const auto*... a) { kops::cuda::eval_host<kops::sum_scheme::direct>(Red{}, M, N, out, a..., o1); },
      tol, "GPU_1D double", first);
  bad += kops_diff::count_differences<Red, double>(
      c, [&](auto* out, const auto*... a) { kops::cuda::eval_host<kops::sum_scheme::direct>(Red{}, M, N, out, a..., o2); },
      tol, "GPU_2D double", first);
  long long compared = 2 * (long long)c.ref.size();
  if constexpr (!kops_diff::is_fd_v<Check>) {
    bad += kops_diff::count_differences<Red, float>(
        c, [&](auto* out, const auto*... a) { kops::cuda::eval_host(Red{}, M, N, out, a..., o2); }, 2e-3, "GPU_2D float",
        first);
    compared += (long long)c.ref.size();
  }
  kops_diff::record(Red{}, Check{}, id, source, c, bad, compared, first, t);
}

} // namespace kops_diff_gpu

KOPS_DIFF_TEST("differential GPU: random formulas, GPU_1D and GPU_2D vs the double reference", KOPS_DIFF_CASES_GPU)
