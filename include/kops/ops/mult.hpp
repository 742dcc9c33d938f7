#pragma once

#include <kops/core/invariant.hpp>
#include <kops/ops/add.hpp>

namespace kops {

struct mult_op {
  static constexpr const char* name = "*";
  static constexpr const char* keops_name = "*";
  static constexpr bool infix = true;
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return a * b; }
  template <class A, class B, class G> static constexpr auto backward_a(A, B b, G g) { return b * g; }
  template <class A, class B, class G> static constexpr auto backward_b(A a, B, G g) { return a * g; }
};

struct exp_op;
struct square_op;

namespace detail {
template <class F> inline constexpr bool is_exp_v = is_op_v<F, exp_op>;

// (a0 a1) b with b and exactly one of a0, a1 invariant: regroup the invariant
// factors, a0 (a1 b) or a1 (a0 b). 0: no regrouping.
template <class A, class B> inline constexpr int regroup_v = 0;
template <class A0, class A1, class B>
inline constexpr int regroup_v<Binary<mult_op, A0, A1>, B> =
    !is_invariant_v<B> || is_constant_v<B> || (is_invariant_v<A0> == is_invariant_v<A1>) ? 0
    : is_invariant_v<A1>                                                                ? 1
                                                                                        : 2;
} // namespace detail

/// mult: (a * b)_k = a_k b_k, with {1, D} broadcasting (a scalar times a vector
/// scales it).
/// Derivative: [d_V (A B)]^T g = [d_V A]^T (B g) + [d_V B]^T (A g).
/// Simplifications, in order: 0 b = 0; 1 b = b; constants fold; c (d x) = (cd) x;
/// (-1) b = -b; (-a) g = a (-g) for an invariant g (parameters and constants
/// only, see core/invariant.hpp) and an invariant -g stays where it is, else
/// (-a) b = -(a b); (a g) h = a (g h) for
/// invariants g, h (so g h is computed once per call); a a = square(a);
/// exp(a) exp(b) = exp(a + b); operands in canonical order (constants first).
template <Formula A, Formula B>
constexpr auto operator*([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::operator*: operand dims must be equal or one of them 1 (broadcasting)");
  constexpr int D = A::dim > B::dim ? A::dim : B::dim;
  if constexpr (is_zero_v<A> || is_zero_v<B>) return Zero<D>{};
  else if constexpr (is_one_v<A>) return b;
  else if constexpr (is_one_v<B>) return a;
  else if constexpr (is_constant_v<A> && is_constant_v<B>)
    return make_constant<A::num * B::num, A::den * B::den>();
  else if constexpr (is_constant_v<B>) return b * a;
  else if constexpr (is_constant_v<A> && detail::scaled<B>::value)
    return (a * typename detail::scaled<B>::factor{}) * typename detail::scaled<B>::rest{};
  else if constexpr (is_constant_value_v<A, -1, 1>) return -b;
  else if constexpr (detail::is_neg_v<A> && is_invariant_v<B> && !is_invariant_v<A>)
    return operand_t<A, 0>{} * (-b);
  else if constexpr (detail::is_neg_v<B> && is_invariant_v<A> && !is_invariant_v<B>)
    return (-a) * operand_t<B, 0>{};
  else if constexpr (detail::is_neg_v<A> && !is_invariant_v<A>) return -(operand_t<A, 0>{} * b);
  else if constexpr (detail::is_neg_v<B> && !is_invariant_v<B>) return -(a * operand_t<B, 0>{});
  else if constexpr (detail::regroup_v<A, B> == 1) return operand_t<A, 0>{} * (operand_t<A, 1>{} * b);
  else if constexpr (detail::regroup_v<A, B> == 2) return operand_t<A, 1>{} * (operand_t<A, 0>{} * b);
  else if constexpr (detail::regroup_v<B, A> == 1) return operand_t<B, 0>{} * (operand_t<B, 1>{} * a);
  else if constexpr (detail::regroup_v<B, A> == 2) return operand_t<B, 1>{} * (operand_t<B, 0>{} * a);
  else if constexpr (std::is_same_v<A, B>) return Unary<square_op, A>{};
  else if constexpr (detail::is_exp_v<A> && detail::is_exp_v<B>)
    return Unary<exp_op, decltype(operand_t<A, 0>{} + operand_t<B, 0>{})>{};
  else if constexpr (detail::type_less<B, A>()) return Binary<mult_op, B, A>{};
  else return Binary<mult_op, A, B>{};
}

} // namespace kops
