// expect: kops::eval: the backend declares only one of output_chunk_min_dim and output_chunk
// Output chunking needs both constants (detail/dispatch.hpp,
// OutputChunkedBackend): a backend that misspells one is told so, instead of
// silently losing its output chunks.
#include <kops/detail/dispatch.hpp>
#include <kops/kops.hpp>

#include <cstddef>

struct misspelt_chunks {
  using option_types = kops::type_list<>;
  static constexpr int output_chunk_min_dims = 64;  // output_chunk_min_dim
  static constexpr int output_chunk = 32;
  const char* where;
  misspelt_chunks(const char* w, const kops::detail::option_set<>&) : where(w) {}
  template <class T, class F>
  bool with_temporary(std::size_t, F&&) { return true; }
  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent&, Out*, const T* const*) { return true; }
};

void f(const float* x, const float* y, float* out) {
  constexpr auto red = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  kops::detail::eval_call<misspelt_chunks>("toy::eval", red, 10, 10, out, x, y);
}
