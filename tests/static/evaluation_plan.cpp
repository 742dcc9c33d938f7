// lowering/plan.hpp: the evaluation plan each backend derives from its target
// data (kokkos::detail::cpu_target, cuda::detail::gpu_target), and the
// backends' kernels reading their decisions from it.
#include <kops/kops.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/kokkos/block_kernel.hpp>
#include <kops/lowering/plan.hpp>
#include <kops/reductions/detail/scheme_sum.hpp>

#include <type_traits>

namespace {

using namespace kops;
using kops::cuda::detail::gpu_target;
using kops::kokkos::detail::cpu_target;

template <class Red, class Target, class T = float, precision P = precision::accurate,
          sum_scheme S = default_sum_scheme, dtype_acc A = dtype_acc::same, bool Stored = false>
using plan = kops::detail::evaluation_plan<Red, Target, T, P, S, A, Stored>;

template <int D>
constexpr auto gauss = sum_reduction(exp(-pm<3, 1> * sqdist(vi<0, D>, vj<1, D>)) * vj<2, 1>, axis_j);
template <int D> using gauss_t = std::remove_const_t<decltype(gauss<D>)>;
// Its gradient w.r.t. x: a sum of a D-wide formula (final chunks where wide enough).
template <int D> using grad_t = std::remove_const_t<decltype(grad(gauss<D>, vi<0, D>, vi<4, 1>))>;
// The nearest neighbour at D: a reduction that is no plain sum.
template <int D> using argmin_t = decltype(argmin_reduction(sqdist(vi<0, D>, vj<1, D>), axis_j));

// --- Is a plain sum: the sum reduction's op, not the ops derived from it or other reductions'.
static_assert(kops::detail::is_plain_sum_v<sum_op>);
static_assert(!kops::detail::is_plain_sum_v<kops::detail::accumulation_op_t<sum_op, sum_scheme::kahan, dtype_acc::same, true>>);
static_assert(!kops::detail::is_plain_sum_v<typename argmin_t<3>::op>);
static_assert(kops::detail::clamp_to_group(3, 8) == 3 && kops::detail::clamp_to_group(9, 8) == 7);

// --- Narrow formulas: the policy formula as it is, in no lowered form, on both targets.
static_assert(std::is_same_v<plan<gauss_t<3>, cpu_target>::formula, policy_formula_t<gauss_t<3>, precision::accurate, cpu_target>>);
static_assert(std::is_same_v<plan<gauss_t<3>, gpu_target>::formula, policy_formula_t<gauss_t<3>, precision::accurate>>);
static_assert(!plan<gauss_t<3>, cpu_target>::staged && !plan<gauss_t<3>, cpu_target>::final_chunks);
static_assert(!plan<gauss_t<3>, gpu_target>::staged && !plan<gauss_t<3>, gpu_target>::final_chunks &&
              !plan<gauss_t<3>, gpu_target>::reads_chunks);

// --- The thresholds are the targets': D = 64 is chunked on the CPU (16), not on the GPU (128).
static_assert(plan<gauss_t<64>, cpu_target>::staged);
static_assert(!plan<gauss_t<64>, gpu_target>::staged && !plan<gauss_t<64>, gpu_target>::reads_chunks);
static_assert(plan<gauss_t<256>, gpu_target>::staged && plan<gauss_t<256>, gpu_target>::reads_chunks);
static_assert(plan<gauss_t<256>, cpu_target>::sums::chunk == cpu_target::chunk &&
              plan<gauss_t<256>, gpu_target>::sums::chunk == gpu_target::chunk);

// --- The fast policy: the GPU has no fast exponential in double (its formula is
// the accurate one), the CPU has one in every type.
static_assert(std::is_same_v<plan<gauss_t<3>, gpu_target, double, precision::fast>::formula,
                             plan<gauss_t<3>, gpu_target, double, precision::accurate>::formula>);
static_assert(!std::is_same_v<plan<gauss_t<3>, gpu_target, float, precision::fast>::formula,
                              plan<gauss_t<3>, gpu_target, float, precision::accurate>::formula>);
static_assert(!std::is_same_v<plan<gauss_t<3>, cpu_target, double, precision::fast>::formula,
                              plan<gauss_t<3>, cpu_target, double, precision::accurate>::formula>);

// --- Final chunks: a wide plain sum on both targets; the GPU's output row is the
// accumulator (plain sums in T on T arrays), the CPU keeps one per chunk (any scheme).
static_assert(plan<grad_t<784>, cpu_target>::final_chunks && plan<grad_t<784>, gpu_target>::final_chunks);
static_assert(plan<grad_t<784>, gpu_target>::final_plan::chunk == 32 &&
              plan<grad_t<784>, gpu_target, double>::final_plan::chunk == 16 &&
              plan<grad_t<784>, cpu_target>::final_plan::chunk == cpu_target::chunk);
static_assert(plan<grad_t<784>, cpu_target, float, precision::accurate, sum_scheme::kahan>::final_chunks);
static_assert(!plan<grad_t<784>, gpu_target, float, precision::accurate, sum_scheme::kahan>::final_chunks);
static_assert(plan<grad_t<784>, cpu_target, float, precision::accurate, default_sum_scheme, dtype_acc::float64>::final_chunks);
static_assert(!plan<grad_t<784>, gpu_target, float, precision::accurate, default_sum_scheme, dtype_acc::float64>::final_chunks);
static_assert(!plan<grad_t<784>, gpu_target, float, precision::accurate, default_sum_scheme, dtype_acc::same, true>::final_chunks);
// ... over the targets' own output thresholds (GPU 64, CPU 16), never for a reduction that is no sum.
static_assert(plan<grad_t<32>, cpu_target>::final_chunks && !plan<grad_t<32>, gpu_target>::final_chunks);
static_assert(!plan<argmin_t<784>, cpu_target>::final_chunks && !plan<argmin_t<784>, gpu_target>::final_chunks);
// The staged sums feed the final chunks their parts: the final plan is over the staged form's rest.
static_assert(std::is_same_v<plan<grad_t<784>, gpu_target>::final_source, plan<grad_t<784>, gpu_target>::sums::outer>);

// --- The kernels read their decisions from the plan.
using K784 = kops::cuda::detail::kernel_traits<grad_t<784>, float, precision::accurate>;
static_assert(std::is_same_v<K784::lowered, plan<grad_t<784>, gpu_target>>);
static_assert(K784::final_chunks && K784::staged && K784::chunked);
static_assert(std::is_same_v<K784::op, sum_op>);  // the output row accumulates the plain sum
using K784k = kops::cuda::detail::kernel_traits<grad_t<784>, float, precision::accurate, sum_scheme::kahan>;
static_assert(!K784k::final_chunks && !std::is_same_v<K784k::op, sum_op>);
using B784 = kops::kokkos::detail::block_kernel<grad_t<784>, float, float, policy<precision::accurate, default_sum_scheme, dtype_acc::same>>;
static_assert(std::is_same_v<B784::Lowered, plan<grad_t<784>, cpu_target>>);
static_assert(B784::final_chunks && B784::staged);
using B784k = kops::kokkos::detail::block_kernel<grad_t<784>, float, float, policy<precision::accurate, sum_scheme::kahan, dtype_acc::same>>;
static_assert(B784k::final_chunks);

} // namespace
