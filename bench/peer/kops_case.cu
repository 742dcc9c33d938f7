// One formula of bench/sass/cases.sh on the kops side of the peer harness:
// kops::cuda::eval in float and double, precision fast and accurate (the scheme
// is the call's option). Built once per case from a generated wrapper that
// defines PEER_CASE_NAME, PEER_CASE_ORDER, one of PEER_SOURCE_{gauss,gauss_grad,
// argkmin,logsumexp,attention} (cases.sh's source file) and cases.sh's extra defines
// (SASS_D). The formulas are bench/sass's, written again here with the same
// variable indices (bench/sass/*.cu instantiate without running).
#include "peer.hpp"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef SASS_D
#define SASS_D 3
#endif

namespace {

constexpr int D = SASS_D;
constexpr auto x = kops::vi<0, D>;
constexpr auto y = kops::vj<1, D>;

#if defined(PEER_SOURCE_gauss) || defined(PEER_SOURCE_gauss_grad)
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
#endif

#if defined(PEER_SOURCE_gauss)
constexpr auto red = conv;
constexpr peer::kind kind = peer::kind::gauss;
constexpr int nargs = 4;
#elif defined(PEER_SOURCE_gauss_grad)
constexpr auto red = kops::grad(conv, x, kops::vi<4, 1>);
constexpr peer::kind kind = peer::kind::gauss_grad;
constexpr int nargs = 5;
#elif defined(PEER_SOURCE_argkmin)
constexpr auto red = kops::argkmin_reduction<8>(kops::sqdist(x, y), kops::axis_j);
constexpr peer::kind kind = peer::kind::argkmin;
constexpr int nargs = 2;
#elif defined(PEER_SOURCE_attention)
constexpr auto red = kops::sumsoftmaxweight_reduction(kops::pm<3, 1> * kops::dot(x, y), kops::vj<2, D>, kops::axis_j);
constexpr peer::kind kind = peer::kind::attention;
constexpr int nargs = 4;
#elif defined(PEER_SOURCE_logsumexp)
constexpr auto red = kops::logsumexp_reduction(-kops::pm<2, 1> * kops::sqdist(x, y), kops::axis_j);
constexpr peer::kind kind = peer::kind::logsumexp;
constexpr int nargs = 3;
#else
#error "kops_case.cu: define one of PEER_SOURCE_gauss, _gauss_grad, _argkmin, _logsumexp, _attention"
#endif

// Tune: the kernels' tuning (kops::cuda::eval's own, or a variant's through detail::eval_tuned).
// TC: the case's rows are the CUDA-core kernels (tensor_cores::off, comparable
// with KeOps's and with earlier runs); the "tensor_cores" variant lets eval
// take the tensor-core kernel where it applies (backends/cuda/tensor_core.hpp).
template <class T, kops::precision P, class Tune = kops::cuda::detail::default_tuning,
          kops::tensor_cores TC = kops::tensor_cores::off>
void run(const peer::call<T>& c) {
  using out_t = std::conditional_t<kind == peer::kind::argkmin, std::int64_t, T>;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    if constexpr (std::is_same_v<Tune, kops::cuda::detail::default_tuning>)
      kops::cuda::eval<P, TC>(red, c.rows, c.cols, static_cast<out_t*>(c.out), c.in[I]..., c.opts);
    else
      kops::cuda::detail::eval_tuned<Tune, P, TC>(red, c.rows, c.cols, static_cast<out_t*>(c.out), c.in[I]..., c.opts);
  }(std::make_index_sequence<nargs>{});
}

using kops::precision;

template <int R, int B>
peer::kops_variant variant() {
  using tune = kops::cuda::detail::tuning<R, B>;
  return {"r" + std::to_string(R) + "b" + std::to_string(B), &run<float, precision::fast, tune>,
          &run<double, precision::fast, tune>};
}

// The tuned variants timed beside the default (docs/cuda.md, "Tuning"): the
// 3-D Gaussian sum only (each variant is four more kernels to compile).
std::vector<peer::kops_variant> variants() {
#if defined(PEER_SOURCE_gauss) && SASS_D == 3
  return {variant<2, 192>(), variant<4, 192>(), variant<1, 128>(), variant<1, 256>(), variant<2, 256>()};
#elif (defined(PEER_SOURCE_gauss) || defined(PEER_SOURCE_argkmin)) && SASS_D >= 32
  // The tensor-core kernel (fast: TF32 in float; double stays on the CUDA
  // cores), judged against TF32's bound (docs/tensor_cores.md): 1e-2, 100
  // times the float tolerance of sums and 1000 times argkmin's.
  using tune = kops::cuda::detail::default_tuning;
  return {peer::kops_variant{"tensor_cores", &run<float, precision::fast, tune, kops::tensor_cores::automatic>,
                             &run<double, precision::fast, tune, kops::tensor_cores::automatic>,
                             kind == peer::kind::argkmin ? 1000.0 : 100.0}};
#else
  return {};
#endif
}

const peer::add_case registered{peer::kops_case{PEER_CASE_NAME, PEER_CASE_ORDER, kind, D, nargs,
                                                &run<float, precision::fast>, &run<float, precision::accurate>,
                                                &run<double, precision::fast>, &run<double, precision::accurate>,
                                                variants()}};

} // namespace
