// expect: kops::eval: the backend lists kops::batch among its options but has no launch_batched
// A backend whose options list kops::batch runs batches (detail/dispatch.hpp,
// BatchedBackend): one without launch_batched is told so where eval_call takes
// it, not deep inside the passes.
#include <kops/detail/dispatch.hpp>
#include <kops/kops.hpp>

#include <cstddef>

struct without_batches {
  using option_types = kops::type_list<kops::batch>;
  const char* where;
  without_batches(const char* w, const kops::detail::option_set<kops::batch>&) : where(w) {}
  template <class T, class F>
  bool with_temporary(std::size_t, F&&) { return true; }
  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent&, Out*, const T* const*) { return true; }
};

void f(const float* x, const float* y, float* out) {
  constexpr auto red = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  kops::detail::eval_call<without_batches>("toy::eval", red, 10, 10, out, x, y);
}
