#pragma once

#include <kops/core/elementwise.hpp>
#include <kops/core/order.hpp>

namespace kops {

struct add_op {
  static constexpr const char* name = "+";
  static constexpr const char* keops_name = "+";
  static constexpr bool infix = true;
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return a + b; }
  template <class A, class B, class G> static constexpr auto backward_a(A, B, G g) { return g; }
  template <class A, class B, class G> static constexpr auto backward_b(A, B, G g) { return g; }
};

struct subtract_op;
struct mult_op;
struct minus_op;

namespace detail {
template <class F> inline constexpr bool is_neg_v = is_op_v<F, minus_op>;
// c * x with c a constant: its factor and its rest.
template <class F> struct scaled {
  static constexpr bool value = false;
};
template <class C, class X>
  requires is_constant_v<C>
struct scaled<Binary<mult_op, C, X>> {
  static constexpr bool value = true;
  using factor = C;
  using rest = X;
};
// A = c x and B = d x with constants c, d and the same x.
template <class A, class B> inline constexpr bool same_rest_v = false;
template <class A, class B>
  requires(scaled<A>::value && scaled<B>::value)
inline constexpr bool same_rest_v<A, B> = std::is_same_v<typename scaled<A>::rest, typename scaled<B>::rest>;
// B = c A for a constant c.
template <class A, class B> inline constexpr bool scales_v = false;
template <class A, class B>
  requires(scaled<B>::value)
inline constexpr bool scales_v<A, B> = std::is_same_v<A, typename scaled<B>::rest>;

// a b + c d with one factor in common (in either position, since canonical
// order may have moved it): the factor and the two rests.
template <class A, class B> struct common_factor {
  static constexpr bool value = false;
};
template <class X1, class Y1, class X2, class Y2>
struct common_factor<Binary<mult_op, X1, Y1>, Binary<mult_op, X2, Y2>> {
  static constexpr int which = std::is_same_v<X1, X2> ? 1 : std::is_same_v<Y1, Y2> ? 2 : std::is_same_v<X1, Y2> ? 3
                               : std::is_same_v<Y1, X2> ? 4 : 0;
  static constexpr bool value = which != 0;
  using factor = std::conditional_t<which == 1 || which == 3, X1, Y1>;
  using rest_a = std::conditional_t<which == 1 || which == 3, Y1, X1>;
  using rest_b = std::conditional_t<which == 1 || which == 4, Y2, X2>;
};
} // namespace detail

/// add: (a + b)_k = a_k + b_k, with {1, D} broadcasting.
/// Derivative: [d_V (A + B)]^T g = [d_V A]^T g + [d_V B]^T g (summing g over
/// the components a dim-1 operand was broadcast to).
/// Simplifications, in order: 0 + b = b; constants fold (p/q + r/s exactly);
/// a + a = 2a; a + (-b) = a - b; c a + d a = (c + d) a and a + c a = (1 + c) a
/// for constants c, d; a b + a c = a (b + c) (common factor); operands in
/// canonical order (constants first), so a + b and b + a are one type.
template <Formula A, Formula B>
constexpr auto operator+([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::operator+: operand dims must be equal or one of them 1 (broadcasting)");
  constexpr int D = A::dim > B::dim ? A::dim : B::dim;
  using sa = detail::scaled<A>;
  using sb = detail::scaled<B>;
  if constexpr (is_zero_v<A> && B::dim == D) return b;
  else if constexpr (is_zero_v<B> && A::dim == D) return a;
  else if constexpr (is_constant_v<A> && is_constant_v<B>)
    return make_constant<A::num * B::den + B::num * A::den, A::den * B::den>();
  else if constexpr (std::is_same_v<A, B>) return cst<2> * a;
  else if constexpr (detail::is_neg_v<B>) return a - operand_t<B, 0>{};
  else if constexpr (detail::is_neg_v<A>) return b - operand_t<A, 0>{};
  else if constexpr (detail::same_rest_v<A, B>)
    return (typename sa::factor{} + typename sb::factor{}) * typename sa::rest{};
  else if constexpr (detail::scales_v<A, B>)
    return (cst<1> + typename sb::factor{}) * a;
  else if constexpr (detail::scales_v<B, A>)
    return (cst<1> + typename sa::factor{}) * b;
  else if constexpr (detail::common_factor<A, B>::value)
    return typename detail::common_factor<A, B>::factor{} *
           (typename detail::common_factor<A, B>::rest_a{} + typename detail::common_factor<A, B>::rest_b{});
  else if constexpr (detail::type_less<B, A>()) return Binary<add_op, B, A>{};
  else return Binary<add_op, A, B>{};
}

} // namespace kops
