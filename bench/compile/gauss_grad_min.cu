// (b') as gauss_grad.cu, but including only the headers it uses (one public
// name per header) instead of the <kops/cuda.hpp> umbrella.
// PART (default 3) cuts the TU for breakdown.sh's split of its cost: 1, the
// #include lines alone; 2, also the two formulas (built, differentiated,
// simplified) but no eval; 3, the whole TU.
#ifndef PART
#define PART 3
#endif
#include <kops/autodiff/reduction_grad.hpp>
#include <kops/backends/cuda/eval.hpp>
#include <kops/core/variable.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/mult.hpp>
#include <kops/ops/sqdist.hpp>
#include <kops/reductions/sum.hpp>

#if PART >= 2
namespace {
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
constexpr auto dconv = kops::grad(conv, x, kops::vi<4, 1>);
} // namespace
#endif

#if PART >= 3
void run(long long M, long long N, float* out, float* gx, const float* px, const float* py, const float* pb,
         const float* pg, const float* pe) {
  kops::cuda::eval(conv, M, N, out, px, py, pb, pg);
  kops::cuda::eval(dconv, M, N, gx, px, py, pb, pg, pe);
}
#elif PART == 2
static_assert(sizeof(conv) + sizeof(dconv) > 0);  // the formulas' types, complete
#endif

int main() { return 0; }
