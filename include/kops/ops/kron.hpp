#pragma once

#include <kops/ops/detail/shape.hpp>
#include <kops/ops/tensordot.hpp>

namespace kops {

/// kron<dims<p...>, dims<q...>>(a, b): the Kronecker product of the flat row-major
/// tensors a (shape p) and b (shape q, the same number of axes), as numpy's kron
/// and KeOps' Kron(a, b, p, q): shape (p_0 q_0, p_1 q_1, ...), dim a dim b,
/// ```text
///   kron(a, b)[i_0 q_0 + j_0, i_1 q_1 + j_1, ...] = a[i_0, i_1, ...] b[j_0, j_1, ...].
/// ```
/// It is the tensordot of a and b with nothing contracted and the axes
/// interleaved (a_0, b_0, a_1, b_1, ...), which is how KeOps defines it too, and
/// prints as kron / Kron. Derivative: that of tensordot (linear in each operand).
/// For vectors (one axis) it is tensorprod(a, b).
template <class Sa, class Sb, Formula A, Formula B>
constexpr auto kron(A a, B b) {
  constexpr int ra = detail::int_list<Sa>::size, rb = detail::int_list<Sb>::size;
  static_assert(ra == rb, "kops::kron: both shapes must have the same number of axes");
  static_assert(ra != rb || detail::shape_size_v<Sa> == A::dim,
                "kops::kron: the shape of a must multiply to dim a");
  static_assert(ra != rb || detail::shape_size_v<Sb> == B::dim,
                "kops::kron: the shape of b must multiply to dim b");
  if constexpr (ra == rb) return tensordot<Sa, Sb, axes<>, axes<>, detail::interleave_t<ra>>(a, b);
  else return Zero<1>{};  // (after the failed assertion: no second error)
}

} // namespace kops
