// Shape algebra for the ops that read a flat vector as a tensor (tensordot,
// kron), all of it evaluated at compile time.
//
// A shape is a list of axis sizes s_0..s_{r-1} (r the rank, every s_k >= 1); a
// tensor of that shape is stored flat, row-major: the entry at multi-index
// (i_0, .., i_{r-1}) (0 <= i_k < s_k) sits at offset
//   ((i_0 s_1 + i_1) s_2 + i_2) .. s_{r-1} + i_{r-1},
// so the last axis varies fastest, and the flat vector has prod s entries (1 at
// rank 0). An axis list names axes of a shape by number, 0..r-1.
//
// Shapes and axis lists reach the ops as types L<x...> (kops::dims, kops::axes);
// here they are iarray<N> values, and list_t turns one back into a type.
#pragma once

#include <utility>

namespace kops::detail {

// A fixed-size int array usable in constant expressions (a plain C array, so
// that device code reads its elements as constants, never as memory). N may
// be 0 (one unused element is kept, never read).
template <int N>
struct iarray {
  int v[N > 0 ? N : 1] = {};
  friend constexpr bool operator==(const iarray&, const iarray&) = default;
};

// The entries of a list type L<x...> (dims<..>, axes<..>): their number and values.
template <class L> struct int_list;
template <template <int...> class L, int... X>
struct int_list<L<X...>> {
  static constexpr int size = sizeof...(X);
  static constexpr iarray<sizeof...(X)> values{{X...}};
};

// list_t<L, Arr, N> = L<Arr.v[0], .., Arr.v[N-1]> for a static constexpr iarray Arr.
template <auto& Arr> struct array_ref {
  static constexpr const auto& value = Arr;
};
template <template <int...> class L, class A, int... I>
auto list_of(std::integer_sequence<int, I...>) -> L<A::value.v[I]...>;
template <template <int...> class L, auto& Arr, int N>
using list_t = decltype(list_of<L, array_ref<Arr>>(std::make_integer_sequence<int, N>{}));

// prod s: the number of entries of a tensor of shape s (1 for rank 0).
template <int N>
constexpr long long product(const iarray<N>& s) {
  long long p = 1;
  for (int k = 0; k < N; ++k) p *= s.v[k];
  return p;
}
// The same for a shape given as a list type: shape_size_v<dims<2, 3>> == 6.
template <class L> inline constexpr long long shape_size_v = product(int_list<L>::values);

// Every axis size is >= 1.
template <int N>
constexpr bool valid_shape(const iarray<N>& s) {
  for (int k = 0; k < N; ++k)
    if (s.v[k] < 1) return false;
  return true;
}

// Every entry of c is in [0, r) and appears once (c names distinct axes of a
// rank-r shape; with N == r, c is a permutation of 0..r-1).
template <int N>
constexpr bool distinct_in_range(const iarray<N>& c, int r) {
  for (int p = 0; p < N; ++p) {
    if (c.v[p] < 0 || c.v[p] >= r) return false;
    for (int q = 0; q < p; ++q)
      if (c.v[q] == c.v[p]) return false;
  }
  return true;
}

// The identity permutation 0, 1, .., N-1, and the test for it.
template <int N>
constexpr iarray<N> iota() {
  iarray<N> p;
  for (int k = 0; k < N; ++k) p.v[k] = k;
  return p;
}
template <int N>
constexpr bool is_identity(const iarray<N>& p) {
  return p == iota<N>();
}

// The K axes of a rank-r shape that c (distinct, in range) does not list, in
// increasing order (K = r - N).
template <int K, int N>
constexpr iarray<K> complement(const iarray<N>& c, int r) {
  iarray<K> out;
  int n = 0;
  for (int k = 0; k < r; ++k) {
    bool listed = false;
    for (int p = 0; p < N; ++p) listed = listed || c.v[p] == k;
    if (!listed) out.v[n++] = k;
  }
  return out;
}

// The sizes of the axes c of shape s, in c's order: (s[c_0], .., s[c_{N-1}]).
template <int N, int R>
constexpr iarray<N> gather(const iarray<R>& s, const iarray<N>& c) {
  iarray<N> out;
  for (int p = 0; p < N; ++p) out.v[p] = s.v[c.v[p]];
  return out;
}

// The multi-index of flat offset f (0 <= f < prod s) in shape s, row-major.
template <int N>
constexpr iarray<N> unravel(int f, const iarray<N>& s) {
  iarray<N> i;
  for (int k = N - 1; k >= 0; --k) {
    i.v[k] = f % s.v[k];
    f /= s.v[k];
  }
  return i;
}

// The flat offset of multi-index i in shape s, row-major (inverse of unravel).
template <int N>
constexpr int ravel(const iarray<N>& i, const iarray<N>& s) {
  int f = 0;
  for (int k = 0; k < N; ++k) f = f * s.v[k] + i.v[k];
  return f;
}

} // namespace kops::detail
