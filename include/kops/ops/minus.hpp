#pragma once

#include <kops/ops/add.hpp>

namespace kops {

struct minus_op {
  static constexpr const char* name = "-";
  static constexpr const char* keops_name = "Minus";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return -a; }
  template <class F, class G> static constexpr auto backward(F, G g) { return -g; }
};

namespace detail {
// a - b with dims equal (so b - a is the same shape).
template <class F> inline constexpr bool is_plain_difference_v = false;
template <class A, class B>
inline constexpr bool is_plain_difference_v<Binary<subtract_op, A, B>> = A::dim == B::dim;
} // namespace detail

/// minus (unary): (-a)_k = -a_k.
/// Derivative: [d_V (-A)]^T g = -[d_V A]^T g.
/// Simplifications: -(-a) = a; -0 = 0; -c folds for a constant c;
/// -(c a) = (-c) a; -(a - b) = b - a.
template <Formula F>
constexpr auto operator-([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (is_constant_v<F>) return make_constant<-F::num, F::den>();
  else if constexpr (detail::is_neg_v<F>) return operand_t<F, 0>{};
  else if constexpr (detail::scaled<F>::value)
    return -typename detail::scaled<F>::factor{} * typename detail::scaled<F>::rest{};
  else if constexpr (detail::is_plain_difference_v<F>) return operand_t<F, 1>{} - operand_t<F, 0>{};
  else return Unary<minus_op, F>{};
}

} // namespace kops
