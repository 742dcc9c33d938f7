// reference_eval: a reduction evaluated by its definition on the host, one
// (i, j) pair at a time, with kops::scalar_math in the value type V (the data
// is converted to V first). Independent of every backend's tiling, blocking
// and scheduling; the oracle the backends are compared with.
//
//   reference_eval<V>(red, M, N, out, args...)    args: host arrays of any one element type
//   reference_eval_kept<V>(keep, red, M, N, out, args...)   only the pairs keep(row, term)
//   out: (rows, red.dim) of Op::out_t<V> (V values, or std::int64_t indices)
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <kops/detail/arguments.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/kops.hpp>

namespace kops_test {

template <class V>
struct reference_context {
  using value_type = V;
  using scalar_type = V;
  using math = kops::scalar_math;
  const V* const* args;
  std::int64_t i, j;

  template <kops::category C, int I, int D>
  KOPS_HD kops::vec<V, D> load() const {
    const std::int64_t r = C == kops::category::i ? i : C == kops::category::j ? j : 0;
    kops::vec<V, D> out;
    for (int k = 0; k < D; ++k) out[k] = args[I][r * D + k];
    return out;
  }
};

// Every (row, term) pair is kept.
struct keep_all {
  bool operator()(std::int64_t, std::int64_t) const { return true; }
};

// The reduction of each output row r over the terms c with keep(r, c), in
// axis order (a row with none: the reduction's value over no term).
template <class V, class Keep, class Red, class Out, class... T>
void reference_eval_kept(const Keep& keep, Red, std::int64_t M, std::int64_t N, Out* out, const T*... args) {
  using F = typename Red::formula;
  using Op = typename Red::op;
  using Mth = kops::scalar_math;
  static_assert(sizeof...(T) == Red::nargs, "reference_eval: one pointer per argument index");
  static_assert(std::is_same_v<Out, typename Op::template out_t<V>>, "reference_eval: output type");
  // Converted copies of the arguments (sizes from the signature; unused slots stay empty).
  std::vector<std::vector<V>> data(sizeof...(T));
  std::vector<const V*> ptrs(sizeof...(T) > 0 ? sizeof...(T) : 1, nullptr);
  const void* raw[] = {static_cast<const void*>(args)...};
  [&]<class... S>(kops::type_list<S...>) {
    ([&] {
      if constexpr (!kops::detail::is_unused_slot_v<S>) {
        using E = std::tuple_element_t<S::index, std::tuple<T...>>;
        const std::int64_t n = (S::cat == kops::category::i ? M : S::cat == kops::category::j ? N : 1) * S::dim;
        const E* src = static_cast<const E*>(raw[S::index]);
        data[S::index].assign(src, src + n);
        ptrs[S::index] = data[S::index].data();
      }
    }(), ...);
  }(typename Red::signature{});

  const bool over_j = Red::row_cat == kops::category::i;
  const std::int64_t rows = over_j ? M : N, cols = over_j ? N : M;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t first = 0;
    while (first < cols && !keep(r, first)) ++first;
    auto acc = Op::template init<Mth, V, F::dim>(first < cols ? first : -1);
    for (std::int64_t c = first; c < cols; ++c) {
      if (!keep(r, c)) continue;
      const reference_context<V> ctx{ptrs.data(), over_j ? r : c, over_j ? c : r};
      Op::template accumulate<Mth>(acc, F::eval(ctx), Mth::template index<V>(c));
    }
    Op::template finalize<Mth>(acc, 0, out + r * Red::dim);
  }
}

template <class V, class Red, class Out, class... T>
void reference_eval(Red red, std::int64_t M, std::int64_t N, Out* out, const T*... args) {
  reference_eval_kept<V>(keep_all{}, red, M, N, out, args...);
}

} // namespace kops_test
