// What every backend's eval of a kops::TiedSum (reductions/tied.hpp: the
// gradient w.r.t. a kops::tied cloud) checks and does besides its two evals:
// the element type and the absence of batches at compile time, M = N at run
// time, and, on host arrays, the two evals and their sum. Each of the two evals checks the
// rest (pointers, options, policies) as any eval does.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include <kops/core/batch.hpp>
#include <kops/core/error.hpp>
#include <kops/detail/dispatch.hpp>

namespace kops::detail {

// The output element type and the trailing arguments of a tied eval; true when
// they are allowed (float or double arrays, no kops::batch / kops::per_batch:
// the temporary holds one problem).
template <class Out, class... Rest>
constexpr bool check_tied_call() {
  constexpr bool real = std::is_same_v<Out, float> || std::is_same_v<Out, double>;
  static_assert(real, "kops::eval: the gradient w.r.t. a kops::tied cloud (a kops::TiedSum) takes float or "
                      "double arrays");
  constexpr bool unbatched = !((std::is_same_v<Rest, batch> || is_per_batch_v<Rest>) || ...);
  static_assert(unbatched, "kops::eval: the gradient w.r.t. a kops::tied cloud (a kops::TiedSum) takes no batches "
                           "(kops::batch, kops::per_batch): evaluate each problem on its own");
  return real && unbatched;
}

// The cloud is on both axes: M = N. True when it is; else reported (kops::error,
// or the error handler without exceptions) and false.
[[nodiscard]] inline bool check_tied_sizes(const char* where, std::int64_t M, std::int64_t N) {
  if (M != N)
    return fail("%s: the gradient w.r.t. a kops::tied cloud needs the cloud on both axes, M (the number of i "
                "rows, %lld) must equal N (the number of j rows, %lld)",
                where, (long long)M, (long long)N);
  return true;
}

// A tied eval on host arrays: the sizes checked, then eval_part(row_i, out),
// eval_part(row_j, tmp) into a host temporary of N * dim values, and out += tmp.
// eval_part(red, o) is the backend's eval of red into o with the call's other
// arguments.
template <class R, class Out, class EvalPart>
void eval_tied_on_host(const char* where, std::int64_t M, std::int64_t N, Out* out, EvalPart eval_part) {
  if (!check_tied_sizes(where, M, N)) return;
  std::vector<Out> part(std::size_t(N > 0 ? N : 0) * R::dim);
  eval_part(typename R::row_i{}, out);
  eval_part(typename R::row_j{}, part.data());
  for (std::size_t k = 0; k < part.size(); ++k) out[k] += part[k];
}

} // namespace kops::detail
